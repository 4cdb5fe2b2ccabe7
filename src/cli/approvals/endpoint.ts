/**
 * The person's side of `approvals: queue`: a small HTTP endpoint on 127.0.0.1 that lists the
 * queued approvals (`GET /approvals`) and answers one (`POST /approvals/<id>` with
 * `{ "decision": "approve" | "refuse", "reason"? }`). Every request carries the queue's random
 * bearer token, kept in a file only its user can read (see `endpoint-file.ts`), so another local
 * user cannot list or answer. Bodies, connections and waits are bounded.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApprovalQueue } from './queue.js';

/** The most bytes of a POST body; past it the request is refused with 413. */
export const MAX_ANSWER_BODY_BYTES = 4096;
/** The most characters of a refusal's reason. */
export const MAX_REASON_CHARS = 1000;
/** The most connections open at once. */
const MAX_CONNECTIONS = 32;
/** How long a request may take to arrive whole. */
const REQUEST_TIMEOUT_MS = 10_000;

/** A running endpoint. */
export interface ApprovalsEndpoint {
  /** `http://127.0.0.1:<port>/approvals`. */
  url: string;
  /** The bearer token every request must carry. */
  token: string;
  close(): Promise<void>;
}

/** Serve `queue` on 127.0.0.1:`port` (0: a free port). */
export async function serveApprovals(queue: ApprovalQueue, port: number): Promise<ApprovalsEndpoint> {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((request, response) => {
    void handle(request, response).catch(() => reply(response, 500, { error: 'the answer could not be read', code: 'internal' }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      request.resume();
      return reply(response, 401, { error: 'this endpoint needs the bearer token of the approvals queue (in the endpoint file the proxy wrote)', code: 'unauthorized' });
    }
    const route = new URL(request.url ?? '/', 'http://127.0.0.1').pathname.split('/').filter(Boolean);
    if (route[0] !== 'approvals' || route.length > 2) {
      request.resume();
      return reply(response, 404, { error: 'GET /approvals lists the approvals; POST /approvals/<id> answers one', code: 'not_found' });
    }
    if (route.length === 1) {
      request.resume();
      if (request.method !== 'GET') return reply(response, 405, { error: 'GET lists the approvals', code: 'method_not_allowed' });
      return reply(response, 200, { approvals: queue.list() });
    }
    if (request.method !== 'POST') {
      request.resume();
      return reply(response, 405, { error: 'POST answers an approval', code: 'method_not_allowed' });
    }
    const body = await readBody(request);
    if (body === undefined) {
      response.once('finish', () => request.destroy());
      return reply(response, 413, { error: `the body is larger than ${MAX_ANSWER_BODY_BYTES} bytes`, code: 'too_large' }, { connection: 'close' });
    }
    const decision = decisionOf(body);
    if (typeof decision === 'string') return reply(response, 400, { error: decision, code: 'bad_answer' });
    const id = decodeURIComponent(route[1]);
    const outcome = queue.answer(id, decision);
    if ('unknown' in outcome) return reply(response, 404, { error: `no approval "${id}" waits (answered and resumed, expired, its session ended, or never asked)`, code: 'approval_unknown' });
    if ('alreadyAnswered' in outcome) return reply(response, 409, { error: `"${id}" was answered already; an answer is not changed`, code: 'already_answered', ids: outcome.alreadyAnswered });
    return reply(response, 200, { answered: outcome.answered, decision: decision.approved ? 'approve' : 'refuse' });
  }

  server.maxConnections = MAX_CONNECTIONS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/approvals`,
    token,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The body as text, or `undefined` once it passes the bound (the rest is not read). */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BODY_BYTES) {
        // The rest is not read: the answer says so and the connection closes.
        request.removeAllListeners('data');
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(undefined));
  });
}

/** `{ decision: 'approve' | 'refuse', reason? }` as a decision, or what is wrong with it. */
function decisionOf(body: string): { approved: true } | { approved: false; reason?: string } | string {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return 'the body must be JSON: { "decision": "approve" } or { "decision": "refuse", "reason": "..." }';
  }
  if (typeof data !== 'object' || data === null) return 'the body must be an object';
  const { decision, reason } = data as { decision?: unknown; reason?: unknown };
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_CHARS)) return `reason must be text of at most ${MAX_REASON_CHARS} characters`;
  if (decision === 'approve') return { approved: true };
  if (decision === 'refuse') return { approved: false, ...(reason ? { reason } : {}) };
  return 'decision must be "approve" or "refuse"';
}

function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}
