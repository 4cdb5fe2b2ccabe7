/**
 * The transports a server is served on: stdio (the client starts the server as a child process)
 * and Streamable HTTP (the SDK's), one MCP server per HTTP session.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** A server being served; `close` stops it. */
export interface Serving {
  /** Stop serving and close every connection. */
  close(): Promise<void>;
}

/**
 * Serve `server` on stdio: MCP messages on stdin and stdout (stdout carries nothing else: log to
 * stderr). Streams other than the process's own may be given, for tests.
 */
export async function serveStdio(server: Server, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<Serving> {
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  await server.connect(transport);
  return { close: () => server.close() };
}

/** Options of {@link serveHttp}. */
export interface HttpServeOptions {
  /** The address to listen on (default `127.0.0.1`: this machine only). */
  host?: string;
  /** The port (default 0: any free port; read it from {@link HttpServing.port}). */
  port?: number;
  /** The path of the MCP endpoint (default `/mcp`). */
  path?: string;
  /** A bearer token every request must carry (`Authorization: Bearer <token>`); default none. */
  token?: string;
  /**
   * The host names a request's `Host` header may name (DNS-rebinding protection). Default: the
   * loopback names when listening on a loopback address; give a list when listening elsewhere.
   */
  allowedHosts?: string[];
  /** The most sessions at once (default 64); a new one past it is refused with 503. */
  maxSessions?: number;
}

/** A Streamable HTTP endpoint being served. */
export interface HttpServing extends Serving {
  /** The endpoint's URL. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** How many sessions are open. */
  sessions(): number;
}

/** What {@link serveHttp} is told about a new session. */
export interface HttpSessionInfo {
  /** The session's id (the `mcp-session-id` header). */
  sessionId: string;
}

/** The part of an Express app used here (the SDK's app; express ships no types of its own). */
interface McpApp {
  use(handler: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): void;
  all(path: string, handler: (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void): void;
  listen(port: number, host: string, ready: (error?: Error) => void): HttpServer;
}

const DEFAULT_MAX_SESSIONS = 64;

/**
 * Serve MCP over Streamable HTTP (the SDK's transport), a fresh server from `newServer` for each
 * session. It listens on 127.0.0.1 unless told otherwise, keeps the SDK's DNS-rebinding protection
 * on (the `Host` header must name an allowed host), and checks a bearer token when given one.
 *
 * @example
 * ```ts
 * const http = await serveHttp(() => createMcpServer(tools, { gate }), { port: 8808, token: process.env.MCP_TOKEN });
 * console.error(`serving on ${http.url}`);
 * ```
 */
export async function serveHttp(newServer: (session: HttpSessionInfo) => Server, options: HttpServeOptions = {}): Promise<HttpServing> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const maxSessions = options.maxSessions && options.maxSessions > 0 ? options.maxSessions : DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const app = createMcpExpressApp({ host, ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) }) as unknown as McpApp;
  if (options.token) app.use(bearerCheck(options.token));

  app.all(endpoint, (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, `The server failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  async function handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, -32001, `No session ${sessionId}: it ended or never existed; initialize a new one.`);
      return session.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return jsonRpcError(res, 400, -32000, 'No mcp-session-id header: send initialize first.');
    }
    if (sessions.size >= maxSessions) return jsonRpcError(res, 503, -32000, `This server holds ${maxSessions} sessions, its most; close one and try again.`);
    const id = randomUUID();
    const server = newServer({ sessionId: id });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (opened) => void sessions.set(opened, { transport, server }),
    });
    transport.onclose = () => {
      sessions.delete(id);
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  const listener = await new Promise<HttpServer>((resolve, reject) => {
    const started: HttpServer = app.listen(options.port ?? 0, host, (error?: Error) => (error ? reject(error) : resolve(started)));
    started.once('error', reject);
  });
  const port = (listener.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${endpoint}`,
    port,
    sessions: () => sessions.size,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async ({ transport, server }) => {
        await transport.close();
        await server.close();
      }));
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      });
    },
  };
}

/** Refuse every request without `Authorization: Bearer <token>` (compared in constant time). */
function bearerCheck(token: string): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const expected = Buffer.from(`Bearer ${token}`);
  return (req, res, next) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    jsonRpcError(res, 401, -32000, 'Unauthorized: send Authorization: Bearer <token>.');
  };
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
