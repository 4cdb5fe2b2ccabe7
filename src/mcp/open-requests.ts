/**
 * The `tools/call` requests a server is serving now. A request the server sends the client while a
 * call runs (an elicitation to approve a step) goes with one of them: over Streamable HTTP a server
 * request travels on the stream of the client request it relates to.
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

/** The newest open request of `server` that is still live, if any. */
export function liveRequest(server: Server): OpenRequest | undefined {
  let newest: OpenRequest | undefined;
  for (const request of openRequests(server)) if (!request.signal.aborted) newest = request;
  return newest;
}
