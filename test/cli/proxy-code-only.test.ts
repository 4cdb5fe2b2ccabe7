/**
 * `toolweave mcp --code-only` (and `codeOnly: true` in a config) in front of the real filesystem
 * server, as a client sees it: only run_js and get_observation listed, run_js's description saying
 * how a script finds the rest, the instructions describing it, the tools a script may not call
 * reported, and the unlisted tools still reached through run_js, every call through the gate.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, sleep, type ChildClient, type Project } from '../mcp/helpers.js';
import { proxyOverStdio } from './proxy-process.js';

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-code-only-');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const textOf = (result: unknown) => (CallToolResultSchema.parse(result).content[0] as { text: string }).text;

/** What the proxy wrote to stderr once `pattern` is in it (the session reports as it starts). */
async function stderrWith(proxy: ChildClient, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 50 && !pattern.test(proxy.stderr()); i++) await sleep(100);
  return proxy.stderr();
}

describe('toolweave mcp --code-only', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    proxy = await proxyOverStdio(['--code-only', '--trust-annotations', '--chain', 'write_file', '--', process.execPath, FS_SERVER, project.root]);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
  });

  it('lists only run_js and get_observation, run_js saying how to find the rest and naming their group', async () => {
    const { tools } = await proxy.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_js', 'get_observation']);
    const runJs = tools[0];
    // Ten read-only tools and write_file, the one side-effecting tool the host lets scripts call.
    expect(runJs.description).toContain('11 tools are reached only from here');
    expect(runJs.description).toContain('await searchTools("what you need", 5)');
    expect(runJs.description).toMatch(/\nGroups: upstream 11\.$/u);
    expect(runJs.inputSchema).toEqual({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] });
  });

  it('its instructions describe discovery and name what a script may change', () => {
    const instructions = proxy.client.getInstructions() ?? '';
    expect(instructions).toContain('- 11 more tools (upstream 11) are not listed: in a run_js script, find them with searchTools(query)');
    expect(instructions).toContain('Tools that change things a script may call: write_file.');
    expect(instructions).not.toContain('run_pipeline');
    expect(instructions).not.toContain('compose');
  });

  it('reports the tools no door reaches, and what makes them callable', async () => {
    const stderr = await stderrWith(proxy, /code-only: /u);
    expect(stderr).toContain(
      'error step_not_chainable: code-only: 3 tools cannot be called, since run_js is the only door and a script may not call them: 3 change things and are not in sideEffectingTools (edit_file, create_directory, move_file): list those a script may call',
    );
  });

  it('an unlisted tool is refused as a direct call, and reached from run_js through the gate', async () => {
    const direct = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: path.join(project.root, 'README.md') } });
    expect(direct.isError).toBe(true);
    expect(textOf(direct)).toMatch(/^error step_missing: /u);
    // The answer says where the tool is, and how a script calls it.
    expect(textOf(direct)).toContain('"read_text_file" is not served directly here (code-only): call it from run_js, as `await tools.read_text_file({ ... })` or `await callTool("read_text_file", { ... })`.');
    // A name no tool has gets no such hint.
    expect(textOf(await proxy.client.callTool({ name: 'no_such_tool', arguments: {} }))).not.toContain('run_js');
    // A tool a script may not call either is not offered to one.
    expect(textOf(await proxy.client.callTool({ name: 'create_directory', arguments: {} }))).not.toContain('call it from run_js');
    const viaScript = await proxy.client.callTool({
      name: 'run_js',
      arguments: { code: `const r = await callTool('read_text_file', { path: ${JSON.stringify(path.join(project.root, 'README.md'))} }); return r.error ? r.error.code : r.text.split('\\n')[0];` },
    });
    expect(viaScript.isError).toBeFalsy();
    expect(textOf(viaScript)).toMatch(/^# /u);
    // A side-effecting tool the host did not list is refused by the gate, as ever.
    const refused = await proxy.client.callTool({
      name: 'run_js',
      arguments: { code: `const r = await callTool('create_directory', { path: ${JSON.stringify(path.join(project.root, 'made'))} }); return r.error.code;` },
    });
    expect(textOf(refused)).toBe('step_not_chainable');
  });
});

describe('codeOnly: true in the config', () => {
  it('serves the same two tools, and without trusted annotations reports that no tool can be called', async () => {
    const config = path.join(project.root, 'toolweave.json');
    await writeFile(config, JSON.stringify({ servers: { files: { command: process.execPath, args: [FS_SERVER, project.root] } }, codeOnly: true }));
    const proxy = await proxyOverStdio(['--config', config]);
    try {
      const { tools } = await proxy.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['run_js', 'get_observation']);
      expect(tools[0].description).toMatch(/No tools can be called from a script here\.$/u);
      const stderr = await stderrWith(proxy, /code-only: /u);
      expect(stderr).toMatch(/code-only: 14 tools cannot be called, since run_js is the only door and a script may not call them: 14 declare no side effects \(read_file, read_text_file, read_media_file, read_multiple_files, write_file, \.\.\.\): set trustAnnotations: true/u);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
