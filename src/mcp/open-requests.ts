/**
 * The `tools/call` requests a server is serving now. A request the server sends the client while a
 * call runs (an elicitation to approve a step) goes with the request of that call: over Streamable
 * HTTP a server request travels on the stream of the client request it relates to.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/** One request being served. */
export interface OpenRequest {
  /** Its JSON-RPC id. */
  requestId: string | number;
  /** Fires when the client cancels it. */
  signal: AbortSignal;
}

const byServer = new WeakMap<Server, Set<OpenRequest>>();

/** The open requests of `server` (made on first use). */
export function openRequests(server: Server): Set<OpenRequest> {
  let open = byServer.get(server);
  if (!open) {
    open = new Set();
    byServer.set(server, open);
  }
  return open;
}

/**
 * The field of a call's context that names the `tools/call` request it serves (its JSON-RPC id):
 * set by the server on the context it gives each call, and carried into every nested door with
 * the rest of the context, so a question asked for a call deep inside goes with that call's request.
 */
export const REQUEST_ID_KEY = 'mcpRequestId';

/** The request of `server` with this id, while it is open and not cancelled. */
export function openRequest(server: Server, requestId: unknown): OpenRequest | undefined {
  for (const request of openRequests(server)) if (request.requestId === requestId && !request.signal.aborted) return request;
  return undefined;
}
