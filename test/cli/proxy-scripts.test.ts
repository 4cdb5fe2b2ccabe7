/**
 * run_js through the proxy as a user runs it (the bin, over Streamable HTTP, several sessions, in
 * front of a real server process): each session is a scope of the sandbox pool the config sets,
 * so one session's scripts cannot take every place, and `--max-calls` bounds a run's calls.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../mcp/helpers.js';
import { unrulyProxyOverHttp, type UnrulyProxy } from './proxy-process.js';

let served: UnrulyProxy;
let clients: Client[];
beforeAll(async () => {
  // Two places in all, one for a session: a session's second script waits for its first.
  served = await unrulyProxyOverHttp('toolweave-scripts-', { script: { pool: { maxRuns: 2, maxRunsPerScope: 1, maxQueuedRuns: 8 } } }, ['--max-calls', '3'], 2);
  clients = served.clients;
}, 60_000);
afterAll(async () => served?.stop());

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
