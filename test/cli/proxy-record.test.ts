/**
 * `toolweave mcp --record <dir>`: every upstream call, direct or made under a door, is written as a
 * JSON line to its session's file, and so is each run of a door a client called (its calls
 * carrying its id), through the real bin and the real filesystem server.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, type Project } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

let project: Project;
let proxy: HttpProxy;
let recordings: string;
const clients: Client[] = [];

beforeAll(async () => {
  project = await copyProject('toolweave-record-');
  recordings = path.join(project.root, '.recordings');
  proxy = await proxyOverHttp(['--record', recordings, '--trust-annotations', '--', process.execPath, FS_SERVER, project.root]);
  clients.push(await httpClient(proxy.url), await httpClient(proxy.url));
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await proxy?.stop();
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

async function linesOf(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('toolweave mcp --record', () => {
  it("writes each session's calls, direct and under run_js, to a file of its own", async () => {
    const [a, b] = clients;
    const readme = path.join(project.root, 'README.md');
    const direct = CallToolResultSchema.parse(await a.callTool({ name: 'read_text_file', arguments: { path: readme } }));
    expect(direct.isError).not.toBe(true);
    const app = path.join(project.root, 'src/app');
    const script = CallToolResultSchema.parse(
      await a.callTool({ name: 'run_js', arguments: { code: `return (await callTool("list_directory", { path: ${JSON.stringify(app)} })).text` } }, undefined, { timeout: 60_000 }),
    );
    expect(script.isError).not.toBe(true);
    await b.callTool({ name: 'read_text_file', arguments: { path: path.join(project.root, 'nope.txt') } });

    const files = (await readdir(recordings)).filter((name) => name.endsWith('.jsonl')).sort();
    expect(files).toHaveLength(2);
    const sessions = await Promise.all(files.map((name) => linesOf(path.join(recordings, name))));
    // The first: the direct call, the script's call, and the script's run itself.
    const first = sessions.find((lines) => lines.length === 3)!;
    const second = sessions.find((lines) => lines.length === 1)!;
    expect(first[0]).toMatchObject({ v: 1, seq: 0, tool: 'read_text_file', step: 'read_text_file', args: { path: readme }, ok: true, hasSideEffects: false, output: await readFile(readme, 'utf8') });
    expect(first[0]).not.toHaveProperty('door');
    expect(typeof first[0].time).toBe('string');
    expect(typeof first[0].ms).toBe('number');
    expect(first[1]).toMatchObject({ seq: 1, tool: 'list_directory', door: 'run_js', step: 'call 1', args: { path: app }, ok: true });
    expect(String(first[1].output)).toContain('[FILE] cache.js');
    // The run: its record names it, and the call made inside it carries its id.
    expect(first[2]).toMatchObject({ seq: 2, tool: 'run_js', isRun: true, ok: true, args: { code: expect.stringContaining('list_directory') } });
    expect(typeof first[2].run).toBe('string');
    expect(first[1].run).toBe(first[2].run);
    expect(first[0]).not.toHaveProperty('run');
    // The sessions are apart: each file holds one scope.
    expect(first[0].scope).toBe(first[1].scope);
    expect(second[0].scope).not.toBe(first[0].scope);
    expect(second[0]).toMatchObject({ seq: 0, tool: 'read_text_file', ok: false });
    expect(second[0]).not.toHaveProperty('output');
  }, 60_000);
});
