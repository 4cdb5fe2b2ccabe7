/**
 * An upstream server that floods `notifications/tools/list_changed`: the proxy reads its tools at
 * most once at a time with at most one read waiting, and tells its clients only when the tools
 * really changed, once per change, while plain calls go on being answered. The proxy runs as a user
 * runs it (the bin, over Streamable HTTP, three sessions), in front of a real server process.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_SERVER, processesLeft, REPO, sleep, UNRULY_SERVER } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

/** Notifications per flood. */
const FLOOD = 2000;

let dir: string;
let proxy: HttpProxy;
const clients: Client[] = [];
/** Notifications each client got. */
const told = [0, 0, 0];
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-listchanged-'));
  const file = path.join(dir, 'unruly.json');
  const node = (script: string, ...args: string[]) => ({ command: process.execPath, args: ['--import', 'tsx', script, ...args, dir], cwd: REPO });
  // A second server answers the plain calls made during a flood: what they measure is the proxy.
  await writeFile(file, JSON.stringify({ servers: { unruly: node(UNRULY_SERVER), plain: node(PLAIN_SERVER, '--tools', 'stats') } }));
  proxy = await proxyOverHttp(['--config', file]);
  for (const at of told.keys()) {
    const client = await httpClient(proxy.url);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      told[at]!++;
    });
    clients.push(client);
  }
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await proxy?.stop();
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const parsed = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text };
}

const listRequests = async () => Number((await call(clients[0]!, 'list_requests')).text);

/** The upstream's tools/list count once it has stopped moving (two readings 300 ms apart agree), at most 20 s. */
async function settledListRequests(): Promise<number> {
  let last = await listRequests();
  for (let turn = 0; turn < 60; turn++) {
    await sleep(300);
    const now = await listRequests();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** Run `name` (a flood) on the first session while the second keeps calling another server's tool; those calls' longest wait. */
async function floodBesideCalls(name: string) {
  let done = false;
  const flood = call(clients[0]!, name, { count: FLOOD }).finally(() => (done = true));
  const waits: number[] = [];
  while (!done || waits.length < 5) {
    const started = Date.now();
    const stats = await call(clients[1]!, 'stats');
    waits.push(Date.now() - started);
    expect(stats).toEqual({ isError: false, text: '{"files":3,"lines":40}' });
  }
  expect(await flood).toEqual({ isError: false, text: `sent ${FLOOD}` });
  return { calls: waits.length, longest: Math.max(...waits) };
}

describe('a flood of tools/list_changed', () => {
  it(`with the tools unchanged (${FLOOD} notifications): at most 2 more tools/list upstream, no client told, another server's calls answered`, async () => {
    const before = await settledListRequests();
    told.fill(0);
    const plain = await floodBesideCalls('flood');
    const reads = (await settledListRequests()) - before;
    await sleep(500);
    expect(told).toEqual([0, 0, 0]);
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(2);
    // Reading 2,000 notices takes the proxy a moment; a read and a notice per notice stalled calls for seconds.
    expect(plain.longest).toBeLessThan(3000);
  }, 60_000);

  it(`with one real change among ${FLOOD} notifications: every client told once, and each lists the new tool`, async () => {
    const before = await settledListRequests();
    told.fill(0);
    await floodBesideCalls('grow');
    const reads = (await settledListRequests()) - before;
    await sleep(500);
    expect(told).toEqual([1, 1, 1]);
    expect(reads).toBeLessThanOrEqual(2);
    for (const client of clients) expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('extra');
  }, 60_000);
});
