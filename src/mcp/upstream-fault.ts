/**
 * Why the proxy's reading of a server's stdout ended a request: an answer too large to read, or one
 * that is not valid JSON-RPC. The transport that found it answers the request with an error whose
 * `data` is an {@link UpstreamFault}, and the call's failure takes its code and words from there. An
 * object, not JSON: no server can write one, so no server can pass its own error off as one.
 */

/** The code a fault fails its call with. */
export type UpstreamFaultCode = 'upstream_result_too_large' | 'upstream_error';

/** What went wrong with one answer. */
export class UpstreamFault {
  /**
   * @param code - the call's failure code
   * @param problem - what was wrong with the answer, to follow "The answer of MCP server "x" to "tool" "
   * @param details - facts for the failure's details (sizes, limits)
   */
  constructor(
    readonly code: UpstreamFaultCode,
    readonly problem: string,
    readonly details: Record<string, unknown> = {},
  ) {}
}
