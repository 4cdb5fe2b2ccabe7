/**
 * An upstream server reached by URL (Streamable HTTP) with headers: its tools are served by the
 * proxy like a command's; a wrong token is a clear upstream_unavailable naming the server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer, serveHttp, type HttpServing } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';
import { processesLeft } from '../mcp/helpers.js';
import { proxyOverStdio } from './proxy-process.js';

let dir: string;
let upstream: HttpServing;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-url-'));
  const shout = tool('shout', (args) => String(args.text).toUpperCase());
  upstream = await serveHttp(() => createMcpServer([shout], { name: 'remote' }), { token: 'letmein' });
});
afterAll(async () => {
  await upstream.close();
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

async function proxyFor(token: string) {
  const file = path.join(dir, `url-${token}.json`);
  await writeFile(file, JSON.stringify({ servers: { remote: { url: upstream.url, headers: { Authorization: `Bearer ${token}` }, trustAnnotations: true } } }));
  return proxyOverStdio(['--config', file]);
}

describe('an upstream server by URL', () => {
  it('serves its tools, annotations trusted, and runs them in a script', async () => {
    const proxy = await proxyFor('letmein');
    try {
      const { tools } = await proxy.client.listTools();
      expect(tools.find((t) => t.name === 'shout')!.annotations).toEqual({ readOnlyHint: true });
      const answer = CallToolResultSchema.parse(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'shout', code: `return (await callTool('shout', { text: 'over http' })).text;` } }));
      expect(answer.content).toEqual([{ type: 'text', text: 'OVER HTTP' }]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('with a wrong token: upstream_unavailable naming the server, and the proxy still serves', async () => {
    const proxy = await proxyFor('wrong');
    try {
      expect(proxy.stderr()).toMatch(/toolweave: error upstream_unavailable: server "remote": could not be started: .*Unauthorized/u);
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toEqual(['run_pipeline', 'compose', 'run_js', 'get_observation']);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
