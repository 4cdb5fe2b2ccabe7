/**
 * One `tools/call` to an upstream MCP server, as a toolweave result whatever happens: the context's
 * abort cancels the request (the SDK sends `notifications/cancelled`), a per-call timeout bounds it,
 * and every error becomes a coded failure. Nothing throws.
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failure, type ToolExecutionContext, type ToolExecutionResult } from '../index.js';
import { describeIssues, isInvalidResult } from './invalid-result.js';
import type { McpClient } from './mcp-client.js';
import { UpstreamFault } from './upstream-fault.js';
import { fromCallToolResult } from './upstream-result.js';

/** Which upstream tool a call goes to. */
export interface UpstreamTarget {
  /** The connected client. */
  client: McpClient;
  /** The server's name, for messages. */
  server: string;
  /** The tool's name on that server (without any prefix). */
  tool: string;
  /** The per-call timeout in milliseconds. */
  timeoutMs: number;
}

/** Call the tool and turn its answer, or its error, into a result. */
export async function callUpstream(target: UpstreamTarget, args: Record<string, unknown>, context: ToolExecutionContext): Promise<ToolExecutionResult> {
  const outer = context?.signal;
  if (outer?.aborted) return aborted(target);
  // A signal of the call's own, so the listener the SDK adds (and never removes) is on it. It
  // follows the context's signal without a listener there: a script's calls in flight together
  // would otherwise put one each on the same signal, and past 10 Node warns of a leak.
  const signal = outer ? AbortSignal.any([outer]) : undefined;
  try {
    const answer = (await target.client.callTool({ name: target.tool, arguments: args ?? {} }, undefined, {
      ...(signal ? { signal } : {}),
      timeout: target.timeoutMs,
    })) as CallToolResult;
    return fromCallToolResult(answer, target.tool, target.server);
  } catch (error) {
    return outer?.aborted ? aborted(target) : callFailure(error, target);
  }
}

function aborted(target: UpstreamTarget): ToolExecutionResult {
  return failure('step_aborted', `The call to "${target.tool}" on MCP server "${target.server}" was cancelled; the server was told.`, { server: target.server, tool: target.tool });
}

/**
 * An error from the SDK as a coded failure naming the server and the tool. `method` is the request
 * the error answers (`tools/call`, or `tools/list` when the tools are read).
 */
export function callFailure(error: unknown, target: Pick<UpstreamTarget, 'server' | 'tool' | 'timeoutMs'>, method = 'tools/call'): ToolExecutionResult {
  const about = { server: target.server, tool: target.tool };
  const message = error instanceof Error ? error.message : String(error);
  const answer = `The answer of MCP server "${target.server}" to "${target.tool}"`;
  if (error instanceof McpError) {
    // Found by the proxy's own reading of the server's stdout, not said by the server.
    if (error.data instanceof UpstreamFault) {
      return failure(error.data.code, `${answer} ${error.data.problem}; that call failed, and the server's other calls go on.`, { ...about, ...error.data.details });
    }
    if (error.code === ErrorCode.ConnectionClosed) return unavailable(target, message);
    if (error.code === ErrorCode.RequestTimeout) {
      return failure('step_timeout', `MCP server "${target.server}" did not answer "${target.tool}" within ${target.timeoutMs} ms; the request was cancelled.`, { ...about, mcpCode: error.code });
    }
    return failure('upstream_error', `MCP server "${target.server}" refused "${target.tool}": ${message}`, { ...about, mcpCode: error.code });
  }
  if (isInvalidResult(error)) return failure('upstream_error', `${answer} was not a valid ${method} result: ${describeIssues(error.issues)}.`, about);
  if (message === 'Not connected') return unavailable(target, 'not connected');
  return failure('upstream_error', `The call to "${target.tool}" on MCP server "${target.server}" failed: ${message}`, about);
}

function unavailable(target: Pick<UpstreamTarget, 'server' | 'tool'>, why: string): ToolExecutionResult {
  return failure('upstream_unavailable', `MCP server "${target.server}" is not connected (${why}); the call to "${target.tool}" got no answer.`, { server: target.server, tool: target.tool });
}
