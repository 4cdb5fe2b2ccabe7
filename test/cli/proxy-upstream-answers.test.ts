/**
 * What an upstream server writes on its stdout, however wrong, costs only the call it answers: a
 * very large answer comes back as a preview (or, past the limit, fails that call with
 * `upstream_result_too_large`), an answer cut short fails its call at once with `upstream_error`,
 * an answer of the wrong shape says in one line what was wrong, and text that is not the protocol is
 * passed over. Meanwhile another session's call in flight succeeds and the server is never
 * restarted; an answer cut before its id, with several calls in flight, fails none of them. The proxy runs as a user runs it (the bin, over Streamable HTTP, two sessions), in
 * front of a real server process.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OBSERVATION_STORE_BYTES } from '../../src/index.js';
import { processesLeft, REPO, sleep, UNRULY_SERVER } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

/** Each call's timeout: far longer than any answer here should take. */
const CALL_TIMEOUT_MS = 20_000;
/** The timeout of the server named "short". */
const SHORT_TIMEOUT_MS = 3_000;

let dir: string;
let proxy: HttpProxy;
let first: Client;
let second: Client;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-answers-'));
  const file = path.join(dir, 'unruly.json');
  const server = { command: process.execPath, args: ['--import', 'tsx', UNRULY_SERVER, dir], cwd: REPO, callTimeoutMs: CALL_TIMEOUT_MS };
  // A second one with a short timeout, for a call that can only end at its timeout.
  const short = { ...server, prefix: true, callTimeoutMs: SHORT_TIMEOUT_MS };
  await writeFile(file, JSON.stringify({ servers: { unruly: server, short } }));
  proxy = await proxyOverHttp(['--config', file]);
  first = await httpClient(proxy.url);
  second = await httpClient(proxy.url);
}, 60_000);
afterAll(async () => {
  await first?.close();
  await second?.close();
  await proxy?.stop();
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const started = Date.now();
  const parsed = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text, ms: Date.now() - started };
}

/** The proxy's stderr once it matches `pattern` (its log reaches this process on a pipe of its own, a moment after the answer), at most 5 s. */
async function logged(pattern: RegExp): Promise<string> {
  for (let turn = 0; turn < 50 && !pattern.test(proxy.stderr()); turn++) await sleep(100);
  return proxy.stderr();
}

/** The server's process id: the same before and after means it was not restarted. */
const serverPid = async () => (await call(first, 'pid')).text;

/** Call `name` on the second session while the first has a slow call (`slowTool`, 1.5 s) in flight; both answers. */
async function besideSlowCall(name: string, args: Record<string, unknown>, slowTool = 'sleep') {
  const slow = call(first, slowTool, { ms: 1500 });
  // The slow call is under way before the other starts.
  await sleep(200);
  const answer = await call(second, name, args);
  return { answer, slow: await slow };
}

describe('a very large answer', () => {
  it('of 12 MiB (past the 10 MB the SDK client allows) comes back as a preview with an obs_ id; the other session’s call succeeds; no restart', async () => {
    const pid = await serverPid();
    const { answer, slow } = await besideSlowCall('big', { mb: 12 });
    expect(answer.isError).toBe(false);
    expect(answer.text).toMatch(/^line 0000001 x+\n/u);
    expect(answer.text).toMatch(/\[obs_[a-z0-9]+: 196608 lines, 12(\.0)? MB; showing 1-\d+; get_observation/u);
    expect(answer.text.length).toBeLessThan(4096);
    expect(slow).toMatchObject({ isError: false, text: 'slept 1500 ms' });
    expect(await serverPid()).toBe(pid);
    expect(proxy.stderr()).not.toContain('restarting');
  }, 60_000);

  it('of 5 MiB comes back as a preview too', async () => {
    const answer = await call(second, 'big', { mb: 5 });
    expect(answer.isError).toBe(false);
    expect(answer.text).toMatch(/\[obs_[a-z0-9]+: 81920 lines, 5(\.0)? MB; showing 1-\d+; get_observation/u);
  }, 60_000);

  it('past the observation store’s limit fails that call alone with upstream_result_too_large, read while streaming; no restart', async () => {
    const limitMb = DEFAULT_OBSERVATION_STORE_BYTES / 1024 / 1024;
    const pid = await serverPid();
    const { answer, slow } = await besideSlowCall('huge_raw', { mb: limitMb + 8 });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^error upstream_result_too_large: The answer of MCP server "unruly" to "huge_raw" is \d+ bytes, over the 33554432 bytes one answer may have/u);
    expect(answer.ms).toBeLessThan(CALL_TIMEOUT_MS);
    const tooLarge = /toolweave: error upstream_result_too_large: server "unruly": the answer to request \d+ \(tools\/call\) is \d+ bytes/u;
    expect(await logged(tooLarge)).toMatch(tooLarge);
    expect(slow).toMatchObject({ isError: false, text: 'slept 1500 ms' });
    expect(await serverPid()).toBe(pid);
    expect(proxy.stderr()).not.toContain('restarting');
  }, 60_000);
});

describe('an answer cut short', () => {
  it('with its id readable fails its call at once with upstream_error; the other session’s call succeeds', async () => {
    const pid = await serverPid();
    const { answer, slow } = await besideSlowCall('truncated', { idFirst: true });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^error upstream_error: The answer of MCP server "unruly" to "truncated" is not valid JSON/u);
    expect(answer.ms).toBeLessThan(2000);
    expect(slow).toMatchObject({ isError: false, text: 'slept 1500 ms' });
    expect(await serverPid()).toBe(pid);
  }, 60_000);

  it('cut before its id, while it is the only request in flight, fails it at once too', async () => {
    const answer = await call(second, 'truncated', { idFirst: false });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^error upstream_error: The answer of MCP server "unruly" to "truncated" is not valid JSON/u);
    expect(answer.ms).toBeLessThan(2000);
    expect((await call(first, 'echo', { text: 'still here' })).text).toBe('still here');
  }, 60_000);

  it('cut before its id, while another call is in flight: which call it answered cannot be told, so it fails none; it ends at its timeout', async () => {
    const { answer, slow } = await besideSlowCall('short__truncated', { idFirst: false }, 'short__sleep');
    expect(answer.text).toMatch(/^error step_timeout: MCP server "short" did not answer "truncated" within 3000 ms/u);
    expect(answer.ms).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 100);
    expect(slow).toMatchObject({ isError: false, text: 'slept 1500 ms' });
  }, 60_000);
});

describe('an answer of the wrong shape', () => {
  it('says in one line what was wrong: content not an array', async () => {
    const answer = await call(second, 'bad_shape');
    expect(answer).toMatchObject({ isError: true });
    expect(answer.text).toBe('error upstream_error: The answer of MCP server "unruly" to "bad_shape" was not a valid tools/call result: content must be an array.');
  }, 30_000);

  it('says in one line what was wrong: a text block without its text', async () => {
    const answer = await call(second, 'bad_block');
    expect(answer.text).toBe('error upstream_error: The answer of MCP server "unruly" to "bad_block" was not a valid tools/call result: content[0].text must be a string.');
  }, 30_000);
});

describe('text on stdout that is not the protocol', () => {
  it('is passed over: the call it came with still gets its answer, and the line is logged', async () => {
    expect(await call(second, 'chatter')).toMatchObject({ isError: false, text: 'said hello' });
    expect(await logged(/hello from stdout/u)).toMatch(/toolweave: error upstream_error: server "unruly": passed over a line on stdout that is not valid JSON \(.*\), matched to no request in flight: "unruly server: hello from stdout"/u);
  }, 30_000);
});
