/**
 * Run: the last stage. The tool runs with the arguments and context the stages let through, and
 * every way it can misbehave becomes a result: a throw, a rejection, a result that is not one, a
 * getter that throws, a thenable that throws or settles twice, a tool that never settles (its
 * deadline ends the call with `step_timeout`). A tool's own failure comes back as `step_failed`
 * with its code as `innerCode`.
 */
import { failure } from '../../codes.js';
import type { ITool, ToolExecutionResult, ToolResultDetails } from '../../tool.js';
import { finishCall, type GateCall } from '../call-record.js';
import { messageOf } from '../message-of.js';
import { observationRole } from '../../flows/observation-labels.js';
import { contextToRun } from '../output-label.js';
import { unwatch, watch } from '../watchdog.js';

/**
 * The stage: run the tool. Its result when known at once (the pipeline ends the call with it),
 * else `undefined`, and the call's end is delivered once the tool settles or its deadline passes.
 */
export function runTool(call: GateCall): ToolExecutionResult | undefined {
  const tool = call.tool!;
  let pending: unknown;
  try {
    // With flows, an observation wrapper is handed its output's label, and get_observation says what it read.
    pending = tool.execute(call.args, call.settings?.flows === undefined || observationRole(tool) === 0 ? call.context : contextToRun(call));
  } catch (error) {
    return threw(tool, call.step, error);
  }
  try {
    // A native promise settles once; anything else that looks like one is adopted by one, so a
    // thenable that settles twice is heard once and one whose `then` throws becomes a bad result.
    if (pending instanceof Promise) follow(call, pending);
    else if (isThenable(pending)) follow(call, adopt(pending));
    else return settle(tool, call.step, pending);
  } catch {
    return badResult(tool, call.step);
  }
  // The record is its own watchdog entry: whichever of the tool and the deadline comes first wins.
  // (Written out here and in the budget stage's wait rather than shared: a helper for these three
  // lines measured about 7% more per run of a chain, through what V8 then chose to inline.)
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
 * delivered; a call that timed out has its callbacks retired (see `GateCall.expire`), so a
 * late settle of a timed-out call never reaches the record's next call.
 */
function resultHandler(call: GateCall): (result: unknown) => void {
  const handler = (result: unknown): void => {
    if (call.onResult !== handler) return;
    if (!call.timed || unwatch(call, call.reused)) finishCall(call, settle(call.tool!, call.step, result));
  };
  return handler;
}

/** The callback for a record's tool rejection; see {@link resultHandler}. */
function errorHandler(call: GateCall): (error: unknown) => void {
  const handler = (error: unknown): void => {
    if (call.onError !== handler) return;
    if (!call.timed || unwatch(call, call.reused)) finishCall(call, error === BAD_THEN ? badResult(call.tool!, call.step) : threw(call.tool!, call.step, error));
  };
  return handler;
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

function threw(tool: ITool, step: string, error: unknown): ToolExecutionResult {
  return failure('step_threw', `Tool "${tool.name}" threw: ${messageOf(error)}`, { tool: tool.name, step });
}

