/**
 * Approvals put to the person at the MCP client: each side-effecting call is an elicitation
 * request (the tool, the step, the arguments), and only an explicit yes approves it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { approvalText, type ApprovalAction, type ApprovalDecision, type ApprovalProvider, type ToolExecutionContext } from '../index.js';
import { openRequest, REQUEST_ID_KEY } from './open-requests.js';
import { spendRequestIdZero } from './request-id-zero.js';

/**
 * Options of {@link elicitationApprovals}.
 *
 * @category MCP: approvals
 */
export interface ElicitationApprovalsOptions {
  /** How long the person has to answer, in milliseconds (default 5 minutes); then the call is refused. */
  timeoutMs?: number;
}

/**
 * How long a person has to answer by default.
 *
 * @category MCP: approvals
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** What the person is asked to fill in: one yes or no. */
const APPROVAL_SCHEMA = {
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Run this call', description: 'Yes runs it once; no refuses it.' } },
  required: ['approve'],
};

/**
 * An approval hook that asks the person at an MCP client, by elicitation, before each
 * side-effecting call.
 *
 * An approval hook (for `createStepGate({ approvals })`) that asks the client connected to `server`
 * (or to the server a function returns, since the gate is made before the server that uses it)
 * with an MCP elicitation request, once per side-effecting call, however deeply nested. The
 * question is {@link approvalMessage}: the values a model chose (a step's name, a script's
 * intention, the arguments) are shown as such, quoted and escaped on lines of their own. A client
 * that does not support elicitation gets every such call refused (`approval_rejected`, saying why);
 * declining, dismissing or not answering in time refuses it too.
 *
 * Each question goes with the `tools/call` request whose call asks it (the context's
 * `mcpRequestId`, set by {@link createMcpServer}): over Streamable HTTP it travels on that
 * request's stream, and once that request has ended no one is asked. It carries the call's abort
 * signal: when the call is gone (cancelled, or its run ended, a script's time limit say) the
 * question is withdrawn from the client with `notifications/cancelled`.
 *
 * @example
 * ```ts
 * let server: Server;
 * const gate = createStepGate({ resolve, approvals: elicitationApprovals(() => server) });
 * server = createMcpServer(tools, { gate });
 * ```
 *
 * @category MCP: approvals
 */
export function elicitationApprovals(server: Server | (() => Server), options: ElicitationApprovalsOptions = {}): ApprovalProvider {
  const serverNow = typeof server === 'function' ? server : () => server;
  const timeout = options.timeoutMs && options.timeoutMs > 0 ? options.timeoutMs : DEFAULT_APPROVAL_TIMEOUT_MS;
  return {
    async requestApproval(action: ApprovalAction, context?: ToolExecutionContext): Promise<ApprovalDecision> {
      const server = serverNow();
      if (!server.getClientCapabilities()?.elicitation) {
        return {
          approved: false,
          reason: `The call to "${action.toolName}" needs a person's approval, and this MCP client does not support elicitation, so it cannot be asked; the call is refused. Use a client that supports elicitation, or list the tool with approvals off.`,
        };
      }
      // The question goes with the request of the call that asks it (over Streamable HTTP, on that
      // request's stream), and only while that request is open.
      const requestId: unknown = context?.[REQUEST_ID_KEY];
      const related = requestId === undefined ? undefined : openRequest(server, requestId);
      if (requestId !== undefined && !related) {
        return { approved: false, reason: `The request that made the call to "${action.toolName}" has ended, so no one was asked; the call is refused.` };
      }
      // Withdrawn from the client (notifications/cancelled) as soon as the call is gone.
      const signal = context?.signal instanceof AbortSignal ? context.signal : related?.signal;
      // A question sent with the id 0 could not be withdrawn from most clients.
      spendRequestIdZero(server, related?.requestId);
      try {
        const answer = await server.elicitInput(
          { mode: 'form', message: approvalMessage(action), requestedSchema: APPROVAL_SCHEMA },
          { timeout, ...(signal ? { signal } : {}), ...(related ? { relatedRequestId: related.requestId } : {}) },
        );
        if (answer.action === 'accept' && answer.content?.approve === true) return { approved: true };
        const how = answer.action === 'accept' ? 'answered no to' : answer.action === 'decline' ? 'declined' : 'dismissed';
        return { approved: false, reason: `The person at the client ${how} the call to "${action.toolName}".` };
      } catch (error) {
        if (signal?.aborted) return { approved: false, reason: `The call to "${action.toolName}" ended before the person answered; the question was withdrawn.` };
        return { approved: false, reason: `The approval for "${action.toolName}" could not be asked or was not answered: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

/**
 * The question an elicitation asks: {@link approvalText} of `action`.
 *
 * Every line starts with the
 * screen's own label, and what a model chose is shown as a quoted, escaped one-line string after
 * its mark, so it can neither look like a field nor hide one.
 *
 * @category MCP: approvals
 */
export function approvalMessage(action: ApprovalAction): string {
  return approvalText(action);
}
