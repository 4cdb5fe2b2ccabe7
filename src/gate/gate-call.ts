/**
 * One call through the gate as one record: what the gate needs to settle it (the tool, the step,
 * the timeout), the watchdog's bookkeeping, the gate's callbacks for the tool's promise, and where
 * the result goes. On a chain of quick tools the closures made per call (one for the deadline,
 * two for the promise, one for the caller) cost more than the checks themselves. A record replaces
 * them, and a caller that makes one call at a time (a sequence) reuses one record call after call.
 */
import { failure } from '../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { Watch } from './watchdog.js';

/**
 * A call through the gate. The caller aims it ({@link GateCall.aim}) and says where the result
 * goes ({@link GateCall.deliver}); the gate fills and reads the rest. A record may be aimed again
 * once its previous call has delivered, never while a call is in flight.
 */
export abstract class GateCall implements Watch {
  /** The watchdog's deadline tick (see {@link Watch}). */
  expiresAt = 0;
  /** The watchdog's list position; -1 while not watched (see {@link Watch}). */
  index = -1;
  /** The instance that was checked: the one the gate runs. */
  tool!: ITool;
  /** The step's name (or position), for approvals and error details. */
  step = '';
  /** Fail with `step_timeout` when the tool does not settle within this many milliseconds. */
  timeoutMs: number | undefined = undefined;
  /** Set by the gate: whether the watchdog holds this call, so the tool and the deadline race. */
  timed = false;
  /** The gate's callback for the tool's promise, made on first use and kept for the next call. */
  onResult: ((result: unknown) => void) | undefined = undefined;
  /** The gate's callback for the tool's rejection, made on first use and kept for the next call. */
  onError: ((error: unknown) => void) | undefined = undefined;

  /** Aim the record at a call. */
  aim(tool: ITool, step: string, timeoutMs: number | undefined): void {
    this.tool = tool;
    this.step = step;
    this.timeoutMs = timeoutMs;
  }

  /** Receives the call's result when it was not known at once; called exactly once per call. */
  abstract deliver(result: ToolExecutionResult): void;

  /** The watchdog's deadline passed before the tool settled: the call ends with `step_timeout`. */
  expire(): void {
    const tool = this.tool;
    this.deliver(
      failure('step_timeout', `Tool "${tool.name}" did not finish within ${this.timeoutMs} ms.`, {
        tool: tool.name,
        step: this.step,
        timeoutMs: this.timeoutMs,
      }),
    );
  }
}

/**
 * The record form of a gate's call, with the same checks in the same order as `StepGate.call`:
 * the result when it is known at once (a refusal, a throw), otherwise `undefined` and
 * `call.deliver` is called exactly once.
 */
export type StartCall = (
  call: GateCall,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
) => ToolExecutionResult | undefined;

/**
 * Where a gate made by `createStepGate` keeps its record form: on its `call` function, so a host
 * that wraps the gate and replaces `call` is never bypassed (the replacement has no such key).
 */
export const START_CALL: unique symbol = Symbol('toolweave.startCall');

/** The record form of `gate.call`, when `call` is the one `createStepGate` made. */
export function startCallOf(call: unknown): StartCall | undefined {
  return typeof call === 'function' ? (call as { [START_CALL]?: StartCall })[START_CALL] : undefined;
}
