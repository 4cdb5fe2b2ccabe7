/**
 * One call through the gate as one record: what the gate needs to settle it (the tool, the step,
 * the timeout), the watchdog's bookkeeping, the gate's callbacks for the tool's promise, the
 * budget place it holds, and where the result goes. On a chain of quick tools the closures made
 * per call (one for the deadline, two for the promise, one for the caller) cost more than the
 * checks themselves. A record replaces them, and a caller that makes one call at a time (a
 * sequence) reuses one record call after call.
 */
import { failure } from '../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { budgetRefusal, type BudgetLimits, type CallBudget, type WaitingCall } from './budget.js';
import { finishCall, retireCallbacks } from './execute-call.js';
import type { CallObservation } from './events.js';
import type { RunFrame } from './run-frame.js';
import type { Pausing } from '../runs/run-record.js';
import type { Tracer } from './tracing.js';
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
  /** The same timeout in watchdog ticks (see `ticksFor`); 0 when the call has none. */
  declare ticks: number;
  /** Set by the gate: whether the watchdog holds this call, so the tool and the deadline race. */
  declare timed: boolean;
  /** The gate's callback for the tool's promise, made on first use and kept for the next call. */
  declare onResult: ((result: unknown) => void) | undefined;
  /** The gate's callback for the tool's rejection, made on first use and kept for the next call. */
  declare onError: ((error: unknown) => void) | undefined;
  /** The budget whose in-flight place the call holds while its tool runs, if any. */
  declare slot: CallBudget | undefined;
  /**
   * The frame of the run that makes the call, when the engine knows it (it is the one the call's
   * context carries): saves looking it up in the context at every call.
   */
  declare frame: RunFrame | undefined;
  /** While the call waits for an in-flight place: what it starts with once it has one. */
  declare wait: WaitingCall | undefined;
  /** Who is told of the call in flight's start and end, when anything is (a listener, a tracer). */
  declare observed: CallObservation | undefined;

  /** A record not yet aimed at a call. */
  constructor() {
    this.expiresAt = 0;
    this.index = -1;
    this.armed = false;
    this.reused = false;
    this.tool = NO_TOOL;
    this.step = '';
    this.timeoutMs = undefined;
    this.ticks = 0;
    this.timed = false;
    this.onResult = undefined;
    this.onError = undefined;
    this.slot = undefined;
    this.frame = undefined;
    this.wait = undefined;
    this.observed = undefined;
  }

  /**
   * Aim the record at a call.
   *
   * @param tool - the instance that was checked, and is run
   * @param step - the step's name, for approvals and error details
   * @param timeoutMs - the call's timeout, if any
   * @param ticks - the same in watchdog ticks (`ticksFor(timeoutMs)`), which a caller making the
   *   same call often computes once
   */
  aim(tool: ITool, step: string, timeoutMs: number | undefined, ticks: number): void {
    this.tool = tool;
    this.step = step;
    this.timeoutMs = timeoutMs;
    this.ticks = ticks;
  }

  /** Receives the call's result when it was not known at once; called exactly once per call. */
  abstract deliver(result: ToolExecutionResult): void;

  /**
   * The watchdog's deadline passed: a call still waiting for a place ends with `budget_exceeded`,
   * a running one with `step_timeout` (its place is freed: the tool may still be running, but the
   * run no longer waits on it).
   */
  expire(): void {
    const tool = this.tool;
    const wait = this.wait;
    if (wait !== undefined) {
      // It never got a place: it leaves the queue (the budget skips it) and holds nothing.
      wait.live = false;
      this.wait = undefined;
      this.slot = undefined;
      finishCall(this, budgetRefusal('inFlight', wait.budget, `Tool "${tool.name}" waited ${this.timeoutMs} ms for a free place and did not start`));
      return;
    }
    retireCallbacks(this);
    freeSlot(this);
    finishCall(
      this,
      failure('step_timeout', `Tool "${tool.name}" did not finish within ${this.timeoutMs} ms.`, {
        tool: tool.name,
        step: this.step,
        timeoutMs: this.timeoutMs,
      }),
    );
  }
}

/** Give back the in-flight place `call` holds, if any (starting the next call waiting for one). */
export function freeSlot(call: GateCall): void {
  const budget = call.slot;
  if (budget === undefined) return;
  call.slot = undefined;
  budget.release();
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
 * The record form of a gate's call: the result when it is known at once (a refusal, a throw),
 * otherwise `undefined` and `call.deliver` is called exactly once.
 */
export type StartCall = (
  call: GateCall,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
) => ToolExecutionResult | undefined;

/**
 * What the engine may use of a gate that `createStepGate` made: its record form, its budget
 * limits, its registry version. Kept off the gate object, keyed by it: a gate object a host made (a wrapper, a spread
 * copy with its own `run`) has none, so the engine drives it through its `run` and every check
 * the host added there holds.
 */
export interface GateInternals {
  /** The record form: the host's checks, then the gate's own and the tool. */
  readonly start: StartCall;
  /** The host's registry version, when it gave one (see `StepGateOptions.version`). */
  readonly version: (() => unknown) | undefined;
  /** The journal and settings of runs that pause, when the gate has an approval hook. */
  readonly pausing: Pausing | undefined;
  /** The host's OpenTelemetry tracer, when it gave one. */
  readonly tracer: Tracer | undefined;
  /** Whether the spans carry failures' messages (see `StepGateOptions.traceMessages`). */
  readonly traceMessages: boolean;
  /** The budget limits of a call from outside that enters a door through this gate. */
  readonly limits: Readonly<BudgetLimits>;
  /** The host's own resolver, which may throw (the gate's `resolve` turns a throw into "not found"): for reporting at build time. */
  readonly lookup: (name: string) => ITool | undefined;
}

const INTERNALS = new WeakMap<object, GateInternals>();

/** Record what the engine may use of a gate `createStepGate` made (and froze). */
export function registerGate(gate: object, internals: GateInternals): void {
  INTERNALS.set(gate, internals);
}

/** What the engine may use of `gate`: `undefined` unless `createStepGate` made this very object. */
export function gateInternals(gate: object): GateInternals | undefined {
  return INTERNALS.get(gate);
}
