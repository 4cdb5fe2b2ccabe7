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
import { hostName, LOOPBACK_HOST_NAMES, NOT_A_HOST, NOT_AN_ORIGIN, originOf, parseAll } from './http-hosts.js';

/**
 * A server being served; `close` stops it.
 *
 * @category MCP: serving tools
 */
export interface Serving {
  /** Stop serving and close every connection. */
  close(): Promise<void>;
}

/**
 * Serve `server` on stdio: MCP messages on stdin and stdout (stdout carries nothing else: log to
 * stderr).
 *
 * Streams other than the process's own may be given, for tests.
 *
 * @example
 * ```ts
 * const server = createMcpServer(tools, { gate });
 * await serveStdio(server);
 * ```
 *
 * @category MCP: serving tools
 */
export async function serveStdio(server: Server, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<Serving> {
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  await server.connect(transport);
  return { close: () => server.close() };
}

/**
 * Options of {@link serveHttp}.
 *
 * @category MCP: serving tools
 */
export interface HttpServeOptions {
  /**
   * The address to listen on (default `127.0.0.1`: this machine only). An IPv6 address may be
   * written with or without brackets.
   */
  host?: string;
  /** The port (default 0: any free port; read it from {@link HttpServing.port}). */
  port?: number;
  /** The path of the MCP endpoint (default `/mcp`). */
  path?: string;
  /** A bearer token every request must carry (`Authorization: Bearer <token>`); default none. */
  token?: string;
  /**
   * Host names a request's `Host` header may give besides this machine's loopback (`localhost`,
   * `127.0.0.1`, `[::1]`, `[::ffff:127.0.0.1]`) and the address listened on, which it may always
   * give (DNS-rebinding protection; the port is not compared). A name or an IP address, with no
   * scheme and no port; an IPv6 address with or without brackets. Listening on every interface
   * (`0.0.0.0`, `::`), list the names and addresses clients reach this machine by.
   */
  allowedHosts?: string[];
  /**
   * Origins a browser's request may come from besides the pages of the allowed hosts (on any
   * port), such as `https://app.example`. A request that carries an `Origin` header naming any other
   * is refused with 403; one without it (a client that is not a browser) is not checked.
   */
  allowedOrigins?: string[];
  /** The most sessions at once (default 64); a new one past it is refused with 503. */
  maxSessions?: number;
  /**
   * How long a session may go with no request open before it is closed, in milliseconds (default
   * 10 minutes). A connected client keeps a stream open; one that went away without ending its
   * session would otherwise hold a place forever.
   */
  idleTimeoutMs?: number;
}

/**
 * A Streamable HTTP endpoint being served.
 *
 * @category MCP: serving tools
 */
export interface HttpServing extends Serving {
  /** The endpoint's URL. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** How many sessions are open. */
  sessions(): number;
}

/**
 * What {@link serveHttp} is told about a new session.
 *
 * @category MCP: serving tools
 */
export interface HttpSessionInfo {
  /** The session's id (the `mcp-session-id` header). */
  sessionId: string;
}

/** The part of an Express app used here (the SDK's app; express ships no types of its own). */
interface McpApp {
  use(handler: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): void;
  use(handler: (error: BodyError, req: IncomingMessage, res: ServerResponse, next: () => void) => void): void;
  all(path: string, handler: (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void): void;
  listen(port: number, host: string, ready: (error?: Error) => void): HttpServer;
}

const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

/** One session: its transport and server, and how many of its HTTP requests are open. */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  open: number;
  idleSince: number;
}

/**
 * Serve MCP over Streamable HTTP (the SDK's transport), a fresh server from `newServer` for each
 * session.
 *
 * It listens on 127.0.0.1 unless told otherwise; whatever the address, a request's `Host`
 * header must name this machine's loopback, the address listened on or one of `allowedHosts`
 * (DNS-rebinding protection, the SDK's check), and a browser's `Origin` must be a page of those
 * hosts or one of `allowedOrigins`; a bearer token is checked when given one.
 *
 * A server is made only once the SDK's transport has taken an initialize request as a new
 * session's first: a request it refuses makes none, and one that fails after is closed at once. At
 * most `maxSessions` are open or being opened at a time.
 *
 * @example
 * ```ts
 * const http = await serveHttp(() => createMcpServer(tools, { gate }), { port: 8808, token: process.env.MCP_TOKEN });
 * console.error(`serving on ${http.url}`);
 * ```
 *
 * @category MCP: serving tools
 */
export async function serveHttp(newServer: (session: HttpSessionInfo) => Server, options: HttpServeOptions = {}): Promise<HttpServing> {
  const host = (options.host ?? '127.0.0.1').replace(/^\[(.*)\]$/u, '$1');
  const endpoint = options.path ?? '/mcp';
  const maxSessions = options.maxSessions && options.maxSessions > 0 ? options.maxSessions : DEFAULT_MAX_SESSIONS;
  const idleTimeoutMs = options.idleTimeoutMs && options.idleTimeoutMs > 0 ? options.idleTimeoutMs : DEFAULT_IDLE_TIMEOUT_MS;
  const fail = (message: string) => new TypeError(`serveHttp: ${message}`);
  const listened = hostName(host);
  // Every address gets the Host check, not only a loopback one: listening on 0.0.0.0 is listening
  // on loopback too, and an address (as opposed to a name) is never what a rebound page sends.
  const allowedHosts = [...new Set([...LOOPBACK_HOST_NAMES, ...(listened ? [listened] : []), ...parseAll(options.allowedHosts ?? [], hostName, 'allowedHosts', NOT_A_HOST, fail)])];
  const allowedOrigins = new Set(parseAll(options.allowedOrigins ?? [], originOf, 'allowedOrigins', NOT_AN_ORIGIN, fail));
  const sessions = new Map<string, Session>();
  // Initialize requests being handled: each holds a place among maxSessions until it is a session or refused.
  let opening = 0;
  // Given a list, the SDK's app checks the Host header against it before the body is read, whatever `host` is.
  const app = createMcpExpressApp({ host, allowedHosts }) as unknown as McpApp;
  app.use(originCheck(new Set(allowedHosts), allowedOrigins));
  if (options.token) app.use(bearerCheck(options.token));

  app.all(endpoint, (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, `The server failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  app.use(bodyError);

  async function handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, -32001, `No session ${sessionId}: it ended or never existed; initialize a new one.`);
      track(session, res);
      return session.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return jsonRpcError(res, 400, -32000, 'No mcp-session-id header: send initialize first.');
    }
    if (sessions.size + opening >= maxSessions) return jsonRpcError(res, 503, -32000, `This server holds ${maxSessions} sessions, its most; close one and try again.`);
    opening++;
    let holding = true;
    const release = () => {
      if (holding) opening--;
      holding = false;
    };
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // Called once the transport has checked the request (Accept, Content-Type, one initialize)
      // and before the server reads it: a request it refuses never makes a server.
      onsessioninitialized: async (id) => {
        const server = newServer({ sessionId: id });
        // Set before connect, which keeps it: closing the transport, whenever, closes the server.
        transport.onclose = () => {
          sessions.delete(id);
          void server.close().catch(() => undefined);
        };
        await server.connect(transport);
        session = { transport, server, open: 0, idleSince: Date.now() };
        sessions.set(id, session);
        release();
        track(session, res);
        // A client gone before the answer to its initialize came whole never learns its session.
        whenClosed(res, () => {
          if (!res.writableFinished) void transport.close().catch(() => undefined);
        });
      },
    });
    try {
      await transport.handleRequest(req, res, req.body);
    } finally {
      release();
      if (!session) await transport.close().catch(() => undefined);
    }
  }

  /** Count the request open until its response closes; a session with none open is idle from then. */
  function track(session: Session, res: ServerResponse): void {
    session.open++;
    whenClosed(res, () => {
      session.open--;
      if (session.open === 0) session.idleSince = Date.now();
    });
  }

  const listener = await new Promise<HttpServer>((resolve, reject) => {
    const started: HttpServer = app.listen(options.port ?? 0, host, (error?: Error) => (error ? reject(error) : resolve(started)));
    started.once('error', reject);
  });
  // Sessions whose client went away without ending them are closed once idle long enough.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.open > 0 || now - session.idleSince < idleTimeoutMs) continue;
      sessions.delete(id);
      void session.transport.close().catch(() => undefined);
    }
  }, Math.min(Math.max(idleTimeoutMs / 4, 50), 60_000));
  sweeper.unref();
  const port = (listener.address() as AddressInfo).port;
  return {
    url: `http://${listened ?? (host.includes(':') ? `[${host}]` : host)}:${port}${endpoint}`,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweeper);
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

/** Call `then` once `res` has closed: now if it already has (its client went while it was handled). */
function whenClosed(res: ServerResponse, then: () => void): void {
  if (res.closed) then();
  else res.once('close', then);
}

/**
 * Refuse a browser's request from a page of another origin (the MCP transport's rule): its
 * `Origin` must name an allowed host, on any port, or be one of `origins`. A request without the
 * header is not a browser's, and is not checked.
 */
function originCheck(hosts: ReadonlySet<string>, origins: ReadonlySet<string>): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      // `null` (a sandboxed page, a file) and anything else that is not a URL is no allowed origin.
    }
    if (url && (hosts.has(url.hostname) || origins.has(url.origin))) return next();
    jsonRpcError(res, 403, -32000, `Origin ${origin} is not allowed: a web page may call this server only from this machine, an allowed host or an allowed origin (allowedHosts, allowedOrigins; the bin's --allowed-hosts, --allowed-origins).`);
  };
}

/** What the SDK's JSON body parser fails with. */
interface BodyError {
  status?: number;
  type?: string;
  message?: string;
}

/**
 * Answer a body the JSON parser refused (malformed, too large) with a JSON-RPC error, instead of
 * Express's default page, which shows the stack and logs it on every such request.
 */
function bodyError(error: BodyError, _req: IncomingMessage, res: ServerResponse, _next: () => void): void {
  if (res.headersSent) return void res.end();
  if (error.type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON.');
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  jsonRpcError(res, status, status === 500 ? -32603 : -32000, status === 500 ? 'The server failed to read the request.' : `The request was refused: ${error.message ?? 'it could not be read'}.`);
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
