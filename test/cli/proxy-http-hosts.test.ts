/**
 * The proxy over Streamable HTTP as a user runs it (`toolweave mcp --http ...`): the Host and Origin
 * a request may carry, however the loopback address it listens on is spelled, and the hosts
 * `--allowed-hosts` lets in.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_SERVER, processesLeft } from '../mcp/helpers.js';
import { ACCEPT, INITIALIZE } from '../mcp/http-requests.js';
import { proxyOverHttp, type HttpProxy } from './proxy-process.js';

const TOKEN = 'letmein';
// The upstream's last argument is a folder of this file's own, so the processes it leaves can be found.
let marker: string;
const upstream = () => ['--', process.execPath, '--import', 'tsx', PLAIN_SERVER, '--tools', 'echo', marker];

let proxy: HttpProxy | undefined;
beforeAll(async () => {
  marker = await mkdtemp(path.join(os.tmpdir(), 'toolweave-hosts-'));
});
afterAll(async () => {
  expect(await processesLeft(marker)).toEqual([]);
  await rm(marker, { recursive: true, force: true });
});
afterEach(async () => {
  if (proxy) expect(await proxy.stop()).toBe(0);
  proxy = undefined;
});

/** A raw initialize POST with the token and `headers`: its status and body. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT, Authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

describe('toolweave mcp --http: Host and Origin', () => {
  it('listening on [::ffff:127.0.0.1]: refuses Host evil.example and Origin http://evil.example, lets in --allowed-hosts', async (context) => {
    if (!(await canListen('::ffff:127.0.0.1'))) return context.skip('this machine cannot listen on ::ffff:127.0.0.1');
    proxy = await proxyOverHttp(['--allowed-hosts', 'mcp.example', ...upstream()], { TOOLWEAVE_MCP_TOKEN: TOKEN }, '[::ffff:127.0.0.1]:0');
    const { port } = new URL(proxy.url);

    const evilHost = await post(proxy.url, { Host: 'evil.example' });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body)).toMatchObject({ error: { message: expect.stringContaining('evil.example') } });
    const evilOrigin = await post(proxy.url, { Origin: 'http://evil.example' });
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Origin http://evil.example is not allowed') }, id: null });
    expect((await post(proxy.url, { Host: `mcp.example:${port}` })).status).toBe(200);
    expect((await post(proxy.url, { Host: `mcp.example:${port}`, Origin: 'https://mcp.example' })).status).toBe(200);

    const client = new Client({ name: 'toolweave-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await client.close();
  }, 60_000);

  it('listening on 0:0:0:0:0:0:0:1 with no token: refuses Host evil.example', async (context) => {
    if (!(await canListen('::1'))) return context.skip('this machine cannot listen on IPv6 ::1');
    proxy = await proxyOverHttp(upstream(), {}, '[0:0:0:0:0:0:0:1]:0');
    expect((await post(proxy.url, { Host: 'evil.example', Authorization: '' })).status).toBe(403);
    expect(proxy.url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/u);
    expect((await post(proxy.url, { Authorization: '' })).status).toBe(200);
  }, 60_000);
});
