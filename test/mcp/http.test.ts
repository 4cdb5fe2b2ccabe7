/**
 * serveHttp: Streamable HTTP on 127.0.0.1 and a free port, one MCP server per session, the SDK's
 * DNS-rebinding protection on, and a bearer token when given one.
 */
import { request } from 'node:http';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createStepGate } from '../../src/index.js';
import { createMcpServer, elicitationApprovals, serveHttp, type HttpServing } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';
import { ACCEPT, INITIALIZE, REFUSED } from './http-requests.js';

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

/** A `newServer` that counts the servers it made and those not yet closed. */
function countedServers(make: () => Server = () => createMcpServer([echo])) {
  const counts = { made: 0, live: 0 };
  const newServer = (): Server => {
    const server = make();
    counts.made++;
    counts.live++;
    let closed = false;
    const gone = () => {
      if (!closed) counts.live--;
      closed = true;
    };
    // Closed either way: its transport closed (onclose), or close() called on a server never connected.
    const onclose = server.onclose;
    server.onclose = () => {
      gone();
      onclose?.();
    };
    const close = server.close.bind(server);
    server.close = async () => {
      gone();
      await close();
    };
    return server;
  };
  return { counts, newServer };
}

/** A raw initialize POST with the given headers (a Host a browser under DNS rebinding would send, an Origin): its status and body. */
function postWith(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

async function postWithHost(url: string, host: string): Promise<number> {
  return (await postWith(url, { Host: host })).status;
}

/** Whether this machine can listen on `host` (IPv6 may be off). */
function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
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

  it('makes no server for a request that does not become a session, and keeps no place for it', async () => {
    const { counts, newServer } = countedServers();
    serving = await serveHttp(newServer, { maxSessions: 1 });
    for (const { name, status, init } of REFUSED) {
      const res = await fetch(serving.url, init);
      const body = await res.text();
      expect({ name, status: res.status }).toEqual({ name, status });
      // Every refusal is a JSON-RPC error, never an HTML page with a stack trace.
      expect(JSON.parse(body), name).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) }, id: null });
      expect({ name, live: counts.live, sessions: serving.sessions() }).toEqual({ name, live: 0, sessions: 0 });
    }
    // The one place is still free.
    const client = await connect(serving.url);
    expect(serving.sessions()).toBe(1);
    await client.close();
    await serving.close();
    expect(counts.live).toBe(0);
  });

  it('closes at once a server whose initialize fails after it was made', async () => {
    let failWith: 'throw' | 'connect' | undefined = 'throw';
    const { counts, newServer } = countedServers(() => {
      if (failWith === 'throw') throw new Error('no server today');
      const server = createMcpServer([echo]);
      if (failWith === 'connect') server.connect = () => Promise.reject(new Error('cannot connect'));
      return server;
    });
    serving = await serveHttp(newServer, { maxSessions: 1 });
    const post = () => fetch(serving!.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT }, body: JSON.stringify(INITIALIZE) });
    // The SDK's transport answers a failure of its session callback itself: a 400 whose data says why.
    for (const [kind, message] of [['throw', 'no server today'], ['connect', 'cannot connect']] as const) {
      failWith = kind;
      const failed = await post();
      expect({ kind, status: failed.status }).toEqual({ kind, status: 400 });
      expect(await failed.json()).toMatchObject({ jsonrpc: '2.0', error: { data: expect.stringContaining(message) } });
    }
    expect({ made: counts.made, live: counts.live, sessions: serving.sessions() }).toEqual({ made: 1, live: 0, sessions: 0 });
    failWith = undefined;
    const client = await connect(serving.url);
    expect(serving.sessions()).toBe(1);
    await client.close();
  });

  it('answers a transport that throws with a JSON-RPC error, and keeps no server and no place', async () => {
    const { counts, newServer } = countedServers();
    serving = await serveHttp(newServer, { maxSessions: 1 });
    const thrown = vi.spyOn(StreamableHTTPServerTransport.prototype, 'handleRequest').mockRejectedValueOnce(new Error('the transport broke'));
    try {
      const res = await fetch(serving.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT }, body: JSON.stringify(INITIALIZE) });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: expect.stringContaining('the transport broke') }, id: null });
      expect(thrown).toHaveBeenCalledTimes(1);
    } finally {
      thrown.mockRestore();
    }
    expect({ made: counts.made, live: counts.live, sessions: serving.sessions() }).toEqual({ made: 0, live: 0, sessions: 0 });
    const client = await connect(serving.url);
    expect(serving.sessions()).toBe(1);
    await client.close();
  });

  it('closes a session whose client went away before the answer to its initialize came whole', async () => {
    // The server answers initialize only after a while, so the client can go first.
    const { counts, newServer } = countedServers(() => {
      const server = createMcpServer([echo]);
      const connect = server.connect.bind(server);
      server.connect = async (transport) => {
        const send = transport.send.bind(transport);
        transport.send = async (message, options) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return send(message, options);
        };
        return connect(transport);
      };
      return server;
    });
    serving = await serveHttp(newServer, { maxSessions: 1 });
    const gone = new AbortController();
    const answer = fetch(serving.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT }, body: JSON.stringify(INITIALIZE), signal: gone.signal });
    const end = Date.now() + 5000;
    while (serving.sessions() === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(serving.sessions()).toBe(1);
    gone.abort();
    await answer.then((res) => res.body?.cancel()).catch(() => undefined);
    while ((serving.sessions() > 0 || counts.live > 0) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    expect({ sessions: serving.sessions(), live: counts.live }).toEqual({ sessions: 0, live: 0 });
  });

  it('holds at most maxSessions servers however many initialize requests arrive at once', async () => {
    const { counts, newServer } = countedServers();
    serving = await serveHttp(newServer, { maxSessions: 2 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await fetch(serving!.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT }, body: JSON.stringify(INITIALIZE) });
        await res.text();
        return res.status;
      }),
    );
    expect(answers.filter((status) => status === 200)).toHaveLength(2);
    expect(answers.filter((status) => status === 503)).toHaveLength(18);
    expect({ sessions: serving.sessions(), live: counts.live }).toEqual({ sessions: 2, live: 2 });
    await serving.close();
    expect(counts.live).toBe(0);
  });

  it('makes nothing for a client that goes away while sending its initialize', async () => {
    const { counts, newServer } = countedServers();
    serving = await serveHttp(newServer);
    const body = JSON.stringify(INITIALIZE);
    await new Promise<void>((resolve) => {
      const req = request(serving!.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT, 'Content-Length': String(body.length) } });
      req.on('error', () => resolve());
      req.write(body.slice(0, 20), () => setTimeout(() => req.destroy(), 100));
      req.on('close', () => resolve());
    });
    // Give the server a moment to see the end of the connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ made: counts.made, live: counts.live, sessions: serving.sessions() }).toEqual({ made: 0, live: 0, sessions: 0 });
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

describe('serveHttp: the Host and Origin a request may carry', () => {
  // Every spelling of a loopback address serveHttp may be told to listen on, with the address it binds.
  const LOOPBACK = [
    { host: '127.0.0.1', binds: '127.0.0.1' },
    { host: 'localhost', binds: 'localhost' },
    { host: '127.0.0.2', binds: '127.0.0.2' },
    { host: '::1', binds: '::1' },
    { host: '[::1]', binds: '::1' },
    { host: '0:0:0:0:0:0:0:1', binds: '::1' },
    { host: '::ffff:127.0.0.1', binds: '::ffff:127.0.0.1' },
    { host: '::ffff:7f00:1', binds: '::ffff:127.0.0.1' },
  ];
  for (const { host, binds } of LOOPBACK) {
    it(`listening on ${host}: refuses Host evil.example, makes no session, and serves its own URL`, async (context) => {
      if (!(await canListen(binds))) return context.skip(`this machine cannot listen on ${binds}`);
      const { counts, newServer } = countedServers();
      serving = await serveHttp(newServer, { host });
      for (const evil of ['evil.example', `evil.example:${serving.port}`]) {
        const refused = await postWith(serving.url, { Host: evil });
        expect(refused.status).toBe(403);
        expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('evil.example') } });
      }
      expect({ made: counts.made, sessions: serving.sessions() }).toEqual({ made: 0, sessions: 0 });
      const client = await connect(serving.url);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
      await client.close();
    });
  }

  it('listening on every address: still refuses a Host that is not this machine', async () => {
    const { counts, newServer } = countedServers();
    serving = await serveHttp(newServer, { host: '0.0.0.0' });
    const url = `http://127.0.0.1:${serving.port}/mcp`;
    expect(await postWithHost(url, 'evil.example')).toBe(403);
    expect(counts.made).toBe(0);
    expect(await postWithHost(url, `localhost:${serving.port}`)).toBe(200);
  });

  it('lets in the hosts named in allowedHosts, besides this machine', async () => {
    serving = await serveHttp(() => createMcpServer([echo]), { allowedHosts: ['MCP.example', '192.0.2.7', '2001:db8:0:0:0:0:0:7'] });
    expect(await postWithHost(serving.url, `mcp.example:${serving.port}`)).toBe(200);
    expect(await postWithHost(serving.url, 'Mcp.Example')).toBe(200);
    expect(await postWithHost(serving.url, '192.0.2.7')).toBe(200);
    expect(await postWithHost(serving.url, `[2001:db8::7]:${serving.port}`)).toBe(200);
    expect(await postWithHost(serving.url, `127.0.0.1:${serving.port}`)).toBe(200);
    expect(await postWithHost(serving.url, 'evil.example')).toBe(403);
    expect(await postWithHost(serving.url, 'other.mcp.example')).toBe(403);
  });

  it('refuses a request from a web page of another origin, even with a good token', async () => {
    serving = await serveHttp(() => createMcpServer([echo]), { token: 's3cret', allowedHosts: ['mcp.example'], allowedOrigins: ['https://app.example:8443'] });
    const withToken = (origin: string) => postWith(serving!.url, { Authorization: 'Bearer s3cret', Origin: origin });
    for (const origin of ['http://evil.example', 'https://evil.example:8443', 'null', 'not a url', 'https://app.example', 'http://mcp.example.evil.example']) {
      const refused = await withToken(origin);
      expect({ origin, status: refused.status }).toEqual({ origin, status: 403 });
      expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining(`Origin ${origin} is not allowed`) }, id: null });
    }
    expect(serving.sessions()).toBe(0);
    // Pages of this machine, of an allowed host, and the origins named, on any port they are given.
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1', 'http://[::1]:3000', 'https://mcp.example', 'https://app.example:8443']) {
      expect({ origin, status: (await withToken(origin)).status }).toEqual({ origin, status: 200 });
    }
    // A client that is not a browser sends no Origin.
    const client = await connect(serving.url, 's3cret');
    await client.close();
  });

  it('refuses a malformed allowedHosts or allowedOrigins entry when it starts', async () => {
    await expect(serveHttp(() => createMcpServer([echo]), { allowedHosts: ['bad host'] })).rejects.toThrow(/allowedHosts: "bad host" is not a host name/u);
    await expect(serveHttp(() => createMcpServer([echo]), { allowedHosts: ['http://mcp.example'] })).rejects.toThrow(/allowedHosts: "http:\/\/mcp.example" is not a host name/u);
    await expect(serveHttp(() => createMcpServer([echo]), { allowedOrigins: ['app.example'] })).rejects.toThrow(/allowedOrigins: "app.example" is not an origin/u);
  });
});
