/**
 * A refusal over the proxy names what the person running it can change: `--chain write_file` and
 * the config file's `sideEffectingTools`, a server's `tools:` entry or `--trust-annotations`, never
 * the library's `builder.bind`. The built bin is run (`npm run build` first), as `npx toolweave`
 * runs it, over the reference filesystem server.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, copyProject, FS_SERVER, processesLeft, REPO, until, type ChildClient, type Project } from '../mcp/helpers.js';
import { runBin } from './proxy-process.js';

const BIN = path.join(REPO, 'dist/cli/toolweave.js');

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-advice-');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

/** A call's answer as the client sees it: whether it failed, and its text. */
async function call(proxy: ChildClient, name: string, args: Record<string, unknown>) {
  const answer = CallToolResultSchema.parse(await proxy.client.callTool({ name, arguments: args }));
  return { isError: answer.isError === true, text: (answer.content[0] as { text: string }).text };
}

/** What a script's call of `tool` answered: its error code and message. */
async function fromScript(proxy: ChildClient, tool: string, args: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const answer = await call(proxy, 'run_js', { code: `return (await callTool(${JSON.stringify(tool)}, ${JSON.stringify(args)})).error;` });
  expect(answer.isError).toBe(false);
  return JSON.parse(answer.text) as { code: string; message: string };
}

describe('the server after --, its annotations trusted, with --verbose', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--trust-annotations', '--verbose', '--', process.execPath, FS_SERVER, project.root]);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
  });

  const advice = 'call it directly, or restart toolweave mcp with --chain write_file, or list "write_file" in the config file\'s sideEffectingTools.';

  it('a script calling a side-effecting tool that is not listed is told --chain write_file and the config key', async () => {
    const refusal = await fromScript(proxy, 'write_file', { path: 'note.txt', content: 'x' });
    expect(refusal.code).toBe('step_not_chainable');
    expect(refusal.message).toBe(`Tool "write_file" has side effects and is not listed as one that may be chained, so it cannot run here: ${advice}`);
    expect(refusal.message).not.toContain('builder.bind');
    // --verbose: the refused call under the script, on stderr, with its code and why.
    const line = `toolweave: call write_file in run_js, step call 1: step_not_chainable: ${refusal.message} (0 ms)`;
    await until(() => proxy.stderr().includes(line), 10_000);
    expect(proxy.stderr()).toContain(line);
  });

  it('so is a pipeline with such a step', async () => {
    const answer = await call(proxy, 'run_pipeline', { steps: [{ tool: 'list_directory', args: { path: project.root } }, { tool: 'write_file', args: { path: 'note.txt', content: 'x' } }] });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^error step_not_chainable: /u);
    expect(answer.text).toContain(advice);
    // Refused whole before any step ran: --verbose logs the pipeline's call, with why.
    const line = /toolweave: call run_pipeline: step_failed: .*step_2: Tool "write_file" has side effects.*--chain write_file.* \(\d+ ms\)/u;
    await until(() => line.test(proxy.stderr()), 10_000);
    expect(proxy.stderr()).toMatch(line);
  });
});

describe('servers whose tools declare nothing', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    const config = path.join(project.root, 'advice.json');
    await writeFile(config, JSON.stringify({ servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root] } } }));
    proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--config', config]);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
  });

  it("a script calling one is told the config's entry for the tool, or trustAnnotations on its server", async () => {
    const refusal = await fromScript(proxy, 'read_text_file', { path: 'README.md' });
    expect(refusal.code).toBe('side_effects_undeclared');
    expect(refusal.message).toBe(
      'Tool "read_text_file" does not declare whether it has side effects, so it is never chained: call it directly, or declare it in the config file: ' +
        'servers.fs.tools.read_text_file.hasSideEffects (false: it changes nothing; true: it does, and then list it with --chain read_text_file or sideEffectingTools), ' +
        'or set trustAnnotations: true on server "fs" to go by the server\'s annotations.',
    );
  });
});

describe('the server after --, its annotations not trusted', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--', process.execPath, FS_SERVER, project.root]);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
  });

  it('a script calling one of its tools is told --trust-annotations', async () => {
    const refusal = await fromScript(proxy, 'read_text_file', { path: 'README.md' });
    expect(refusal.code).toBe('side_effects_undeclared');
    expect(refusal.message).toContain("call it directly, or restart toolweave mcp with --trust-annotations (the server's readOnlyHint: true then makes a tool pure)");
  });
});

describe('toolweave check', () => {
  it('a composite calling a side-effecting tool that is not listed is told the config key', async () => {
    const folder = path.join(project.root, '.check-advice');
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, 'save.json'),
      JSON.stringify({ name: 'save_note', description: 'Save a note.', inputSchema: { type: 'object' }, spec: { steps: [{ name: 'save', tool: 'write_file', args: { path: 'note.txt', content: 'x' } }] } }),
    );
    const config = path.join(folder, 'toolweave.json');
    await writeFile(config, JSON.stringify({ servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } }, composites: ['save.json'] }));
    const run = await runBin(['check', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'FAIL composite save_note (' + path.join(folder, 'save.json') + '): spec_invalid: step "save" calls "write_file", which has side effects and is not listed as one that may be chained: ' +
        'list "write_file" in the config file\'s sideEffectingTools, or leave the step out',
    );
  }, 60_000);
});
