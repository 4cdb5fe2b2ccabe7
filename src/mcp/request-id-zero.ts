/**
 * A server's first request to its client has the JSON-RPC id 0, and clients built on the
 * TypeScript SDK 1.x ignore `notifications/cancelled` for id 0 (they test the id for truth): a
 * question sent with that id could never be withdrawn, and the client would keep asking the
 * person about a call that is over. So before a server's first question, a ping takes id 0.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';

/** How long the ping's answer is waited for in the background; nothing waits on it. */
const PING_TIMEOUT_MS = 10_000;

const spent = new WeakSet<Server>();

/**
 * Make sure `server`'s next request does not take id 0: the first time, send a ping (with the
 * request it relates to, so it travels on that request's stream). The id is taken as the ping is
 * sent, so nothing waits for its answer, and a client that does not answer changes nothing.
 */
export function spendRequestIdZero(server: Server, relatedRequestId: string | number | undefined): void {
  if (spent.has(server)) return;
  spent.add(server);
  server
    .request({ method: 'ping' }, EmptyResultSchema, { timeout: PING_TIMEOUT_MS, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) })
    .catch(() => undefined);
}
