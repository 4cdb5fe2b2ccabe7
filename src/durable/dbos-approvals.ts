/**
 * What a door's workflow waits on when its run pauses, and how a host answers it: the workflow
 * publishes the calls it waits on as a DBOS event and waits durably (`DBOS.recv`) for one message
 * with the decisions; a host in any process reads the event and sends the message.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { failure, type PendingCall, type ResumeDecision, type ToolExecutionResult } from '../index.js';

/**
 * A pause a door's workflow waits on, as {@link pendingApproval} reads it.
 *
 * @category Durable runs
 */
export interface DbosPendingApproval {
  /** Which pause of the run this is (0 for the first): an answer goes to this pause only. */
  pause: number;
  /** The calls it waits on, in order: {@link answerApproval} takes one decision each. */
  pending: PendingCall[];
  /** When the wait ends unanswered (the run then ends with `resume_token_expired`), in milliseconds since the epoch. */
  expiresAt: number;
}

/** The event under which a door's workflow publishes the pause it waits on (`null` once answered or ended). */
export const PENDING_EVENT = 'toolweave.pending';

/** The topic of the message that answers pause `pause`. */
export function decisionsTopic(pause: number): string {
  return `toolweave.decisions.${pause}`;
}

/** What is wrong with `decisions` as answers to `count` pending calls (`undefined` for any count), or `undefined`. */
export function decisionsProblem(decisions: unknown, count: number | undefined): string | undefined {
  if (!Array.isArray(decisions)) return 'decisions must be an array';
  if (count !== undefined && decisions.length !== count) return `got ${decisions.length} decision(s), one per pending call (${count}) is needed`;
  if (decisions.length > 1000) return 'more decisions than any pause waits on';
  for (let i = 0; i < decisions.length; i++) {
    const d: unknown = decisions[i];
    if (typeof d !== 'object' || d === null) return `decisions[${i}] is not an object`;
    const { approved, reason } = d as { approved?: unknown; reason?: unknown };
    if (approved !== true && approved !== false) return `decisions[${i}].approved must be true or false`;
    if (reason !== undefined && typeof reason !== 'string') return `decisions[${i}].reason must be text`;
  }
  return undefined;
}

/** The engine could not be reached (not launched, its database down). */
export function engineUnavailable(error: unknown): ToolExecutionResult<never> {
  return failure('journal_unavailable', `DBOS could not be reached: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * The pause the door's workflow `workflowID` waits on now.
 *
 * The output lists the calls a person is asked
 * about. Fails with `approval_not_waiting` when the workflow waits on none (it has not paused, its
 * pause was answered, it ended, or no such workflow exists), `journal_unavailable` when DBOS
 * cannot be reached. Call it from any process where DBOS is launched on the same database.
 *
 * @category Durable runs
 */
export async function pendingApproval(workflowID: string): Promise<ToolExecutionResult<DbosPendingApproval>> {
  let waiting: DbosPendingApproval | null;
  try {
    waiting = await DBOS.getEvent<DbosPendingApproval>(workflowID, PENDING_EVENT, { timeoutSeconds: 0 });
  } catch (error) {
    return engineUnavailable(error);
  }
  if (waiting === null || typeof waiting !== 'object') return notWaiting(workflowID);
  return { success: true, output: waiting };
}

/**
 * Answer the pause the door's workflow `workflowID` waits on, with one decision per pending call.
 *
 * The
 * answer is a durable message (`DBOS.send`, sent once per pause): the workflow takes it whenever
 * it next waits, in this process or one launched after a crash, and runs on as `resumeRun` would.
 * The first answer to a pause is the one taken. The output names the pause answered. Fails with
 * `resume_decisions_invalid` (not one decision per pending call), `approval_not_waiting` (nothing
 * waits) or `journal_unavailable` (DBOS cannot be reached); never throws.
 *
 * @example
 * ```ts
 * const waiting = await pendingApproval('order-42');
 * if (waiting.success) await answerApproval('order-42', waiting.output.pending.map(() => ({ approved: true })));
 * ```
 *
 * @category Durable runs
 */
export async function answerApproval(workflowID: string, decisions: readonly ResumeDecision[]): Promise<ToolExecutionResult<{ pause: number }>> {
  const shape = decisionsProblem(decisions, undefined);
  if (shape !== undefined) return invalid(shape, undefined);
  const waiting = await pendingApproval(workflowID);
  if (!waiting.success) return waiting as ToolExecutionResult<never>;
  const { pause, pending } = waiting.output!;
  const problem = decisionsProblem(decisions, pending.length);
  if (problem !== undefined) return invalid(problem, pending.length);
  try {
    // One message per pause: the key makes a second answer to the same pause a no-op.
    await DBOS.send(workflowID, decisions.map(copyDecision), decisionsTopic(pause), `${workflowID}:toolweave.decisions.${pause}`);
  } catch (error) {
    return engineUnavailable(error);
  }
  return { success: true, output: { pause } };
}

/** Only what a decision says, so nothing else a host put on it is stored. */
function copyDecision(decision: ResumeDecision): ResumeDecision {
  return decision.approved ? { approved: true } : { approved: false, ...(typeof decision.reason === 'string' ? { reason: decision.reason } : {}) };
}

function invalid(problem: string, count: number | undefined): ToolExecutionResult<never> {
  return failure('resume_decisions_invalid', `The decisions do not answer the pending call(s): ${problem}.`, count === undefined ? {} : { pending: count });
}

function notWaiting(workflowID: string): ToolExecutionResult<never> {
  return failure(
    'approval_not_waiting',
    `Workflow "${workflowID}" waits on no approval now (it has not paused yet, its pause was answered, it ended, or it does not exist); read pendingApproval again later.`,
    { workflowID },
  );
}
