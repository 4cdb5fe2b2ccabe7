/**
 * Raw Streamable HTTP requests for the serveHttp tests: a valid initialize, and requests that must
 * never become a session, each with the status it is answered.
 */

/** A valid initialize request. */
export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
/** The Accept header a Streamable HTTP client must send. */
export const ACCEPT = 'application/json, text/event-stream';

/** A request that is refused, and its status. */
export interface RefusedRequest {
  name: string;
  status: number;
  init: RequestInit;
}

const post = (headers: Record<string, string>, body: string): RequestInit => ({ method: 'POST', headers, body });
const json = { 'Content-Type': 'application/json', Accept: ACCEPT };

/** Requests that never become a session. */
export const REFUSED: readonly RefusedRequest[] = [
  { name: 'Accept without text/event-stream', status: 406, init: post({ ...json, Accept: 'application/json' }, JSON.stringify(INITIALIZE)) },
  { name: 'Accept without application/json', status: 406, init: post({ ...json, Accept: 'text/event-stream' }, JSON.stringify(INITIALIZE)) },
  { name: 'no Accept', status: 406, init: post({ ...json, Accept: '' }, JSON.stringify(INITIALIZE)) },
  { name: 'a Content-Type that is not JSON', status: 400, init: post({ ...json, 'Content-Type': 'text/plain' }, JSON.stringify(INITIALIZE)) },
  { name: 'malformed JSON', status: 400, init: post(json, '{"jsonrpc":') },
  { name: 'a body past the limit', status: 413, init: post(json, JSON.stringify({ ...INITIALIZE, pad: 'x'.repeat(200_000) })) },
  { name: 'a request other than initialize, without a session', status: 400, init: post(json, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })) },
  { name: 'an initialize without its params', status: 400, init: post(json, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })) },
  { name: 'an initialize in a batch', status: 400, init: post(json, JSON.stringify([INITIALIZE])) },
  { name: 'an initialize for a session that does not exist', status: 404, init: post({ ...json, 'mcp-session-id': 'gone' }, JSON.stringify(INITIALIZE)) },
  { name: 'GET without a session', status: 400, init: { method: 'GET', headers: { Accept: 'text/event-stream' } } },
  { name: 'DELETE without a session', status: 400, init: { method: 'DELETE', headers: { Accept: ACCEPT } } },
];
