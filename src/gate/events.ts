/**
 * Calls starting and ending, told to the host as they happen: for progress displays ("3 read_file
 * ok"), logs and live views. The listener travels in the context (`context.onEvent`), so a host
 * that sets it on the call it makes hears every call under it, through every nested door. A
 * listener that throws is ignored: it is told, it cannot change the run.
 */
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { GateCall } from './gate-call.js';
import { frameOf, type DoorKind } from './run-frame.js';

/** What every event says about its call. */
interface ToolEventBase {
  /** The tool's name. */
  tool: string;
  /** The step that calls it (its name, its place, or `call N` in a script). */
  step: string;
  /** The door the call comes through; absent for a direct call. */
  door?: DoorKind;
  /** The ids of the compositions on the call path, outermost first. */
  path: readonly string[];
}

/** A tool was started (every check passed). */
export interface ToolCallStarted extends ToolEventBase {
  /** The kind. */
  type: 'call_started';
}

/** A call ended: ran, failed, or was refused by the gate. */
export interface ToolCallEnded extends ToolEventBase {
  /** The kind. */
  type: 'call_ended';
  /** Whether it succeeded. */
  ok: boolean;
  /** The failure's code. */
  code?: string;
  /** Milliseconds from its start (0 for a call refused before it started). */
  ms: number;
}

/** A call starting or ending. */
export type ToolEvent = ToolCallStarted | ToolCallEnded;

/** The listener a context carries, if any. */
export function listenerOf(context: ToolExecutionContext): ((event: ToolEvent) => void) | undefined {
  const listener = context.onEvent;
  return typeof listener === 'function' ? (listener as (event: ToolEvent) => void) : undefined;
}

/** Tell `call.listener` that its tool started. */
export function emitStarted(call: GateCall, context: ToolExecutionContext): void {
  call.startedAt = performance.now();
  tell(call.listener!, { type: 'call_started', ...about(call, context) });
}

/** Tell `listener` that `call` ended with `result`. */
export function emitEnded(listener: (event: ToolEvent) => void, call: GateCall, context: ToolExecutionContext, result: ToolExecutionResult): void {
  const ms = call.startedAt > 0 ? performance.now() - call.startedAt : 0;
  const ended: ToolCallEnded = { type: 'call_ended', ...about(call, context), ok: result.success === true, ms };
  const code = result.details?.code;
  if (typeof code === 'string') ended.code = code;
  tell(listener, ended);
}

function about(call: GateCall, context: ToolExecutionContext): ToolEventBase {
  const door = frameOf(context)?.door?.kind;
  const path = context.sessionData?.compositionPath;
  return {
    tool: call.tool.name,
    step: call.step,
    ...(door ? { door } : {}),
    path: Array.isArray(path) ? (path as string[]) : [],
  };
}

function tell(listener: (event: ToolEvent) => void, event: ToolEvent): void {
  try {
    listener(event);
  } catch {
    // A listener is told; it cannot change or stop the run.
  }
}
