/**
 * A second, independent client: the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`,
 * pinned; v1 runs on Node 20, the inspector 2.x needs Node 22) lists the proxy's tools and calls
 * run_js through it, over stdio.
 *
 * The inspector CLI reads its own package.json through a path relative to the working folder, so
 * it is run from its build folder (its `../package.json` then is its own).
 */
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, liveProcesses, processesLeft, REPO, type Project } from '../mcp/helpers.js';
import { BIN_COMMAND } from './proxy-process.js';

const run = promisify(execFile);
const INSPECTOR = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector-cli/build');

let project: Project;
let proxyCommand: string;
beforeAll(async () => {
  project = await copyProject('toolweave-inspector-');
  // The inspector takes the server as a command and its arguments; a script keeps the proxy's own
  // options (--import, --trust-annotations) from being read as the inspector's.
  proxyCommand = path.join(project.root, 'toolweave-mcp.sh');
  const [node, ...bin] = BIN_COMMAND;
  const words = [node, ...bin, 'mcp', '--trust-annotations', '--', process.execPath, FS_SERVER, project.root].map((w) => `'${w}'`).join(' ');
  await writeFile(proxyCommand, `#!/bin/sh\ncd '${REPO}' && exec ${words}\n`);
  await chmod(proxyCommand, 0o755);
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

async function inspect(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [path.join(INSPECTOR, 'index.js'), proxyCommand, ...args], { cwd: INSPECTOR, timeout: 60_000 });
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI as a client of the proxy', () => {
  it('lists the tools, annotations included', async () => {
    const { tools } = (await inspect('--method', 'tools/list')) as { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] };
    const by = new Map(tools.map((t) => [t.name, t]));
    expect([...by.keys()]).toEqual(expect.arrayContaining(['run_pipeline', 'compose', 'run_js', 'get_observation', 'read_text_file', 'write_file']));
    expect(by.get('read_text_file')!.annotations?.readOnlyHint).toBe(true);
    expect(by.get('write_file')!.annotations?.readOnlyHint).toBe(false);
  }, 60_000);

  it('starts the proxy from a command line whose -- the inspector took as its own', async () => {
    // The inspector splits its command line at the first --, and drops it: the proxy is given
    // `mcp --trust-annotations node <server> <root>`, and must still start the server.
    const proxy = [...BIN_COMMAND, 'mcp', '--trust-annotations', '--', process.execPath, FS_SERVER, project.root];
    const { stdout } = await run(process.execPath, [path.join(INSPECTOR, 'index.js'), '--method', 'tools/list', ...proxy], { cwd: INSPECTOR, timeout: 60_000 });
    const { tools } = JSON.parse(stdout) as { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['run_js', 'read_text_file']));
    expect(tools.find((t) => t.name === 'read_text_file')!.annotations?.readOnlyHint).toBe(true);
  }, 60_000);

  it('calls run_js, whose script reads a file through the upstream server', async () => {
    const code = `const r = await callTool('read_text_file', { path: 'README.md' }); return r.error ? r.error.code : r.text.split('\\n')[0];`;
    const result = (await inspect('--method', 'tools/call', '--tool-name', 'run_js', '--tool-arg', 'intention=first line', `code=${code}`)) as { content: { text: string }[] };
    expect(result.content[0].text).toBe('# shop-api');
  }, 60_000);
});
