/**
 * The config's scripts served by the proxy as a user runs it (the bin, over Streamable HTTP, in
 * front of the real filesystem server, reached by the SDK's Client): each listed with its own
 * schema, its input checked and given to the script as `input`, and every call it makes passing
 * the gate, so a side-effecting tool it did not declare, or the config does not let be chained,
 * is refused inside it.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, type Project } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

let project: Project;
let proxy: HttpProxy;
let client: Client;

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };

beforeAll(async () => {
  project = await copyProject('toolweave-snippets-');
  const config = {
    servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
    // The config lets create_directory be chained; write_file is not listed.
    sideEffectingTools: ['create_directory'],
    // run_js's budget holds in a script too: at most 2 calls a run.
    script: { maxCalls: 2 },
    scripts: {
      three_reads: {
        description: 'Read a file three times.',
        inputSchema: pathSchema,
        script: 'const out = [];\nfor (let i = 0; i < 3; i++) out.push((await callTool("read_text_file", { path: input.path })).error?.code ?? "ok");\nreturn out;',
      },
      count_lines: {
        description: 'Count the lines of a text file.',
        inputSchema: pathSchema,
        script: 'const r = await callTool("read_text_file", { path: input.path }); if (r.error) throw new Error(r.error.message); return { path: input.path, lines: r.text.split("\\n").length };',
      },
      make_folder: {
        description: 'Make a folder.',
        inputSchema: pathSchema,
        sideEffectingTools: ['create_directory'],
        script: 'const r = await callTool("create_directory", { path: input.path }); return r.error ?? r.text;',
      },
      // Declares write_file, which the config does not let be chained.
      save_note: {
        description: 'Save a note.',
        inputSchema: pathSchema,
        sideEffectingTools: ['write_file'],
        script: 'const r = await callTool("write_file", { path: input.path, content: "note" }); return r.error;',
      },
      // Declares nothing, so it is pure: the config's create_directory is not its to call.
      sneaky: {
        description: 'Reads, it says.',
        inputSchema: pathSchema,
        script: 'const r = await callTool("create_directory", { path: input.path }); return r.error;',
      },
    },
  };
  const file = path.join(project.root, 'toolweave.json');
  await writeFile(file, JSON.stringify(config));
  proxy = await proxyOverHttp(['--config', file]);
  client = await httpClient(proxy.url);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await proxy?.stop();
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

async function call(name: string, args: Record<string, unknown>) {
  const parsed = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text };
}

describe('config scripts through the proxy', () => {
  it('lists each script as a tool with its own description and input schema', async () => {
    const { tools } = await client.listTools();
    const count = tools.find((tool) => tool.name === 'count_lines');
    expect(count).toMatchObject({ description: 'Count the lines of a text file.', inputSchema: pathSchema });
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['count_lines', 'make_folder', 'save_note', 'sneaky', 'run_js', 'read_text_file']));
    // The proxy's startup says which declared tool will be refused, and how to allow it.
    expect(proxy.stderr()).toContain('step_not_chainable');
    expect(proxy.stderr()).toContain('scripts.save_note declares "write_file"');
  });

  it('runs the script with the checked input as `input`, its calls made upstream', async () => {
    const readme = path.join(project.root, 'README.md');
    const { readFile } = await import('node:fs/promises');
    const expected = (await readFile(readme, 'utf8')).split('\n').length;
    const answer = await call('count_lines', { path: readme });
    expect(answer.isError).toBe(false);
    expect(JSON.parse(answer.text)).toEqual({ path: readme, lines: expected });
  });

  it("holds run_js's call budget: the call past maxCalls is not made", async () => {
    const answer = await call('three_reads', { path: path.join(project.root, 'README.md') });
    expect(answer.isError).toBe(false);
    expect(JSON.parse(answer.text.split('\n')[0])).toEqual(['ok', 'ok', 'script_too_many_calls']);
    expect(answer.text).toContain('past the limit of 2');
  });

  it('refuses input its schema does not allow, before the script runs', async () => {
    const answer = await call('count_lines', { file: 'README.md' });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('input_invalid');
    expect(answer.text).toMatch(/path/u);
  });

  it('lets a script call the side-effecting tool it declares and the config allows', async () => {
    const folder = path.join(project.root, 'made-by-script');
    const answer = await call('make_folder', { path: folder });
    expect(answer.isError).toBe(false);
    expect(existsSync(folder)).toBe(true);
  });

  it('refuses inside a script a side-effecting tool the config does not let be chained, and one the script did not declare', async () => {
    const note = path.join(project.root, 'note.txt');
    const refused = await call('save_note', { path: note });
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'step_not_chainable' });
    expect(existsSync(note)).toBe(false);
    const folder = path.join(project.root, 'sneaky-folder');
    const sneaky = await call('sneaky', { path: folder });
    expect(JSON.parse(sneaky.text)).toMatchObject({ code: 'step_not_chainable' });
    expect(existsSync(folder)).toBe(false);
  });
});
