/**
 * Recognising a door's pause: the result that carries the token to resume the run with and the
 * calls it waits on, typed, so a host reads them without a cast.
 */
import type { ToolExecutionResult, ToolResultDetails } from '../tool.js';
import type { PendingCall } from './journal.js';

/**
 * The `details` of a door's pause.
 *
 * @category The gate
 */
export interface ApprovalPendingDetails extends ToolResultDetails {
  /** Always `approval_pending`. */
  code: 'approval_pending';
  /** The token for `resumeRun`. */
  resume: string;
  /** The calls the run waits on, in the order `resumeRun`'s decisions answer them. */
  pending: PendingCall[];
  /** When the token lapses, in milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * A door's result when its run paused for a person: `success: false` with
 * {@link ApprovalPendingDetails}.
 *
 * @category The gate
 */
export type ApprovalPendingResult<O = unknown> = ToolExecutionResult<O> & { success: false; details: ApprovalPendingDetails };

/**
 * Whether `result` is a door's pause, with its token and the calls it waits on.
 *
 * A pause is `approval_pending` with a token in `details.resume`, the waiting calls in
 * `details.pending` and `details.expiresAt`; the guard types all three.
 *
 * A call inside a paused run answers `approval_pending` too, without a token (the door's result
 * has it): that is not a pause to resume, and this answers `false` for it.
 *
 * @example
 * ```ts
 * const result = await door.execute(input, context);
 * if (isApprovalPending(result)) {
 *   await saveForLater(result.details.resume, result.details.pending);
 * }
 * ```
 *
 * @category The gate
 */
export function isApprovalPending<O>(result: ToolExecutionResult<O>): result is ApprovalPendingResult<O> {
  const details = result?.details;
  return result.success === false && details?.code === 'approval_pending' && typeof details.resume === 'string' && Array.isArray(details.pending) && typeof details.expiresAt === 'number';
}
