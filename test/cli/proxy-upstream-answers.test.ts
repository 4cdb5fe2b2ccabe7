/**
 * What an upstream server writes on its stdout, however wrong, costs only the call it answers: an
 * answer of the wrong shape says in one line what was wrong. The proxy runs as a user runs it (the
 * bin, over Streamable HTTP, two sessions), in front of a real server process.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesLeft, REPO, UNRULY_SERVER } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, type HttpProxy } from './proxy-process.js';

/** Each call's timeout: far longer than any answer here should take. */
const CALL_TIMEOUT_MS = 20_000;

let dir: string;
let proxy: HttpProxy;
let first: Client;
let second: Client;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-answers-'));
  const file = path.join(dir, 'unruly.json');
  const server = { command: process.execPath, args: ['--import', 'tsx', UNRULY_SERVER, dir], cwd: REPO, callTimeoutMs: CALL_TIMEOUT_MS };
  await writeFile(file, JSON.stringify({ servers: { unruly: server } }));
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
