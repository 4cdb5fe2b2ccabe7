/**
 * run_js through the proxy as a user runs it (the bin, over Streamable HTTP, several sessions, in
 * front of a real server process): each session is a scope of the sandbox pool the config sets,
 * so one session's scripts cannot take every place, and `--max-calls` bounds a run's calls.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesLeft, REPO, sleep, UNRULY_SERVER } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

let dir: string;
let proxy: HttpProxy;
const clients: Client[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-scripts-'));
  const file = path.join(dir, 'proxy.json');
  const server = { command: process.execPath, args: ['--import', 'tsx', UNRULY_SERVER, dir], cwd: REPO, tools: { sleep: { hasSideEffects: false } } };
  // Two places in all, one for a session: a session's second script waits for its first.
  await writeFile(file, JSON.stringify({ servers: { unruly: server }, script: { pool: { maxRuns: 2, maxRunsPerScope: 1, maxQueuedRuns: 8 } } }));
  proxy = await proxyOverHttp(['--config', file, '--max-calls', '3']);
  for (let i = 0; i < 2; i++) clients.push(await httpClient(proxy.url));
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await proxy?.stop();
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

async function runJs(client: Client, code: string) {
  const started = Date.now();
  const parsed = CallToolResultSchema.parse(await client.callTool({ name: 'run_js', arguments: { code } }, undefined, { timeout: 60_000 }));
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text, ms: Date.now() - started, done: Date.now() };
}

describe('run_js over HTTP', () => {
  it("gives each session its share: a session whose place is taken waits; another session's script runs at once", async () => {
    const [busy, other] = clients;
    const slow = 'return (await callTool("sleep", { ms: 1500 })).text';
    // The busy session sends three scripts: one runs, two wait for its one place.
    const held = [runJs(busy, slow), runJs(busy, slow), runJs(busy, slow)];
    await sleep(300);
    const quick = await runJs(other, 'return (await callTool("sleep", { ms: 10 })).text');
    expect(quick).toMatchObject({ isError: false, text: 'slept 10 ms' });
    const answers = await Promise.all(held);
    expect(answers.map((a) => a.text)).toEqual(['slept 1500 ms', 'slept 1500 ms', 'slept 1500 ms']);
    // The other session did not wait behind the busy one's queue: it was done before the busy one's first script.
    expect(quick.done).toBeLessThan(Math.min(...answers.map((a) => a.done)));
    // The busy session's scripts ran one after another, within its share.
    expect(Math.max(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(4000);
  }, 30_000);

  it('makes at most --max-calls calls a run, and says when an answer left calls out', async () => {
    const result = await runJs(clients[1], 'const out = []; for (let i = 0; i < 5; i++) { const r = await callTool("sleep", { ms: 1 }); out.push(r.error ? r.error.code : "ok"); } return out.join(",")');
    expect(result.isError).toBe(false);
    expect(result.text).toBe('ok,ok,ok,script_too_many_calls,script_too_many_calls\n[run_js: 2 calls past the limit of 3 a run were not made (script_too_many_calls); this answer may be incomplete]');
  });
});
