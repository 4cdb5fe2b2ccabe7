/**
 * Continue a run that paused for a person's approval: replay the door with its original input,
 * answering every call up to the pause from the journal, and the calls it waited on by the
 * person's decisions.
 */
import { failure } from '../codes.js';
import { gateSettings } from '../gate/settings.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { gateOfDoor } from '../runs/door-registry.js';
import { scopeIn } from '../runs/pausing.js';
import { sendResumption } from './door-run.js';
import type { RunCallRecord } from '../runs/journal.js';
import { RunRecord, journalUnavailable } from '../runs/run-record.js';
import { readToken } from '../runs/run-token.js';
import { holdLease } from '../runs/lease-heartbeat.js';

/**
 * A person's answer to one call a paused run waits on.
 *
 * @category The gate
 */
export type ResumeDecision = { approved: true } | { approved: false; reason?: string };

/**
 * Continue the run that `door` paused with `token` (its `details.resume`).
 *
 * `decisions` answer its
 * `details.pending`, one each, in order. The door runs its original input again from the start:
 * every call up to the pause is answered from the run's journal without running again, an
 * approved call then runs once, a refused one resolves as the refusal it would have been, and the
 * run goes on. The result is the run's result as if it had never paused, or `approval_pending`
 * again (with a new token) at the next call that waits.
 *
 * `context` is the context of the call that resumes (the same scope as the one that paused: a
 * token from another session or user reads as unknown). Never throws: an unknown or expired
 * token, decisions that do not fit, a run that now makes another call at a recorded place
 * (`replay_diverged`) or a journal out of reach are results with their codes.
 *
 * @example
 * ```ts
 * const result = await door.execute(input, context);
 * if (isApprovalPending(result)) {
 *   await saveForLater(result.details.resume, result.details.pending);
 *   // ... later, once the person has answered:
 *   const resumed = await resumeRun(door, token, [{ approved: true }], context);
 * }
 * ```
 *
 * @category The gate
 */
export async function resumeRun(door: ITool, token: string, decisions: readonly ResumeDecision[], context: ToolExecutionContext = {}): Promise<ToolExecutionResult> {
  try {
    return await resume(door, token, decisions, context ?? {});
  } catch (error) {
    return failure('step_threw', `resumeRun failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function resume(door: ITool, token: string, decisions: readonly ResumeDecision[], context: ToolExecutionContext): Promise<ToolExecutionResult> {
  const read = readToken(token);
  const gate = gateOfDoor(door);
  const pausing = gate ? gateSettings(gate)?.pausing : undefined;
  if (read === undefined || pausing === undefined) return unknownToken(pausing === undefined ? 'this tool is not a door whose gate asks for approvals' : 'it is not a token this library issued');
  const { journal } = pausing;
  let run;
  try {
    run = await journal.load(read.runId);
  } catch (error) {
    return journalUnavailable(error);
  }
  if (run === undefined) {
    if (read.expiresAt <= Date.now()) return expiredToken();
    return unknownToken('no run waits under it (already resumed, ended, evicted, or never issued here)');
  }
  // Another scope's run reads exactly as one never issued.
  if (run.scope !== scopeIn(pausing, context) || run.pause !== read.pause || run.door !== door.name) {
    return unknownToken('no run waits under it (already resumed, ended, evicted, or never issued here)');
  }
  if (run.expiresAt <= Date.now()) {
    await journal.remove(run.runId).catch(() => undefined);
    return expiredToken();
  }
  const problem = decisionsProblem(decisions, run.pending.length);
  if (problem) {
    return failure('resume_decisions_invalid', `The decisions do not answer the ${run.pending.length} pending call(s): ${problem}.`, { pending: run.pending.length });
  }
  let records: readonly RunCallRecord[];
  const leaseUntil = Math.floor(Date.now() + pausing.leaseMs);
  try {
    if (!(await journal.claim(run.runId, run.pause, leaseUntil))) {
      // A live resumption renews its claim; one whose process stopped lets it lapse within a lease.
      return failure('resume_busy', `Another resumption of this run is still running; wait for its result, or try again in ${pausing.leaseMs} ms if the process running it stopped.`, { retryAfterMs: pausing.leaseMs });
    }
    records = await journal.records(run.runId);
  } catch (error) {
    return journalUnavailable(error);
  }
  const byPosition = new Map(records.map((record) => [record.position, record]));
  const decided = new Map(run.pending.map((call, i) => [call.position, decisionOf(decisions[i])]));
  const lease = holdLease(journal, run.runId, run.pause, pausing.leaseMs, leaseUntil);
  const replay = {
    run,
    records: byPosition,
    decisions: decided,
    get leaseUntil() {
      return lease.until;
    },
  };
  const record = new RunRecord(pausing, run.runId, run.pause + 1, run.door, run.input, run.scope, replay);
  // The door finds the record in this `sessionData` (a copy of the caller's), however a wrapper
  // copies it on the way; it has no frame, so the door starts the run as a call from outside, as
  // the first run did.
  const sessionData: Record<string | symbol, unknown> = { ...context.sessionData };
  sendResumption(sessionData, record);
  try {
    return await door.execute(run.input as Record<string, unknown>, { ...context, sessionData });
  } finally {
    lease.stop();
  }
}

/** What is wrong with `decisions` as answers to `count` pending calls, or `undefined`. */
function decisionsProblem(decisions: unknown, count: number): string | undefined {
  if (!Array.isArray(decisions)) return 'decisions must be an array';
  if (decisions.length !== count) return `got ${decisions.length} decision(s), one per pending call is needed`;
  for (let i = 0; i < decisions.length; i++) {
    const d: unknown = decisions[i];
    if (typeof d !== 'object' || d === null) return `decisions[${i}] is not an object`;
    const { approved, reason } = d as { approved?: unknown; reason?: unknown };
    if (approved !== true && approved !== false) return `decisions[${i}].approved must be true or false`;
    if (reason !== undefined && typeof reason !== 'string') return `decisions[${i}].reason must be text`;
  }
  return undefined;
}

function decisionOf(decision: ResumeDecision): { approved: boolean; reason?: string } {
  return decision.approved ? { approved: true } : { approved: false, ...(typeof decision.reason === 'string' ? { reason: decision.reason } : {}) };
}

function unknownToken(why: string): ToolExecutionResult {
  return failure('resume_token_unknown', `Unknown resume token: ${why}.`);
}

function expiredToken(): ToolExecutionResult {
  return failure('resume_token_expired', 'The resume token has expired: the paused run was dropped. Start the work again.');
}
