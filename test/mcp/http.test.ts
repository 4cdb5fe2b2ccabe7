/**
 * serveHttp: Streamable HTTP on 127.0.0.1 and a free port, one MCP server per session, the SDK's
 * DNS-rebinding protection on, and a bearer token when given one.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createStepGate } from '../../src/index.js';
import { createMcpServer, elicitationApprovals, serveHttp, type HttpServing } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';

const echo = tool('echo', (args, context) => `${String(args.text)} (${String(context.sessionId)})`);

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close();
  serving = undefined;
});

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'toolweave-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}));
  return client;
}

/** A raw POST with the Host header a browser under DNS rebinding would send. */
function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
  });
}

describe('serveHttp', () => {
  it('serves each session its own server, scoped by the session id', async () => {
    serving = await serveHttp(() => createMcpServer([echo]));
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/u);
    const [a, b] = [await connect(serving.url), await connect(serving.url)];
    expect(serving.sessions()).toBe(2);
    const textOf = async (client: Client) => ((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content as { text: string }[])[0].text;
    const [ta, tb] = [await textOf(a), await textOf(b)];
    expect(ta).toMatch(/^hi \([0-9a-f-]{36}\)$/u);
    expect(tb).not.toBe(ta);
    await a.close();
    await b.close();
  });

  it('refuses a Host header that is not this machine (DNS rebinding)', async () => {
    serving = await serveHttp(() => createMcpServer([echo]));
    expect(await postWithHost(serving.url, 'evil.example')).toBe(403);
    expect(await postWithHost(serving.url, `127.0.0.1:${serving.port}`)).toBe(200);
  });

  it('with a token, refuses a client without it', async () => {
    serving = await serveHttp(() => createMcpServer([echo]), { token: 's3cret' });
    await expect(connect(serving.url)).rejects.toThrow(/401|Unauthorized/u);
    await expect(connect(serving.url, 'wrong!')).rejects.toThrow(/401|Unauthorized/u);
    const client = await connect(serving.url, 's3cret');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await client.close();
  });

  it('refuses a session past maxSessions, and a request for a session that does not exist', async () => {
    serving = await serveHttp(() => createMcpServer([echo]), { maxSessions: 1 });
    const first = await connect(serving.url);
    await expect(connect(serving.url)).rejects.toThrow(/503|most/u);
    const res = await fetch(serving.url, { method: 'POST', headers: { 'mcp-session-id': 'nope', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(404);
    await first.close();
  });

  it('closes a session whose client went away without ending it, once idle', async () => {
    serving = await serveHttp(() => createMcpServer([echo]), { idleTimeoutMs: 200 });
    const client = await connect(serving.url);
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Still connected: its event stream is open, so the session is not idle.
    expect(serving.sessions()).toBe(1);
    await client.close();
    const end = Date.now() + 5000;
    while (serving.sessions() > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serving.sessions()).toBe(0);
  });

  it('asks the person of the session whose call it is, over the call’s own stream', async () => {
    const written: string[] = [];
    const write = tool('write', (args) => void written.push(String(args.text)), { hasSideEffects: true });
    serving = await serveHttp(() => {
      let server: Server | undefined;
      const gate = createStepGate({ resolve: (name) => (name === 'write' ? write : undefined), approvals: elicitationApprovals(() => server!) });
      server = createMcpServer([write], { gate });
      return server;
    });
    const asked: string[] = [];
    const client = new Client({ name: 'toolweave-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    const other = await connect(serving.url);
    const answer = await client.callTool({ name: 'write', arguments: { text: 'over http' } });
    expect(answer.isError).toBeUndefined();
    expect(written).toEqual(['over http']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Tool: write');
    // The other session's client cannot be asked: its call is refused, and nothing reaches the first.
    const refused = await other.callTool({ name: 'write', arguments: { text: 'no' } });
    expect(refused.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(written).toEqual(['over http']);
    await client.close();
    await other.close();
  });
});
