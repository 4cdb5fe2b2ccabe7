/**
 * run_js through the proxy over Streamable HTTP, where sessions are strangers: a session whose
 * scripts can only be stopped with their thread, again and again, takes no answer of the other
 * sessions with it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../mcp/helpers.js';
import { unrulyProxyOverHttp, type UnrulyProxy } from './proxy-process.js';

let served: UnrulyProxy;
let clients: Client[];
beforeAll(async () => {
  // One thread, a short slice: every honest run shares the hostile session's thread at first.
  served = await unrulyProxyOverHttp('toolweave-tenants-', { script: { timeoutMs: 3000, pool: { threads: 1, sliceMs: 100 } } }, [], 4);
  clients = served.clients;
}, 60_000);
afterAll(async () => served?.stop());

async function runJs(client: Client, code: string) {
  const parsed = CallToolResultSchema.parse(await client.callTool({ name: 'run_js', arguments: { code } }, undefined, { timeout: 60_000 }));
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text };
}

describe('run_js over HTTP, a hostile session beside honest ones', () => {
  it("answers every honest session's runs while the hostile one's are stopped with their threads, again and again", async () => {
    const [hostile, ...honest] = clients;
    const unstoppable = "for (;;) 'x'.repeat(4e6).length";
    const answers = honest.flatMap((client, c) => [0, 1].map((k) => runJs(client, `await callTool("sleep", { ms: 800 }); return "${c}-${k}"`)));
    await sleep(100);
    const stopped: string[] = [];
    for (let i = 0; i < 3; i++) stopped.push((await runJs(hostile, unstoppable)).text);
    for (const text of stopped) expect(text).toMatch(/script_timeout|computed for|ran past/);
    expect((await Promise.all(answers)).map((a) => a.text)).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0', '2-1']);
    // Later honest runs, while the hostile session is held back, answer too.
    const later = await Promise.all(honest.map((client, c) => runJs(client, `return "${c}"`)));
    expect(later.map((a) => a.text)).toEqual(['0', '1', '2']);
  }, 60_000);
});
