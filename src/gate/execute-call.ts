/**
 * The gate's own part of every call, after the host's checks: the abort check, the run's frame
 * (interactive tools under a script, the budget), then the tool, with every way it can misbehave
 * turned into a result: a throw, a rejection, a result that is not one, a getter that throws, a
 * thenable that throws or settles twice, a tool that never settles. The result is returned when
 * known at once, else delivered to `call.deliver` exactly once.
 */
import { failure } from '../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult, ToolResultDetails } from '../tool.js';
import { budgetRefusal, type CallBudget, type WaitingCall } from './budget.js';
import { freeSlot, type GateCall } from './gate-call.js';
import { observe, observedEnd, observedStart } from './events.js';
import { frameOf } from './run-frame.js';
import { unwatch, watch } from './watchdog.js';
import { messageOf } from './message-of.js';

export { messageOf };

/**
 * The abort check, the frame's checks and the tool. Runs once per call, so rare outcomes are
 * built in functions of their own, keeping it small enough for V8 to inline.
 */
export function callChecked(
  call: GateCall,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
): ToolExecutionResult | undefined {
  const tool = call.tool;
  const frame = call.frame ?? frameOf(context);
  // One check when nothing watches; the rest only when a listener or a tracer does.
  call.observed = context.onEvent === undefined && frame?.tracer === undefined ? undefined : observe(context, frame);
  const abort = signal ?? context.signal;
  if (abort?.aborted) return ended(call, aborted(call));
  if (frame !== undefined) {
    if (frame.noInteractive !== undefined && frame.refusesInteractive(tool.name, tool.interactive)) return ended(call, interactive(call));
    const budget = frame.budget;
    if (budget.calls >= budget.limits.calls) return ended(call, budgetRefusal('calls', budget, `Tool "${tool.name}" was not started`));
    budget.calls++;
    // A composition holds no place while its own calls run (they would wait on it forever).
    if (tool.composition !== true) {
      if (budget.inFlight >= budget.limits.inFlight) return waitForPlace(call, budget, args, context, abort);
      budget.inFlight++;
      call.slot = budget;
    }
  }
  return launch(call, args, context);
}

/**
 * Before a person is asked about a call: the checks that would refuse it anyway (the abort, an
 * interactive tool under a script, the budget's count of calls), so no one is asked about a call
 * that cannot run. The call is counted here, not when it starts: calls asked about at once cannot
 * all pass a budget with room for one, and a call the person refuses stays counted, so a model
 * cannot put questions to a person without end. Returns the refusal, or `undefined` with the call
 * counted; an approved call then goes on with {@link callCounted}.
 */
export function countBeforeAsking(call: GateCall, abort: AbortSignal | undefined): ToolExecutionResult | undefined {
  if (abort?.aborted) return aborted(call);
  // Only leaf calls are asked about, and the gate's start found every leaf call's frame.
  const frame = call.frame;
  if (frame === undefined) return undefined;
  const tool = call.tool;
  if (frame.noInteractive !== undefined && frame.refusesInteractive(tool.name, tool.interactive)) return interactive(call);
  const budget = frame.budget;
  if (budget.calls >= budget.limits.calls) return budgetRefusal('calls', budget, `Tool "${tool.name}" was not started`);
  budget.calls++;
  return undefined;
}

/**
 * {@link callChecked} for a call {@link countBeforeAsking} counted and a person approved: the abort
 * check (the answer may come after the run ended), a place in flight, then the tool. Only leaf
 * calls are asked about, so the call always holds a place, in the frame the gate's start found.
 * Kept apart from callChecked, which every call runs, so that one stays as small as it is.
 */
export function callCounted(
  call: GateCall,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
): ToolExecutionResult | undefined {
  const frame = call.frame;
  call.observed = context.onEvent === undefined && frame?.tracer === undefined ? undefined : observe(context, frame);
  const abort = signal ?? context.signal;
  if (abort?.aborted) return ended(call, aborted(call));
  if (frame !== undefined) {
    const budget = frame.budget;
    if (budget.inFlight >= budget.limits.inFlight) return waitForPlace(call, budget, args, context, abort);
    budget.inFlight++;
    call.slot = budget;
  }
  return launch(call, args, context);
}

/** A result known at once, after whoever watches the call (a listener, a tracer) is told. */
function ended(call: GateCall, result: ToolExecutionResult): ToolExecutionResult {
  const observed = call.observed;
  if (observed !== undefined) {
    call.observed = undefined;
    observedEnd(observed, call, result);
  }
  return result;
}

/** Deliver a call's result, after whoever watches it is told. Every delivery the gate makes passes here. */
export function finishCall(call: GateCall, result: ToolExecutionResult): void {
  call.deliver(ended(call, result));
}

/** A call waiting for a place in flight: what it starts with, once the budget gives it one. */
class Waiting implements WaitingCall {
  // Declared and set in the constructor, not class fields: see GateCall.
  declare live: boolean;
  declare readonly budget: CallBudget;
  private declare readonly call: GateCall;
  private declare readonly args: Record<string, unknown>;
  private declare readonly context: ToolExecutionContext;

  constructor(call: GateCall, budget: CallBudget, args: Record<string, unknown>, context: ToolExecutionContext) {
    this.live = true;
    this.budget = budget;
    this.call = call;
    this.args = args;
    this.context = context;
  }

  /** A place is free (the budget counted it): start the call, unless it was aborted meanwhile. */
  start(): void {
    const call = this.call;
    if (call.timed) unwatch(call, call.reused);
    call.wait = undefined;
    call.slot = this.budget;
    let now: ToolExecutionResult | undefined;
    if (this.context.signal?.aborted) {
      freeSlot(call);
      now = aborted(call);
    } else {
      now = launch(call, this.args, this.context);
    }
    if (now) finishCall(call, now);
  }
}

/** Queue the call until a place in flight is free; it waits at most its own timeout. */
function waitForPlace(
  call: GateCall,
  budget: CallBudget,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  abort: AbortSignal | undefined,
): undefined {
  const wait = new Waiting(call, budget, args, abort === context.signal ? context : { ...context, signal: abort });
  call.wait = wait;
  budget.wait(wait);
  const ticks = call.ticks;
  call.timed = ticks > 0;
  if (ticks > 0) watch(call, ticks);
  return undefined;
}

/** Run the tool: its result when known at once, else `undefined` and `call.deliver` gets it once. */
function launch(call: GateCall, args: Record<string, unknown>, context: ToolExecutionContext): ToolExecutionResult | undefined {
  const tool = call.tool;
  if (call.observed !== undefined) observedStart(call.observed, call);
  let pending: unknown;
  try {
    pending = tool.execute(args, context);
  } catch (error) {
    freeSlot(call);
    return ended(call, threw(tool, call.step, error));
  }
  try {
    // A native promise settles once; anything else that looks like one is adopted by one, so a
    // thenable that settles twice is heard once and one whose `then` throws becomes a bad result.
    if (pending instanceof Promise) follow(call, pending);
    else if (isThenable(pending)) follow(call, adopt(pending));
    else {
      freeSlot(call);
      return ended(call, settle(tool, call.step, pending));
    }
  } catch {
    freeSlot(call);
    return ended(call, badResult(tool, call.step));
  }
  // The record is its own watchdog entry: whichever of the tool and the deadline comes first wins.
  // (Written out here and in waitForPlace rather than shared: a helper for these three lines
  // measured about 7% more per run of a chain, through what V8 then chose to inline.)
  const ticks = call.ticks;
  call.timed = ticks > 0;
  if (ticks > 0) watch(call, ticks);
  return undefined;
}

const nativeThen = Promise.prototype.then;

/** Listen to `pending` with the record's callbacks, made once per record and kept. */
function follow(call: GateCall, pending: Promise<unknown>): void {
  // (Measured: making both callbacks in one function, sharing one context, made a chain of quick
  // tools markedly slower in V8 than these two factories.)
  const onResult = (call.onResult ??= resultHandler(call));
  const onError = (call.onError ??= errorHandler(call));
  // Always the native `then`, which settles once: a promise whose own `then` was replaced is
  // listened to with the native one all the same (one whose `then` getter throws is a bad result,
  // as any thenable's is). Read and compared first, so V8 sees which function is called and links
  // the callbacks directly: about 70 instructions fewer per call than calling it unseen
  // (bench/instructions.ts; a try around the read undid the gain).
  const then = pending.then;
  if (then === nativeThen) then.call(pending, onResult, onError);
  else nativeThen.call(pending, onResult, onError);
}

/** Whether `value` has a callable `then` (reading it may throw: the caller turns that into a bad result). */
function isThenable(value: unknown): boolean {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** What a thenable whose `then` throws rejects with, so its call is a bad result rather than a throw. */
const BAD_THEN: unique symbol = Symbol('toolweave.badThen');

/** A native promise that adopts `thenable`: settled once, whatever the thenable does. */
function adopt(thenable: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    try {
      (thenable as PromiseLike<unknown>).then(resolve, reject);
    } catch {
      reject(BAD_THEN);
    }
  });
}

/**
 * The callback for a record's tool promise. A record is only aimed again after its call has
 * delivered; a call that timed out has its callbacks retired (see {@link retireCallbacks}), so a
 * late settle of a timed-out call never reaches the record's next call.
 */
function resultHandler(call: GateCall): (result: unknown) => void {
  const handler = (result: unknown): void => {
    if (call.onResult !== handler) return;
    if (!call.timed || unwatch(call, call.reused)) {
      freeSlot(call);
      finishCall(call, settle(call.tool, call.step, result));
    }
  };
  return handler;
}

/** The callback for a record's tool rejection; see {@link resultHandler}. */
function errorHandler(call: GateCall): (error: unknown) => void {
  const handler = (error: unknown): void => {
    if (call.onError !== handler) return;
    if (!call.timed || unwatch(call, call.reused)) {
      freeSlot(call);
      finishCall(call, error === BAD_THEN ? badResult(call.tool, call.step) : threw(call.tool, call.step, error));
    }
  };
  return handler;
}

/** A call timed out: its tool's promise may still settle, so its callbacks must not reach the record's next call. */
export function retireCallbacks(call: GateCall): void {
  call.onResult = undefined;
  call.onError = undefined;
}

/** Check the shape of what a tool returned, and wrap its own failure so its code is `innerCode`. */
function settle(tool: ITool, step: string, result: unknown): ToolExecutionResult {
  try {
    // A well-formed success, the common case, is passed on as it is.
    if (typeof result === 'object' && result !== null && (result as ToolExecutionResult).success === true) return result as ToolExecutionResult;
    return settleOther(tool, step, result);
  } catch {
    // A getter that throws (on `success`, `details`, `error`): not a result the run can read.
    return badResult(tool, step);
  }
}

/** {@link settle} for anything but a well-formed success. */
function settleOther(tool: ITool, step: string, result: unknown): ToolExecutionResult {
  if (typeof result !== 'object' || result === null || typeof (result as ToolExecutionResult).success !== 'boolean') {
    return badResult(tool, step);
  }
  // settle passed every success on already, so this is a failure (as is a `success` getter that
  // answered otherwise when settle read it).
  const r = result as ToolExecutionResult;
  const details = r.details;
  const error = r.error;
  const effects = r.effects;
  const code = details?.code;
  const message = typeof error === 'string' && error ? error : `Tool "${tool.name}" failed.`;
  const inner = innerFailure(details);
  return {
    success: false,
    error: inner ? `Step "${step}" (${tool.name}) > ${innerPath(inner, message)}` : message,
    // A failure that is itself a wrapped step failure (a nested composition) keeps the root cause's code.
    details: {
      ...details,
      code: 'step_failed',
      innerCode: code === 'step_failed' ? details!.innerCode : code,
      tool: tool.name,
      step,
      ...(inner ? { inner } : {}),
    },
    ...(effects ? { effects } : {}),
  };
}

/**
 * The inner failure's message as a path to the step that failed (`step "b" (t) > step "c" (u): why`):
 * a message that already starts with its step's path (a deeper nesting) is continued, not repeated.
 */
function innerPath(inner: InnerFailure, message: string): string {
  const head = `Step "${inner.step}"`;
  if (message.startsWith(head)) return `s${message.slice(1)}`;
  return `step "${inner.step}"${inner.tool ? ` (${inner.tool})` : ''}: ${message}`;
}

/** Where a failing composition failed inside: its own step, tool and code, and where that failed in turn. */
export interface InnerFailure {
  /** The step that failed inside the composition. */
  step: string;
  /** The tool that step called. */
  tool?: string;
  /** Its code. */
  code?: string;
  /** The tool's own code, when the step's tool failed itself. */
  innerCode?: string;
  /** Where that step failed in turn, when it was itself a composition. */
  inner?: InnerFailure;
}

/**
 * The inner step of a failure a composition returned (its `details` name a `step`), so the outer
 * step that called it keeps it beside its own: the name of the step that really failed is not lost.
 */
function innerFailure(details: ToolResultDetails | undefined): InnerFailure | undefined {
  if (!details || typeof details.step !== 'string') return undefined;
  const inner: InnerFailure = { step: details.step };
  if (typeof details.tool === 'string') inner.tool = details.tool;
  if (typeof details.code === 'string') inner.code = details.code;
  if (typeof details.innerCode === 'string') inner.innerCode = details.innerCode;
  if (typeof details.inner === 'object' && details.inner !== null) inner.inner = details.inner as InnerFailure;
  return inner;
}

function badResult(tool: ITool, step: string): ToolExecutionResult {
  return failure('step_bad_result', `Tool "${tool.name}" returned something that is not a tool result.`, { tool: tool.name, step });
}

/**
 * The refusal of a call whose run was aborted before its tool ran, for the host checks' path.
 * (A wrapper, so `aborted` stays a module-local binding: referring to an exported one makes
 * callChecked's bytecode differ from what it was measured as.)
 */
export function abortedBeforeRun(call: GateCall): ToolExecutionResult {
  return aborted(call);
}

function aborted(call: GateCall): ToolExecutionResult {
  return failure('step_aborted', `Aborted before tool "${call.tool.name}" ran.`, { tool: call.tool.name, step: call.step });
}

function interactive(call: GateCall): ToolExecutionResult {
  const name = call.tool.name;
  return failure('tool_interactive', `Tool "${name}" needs its own moment with a person or the host, and this call comes from a script; call it directly.`, {
    tool: name,
    step: call.step,
  });
}

function threw(tool: ITool, step: string, error: unknown): ToolExecutionResult {
  return failure('step_threw', `Tool "${tool.name}" threw: ${messageOf(error)}`, { tool: tool.name, step });
}

