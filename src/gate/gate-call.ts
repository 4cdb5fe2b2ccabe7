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
  // The fields are declared, and set in the constructor, rather than initialised as class fields:
  // under ES2022 semantics each initialiser is a property definition, which costs about 10 ns more
  // per object in Node 20, and these records are made per call.
  /** The watchdog's deadline tick (see {@link Watch}). */
  declare expiresAt: number;
  /** The watchdog's list position; -1 while not listed (see {@link Watch}). */
  declare index: number;
  /** Whether the watchdog holds a deadline for the call in flight (see {@link Watch}). */
  declare armed: boolean;
  /**
   * Set by a caller that reuses the record call after call: it stays on the watchdog's list
   * between calls, and the caller releases it (`release` in the watchdog) when it is done.
   */
  declare reused: boolean;
  /** The instance that was checked: the one the gate runs. */
  declare tool: ITool;
  /** The step's name (or position), for approvals and error details. */
  declare step: string;
  /** Fail with `step_timeout` when the tool does not settle within this many milliseconds. */
  declare timeoutMs: number | undefined;
  /** Set by the gate: whether the watchdog holds this call, so the tool and the deadline race. */
  declare timed: boolean;
  /** The gate's callback for the tool's promise, made on first use and kept for the next call. */
  declare onResult: ((result: unknown) => void) | undefined;
  /** The gate's callback for the tool's rejection, made on first use and kept for the next call. */
  declare onError: ((error: unknown) => void) | undefined;

  /** A record not yet aimed at a call. */
  constructor() {
    this.expiresAt = 0;
    this.index = -1;
    this.armed = false;
    this.reused = false;
    this.tool = NO_TOOL;
    this.step = '';
    this.timeoutMs = undefined;
    this.timed = false;
    this.onResult = undefined;
    this.onError = undefined;
  }

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

/** What an unaimed record holds as its tool, so the field always has one shape. */
const NO_TOOL: ITool = {
  id: '',
  name: '',
  displayName: '',
  description: 'no call yet',
  inputSchema: {},
  hasSideEffects: false,
  execute: () => Promise.resolve({ success: false, error: 'no call yet' }),
};

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

/**
 * Where a gate made by `createStepGate` without host checks (no permission manager, no approvals)
 * keeps its record form with nothing in front of it: the abort check, then the tool. Absent on a
 * gate with host checks, so an engine that takes this shortcut can never skip them.
 */
export const DIRECT_CALL: unique symbol = Symbol('toolweave.directCall');

/** The record form of `gate.call` when the gate has no host checks to make, else `undefined`. */
export function directCallOf(call: unknown): StartCall | undefined {
  return typeof call === 'function' ? (call as { [DIRECT_CALL]?: StartCall })[DIRECT_CALL] : undefined;
}
