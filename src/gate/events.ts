/**
 * Calls starting and ending, told to the host as they happen: for progress displays ("3 read_file
 * ok"), logs and live views, and to the gate's tracer as spans (see `tracing.ts`). The listener travels in the context (`context.onEvent`), so a host
 * that sets it on the call it makes hears every call under it, through every nested door. A
 * listener that throws is ignored: it is told, it cannot change the run.
 */
import type { Provenance } from '../flows/options.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { ToolCallEnded, ToolCallStarted, ToolEvent } from '../tool-events.js';
import { frameOf, type RunFrame } from './run-frame.js';
import { endSpan, startCallSpan, type Span, type Tracer } from './tracing.js';

/** The listener a context carries, if any. */
export function listenerOf(context: ToolExecutionContext): ((event: ToolEvent) => void) | undefined {
  const listener = context.onEvent;
  return typeof listener === 'function' ? (listener as (event: ToolEvent) => void) : undefined;
}

/**
 * Who is told of one call's start and end: the context's listener and the gate's tracer. Made
 * only for a call something watches, so an unwatched call pays for one check.
 */
export interface CallObservation {
  /** The context's listener, if any. */
  listener: ((event: ToolEvent) => void) | undefined;
  /** The call's context (for the door and the path). */
  context: ToolExecutionContext;
  /** When the tool started (`performance.now()`); 0 before it does. */
  startedAt: number;
  /** The tracer of the run's frame, if any. */
  tracer: Tracer | undefined;
  /** Whether its spans carry failures' messages. */
  messages: boolean;
  /** The span of the door that makes the call. */
  parent: Span | undefined;
  /** The call's own span, once started. */
  span: Span | undefined;
}

/** The observation of a call made with `context` in `frame`, or `undefined` when nothing watches it. */
export function observe(context: ToolExecutionContext, frame: RunFrame | undefined): CallObservation | undefined {
  const listener = listenerOf(context);
  const tracer = frame?.tracer;
  if (listener === undefined && tracer === undefined) return undefined;
  return { listener, context, startedAt: 0, tracer, messages: frame?.traceMessages === true, parent: frame?.span, span: undefined };
}

/**
 * The call's tool `tool` (called `name`) starts at `step`: the listener is told (with where each
 * argument came from, when the gate follows labels: `provenance` is asked only then), and its span begins.
 */
export function observedStart(observation: CallObservation, name: string, tool: ITool, step: string, provenance?: () => Provenance | undefined): void {
  observation.startedAt = performance.now();
  // A composition's run is a span of its own (its door's), the child of this one's door: not twice.
  if (observation.tracer && tool.composition !== true) observation.span = startCallSpan(observation.tracer, name, tool, step, observation.parent);
  if (!observation.listener) return;
  const origin = provenance?.();
  tell(observation.listener, { type: 'call_started', ...about(name, step, observation.context), ...(origin !== undefined ? { provenance: origin } : {}) });
}

/** The call ended with `result` (started or not): the listener is told, and its span ends. */
export function observedEnd(observation: CallObservation, name: string, tool: ITool | undefined, step: string, result: ToolExecutionResult): void {
  // A call refused before it started still gets its span, with the refusal's code.
  const refusedEarly = observation.startedAt === 0 && observation.tracer !== undefined;
  const span = observation.span ?? (refusedEarly ? startCallSpan(observation.tracer!, name, tool, step, observation.parent) : undefined);
  if (span) endSpan(span, result, observation.messages);
  const listener = observation.listener;
  if (!listener) return;
  const ms = observation.startedAt > 0 ? performance.now() - observation.startedAt : 0;
  tell(listener, endedEvent(name, step, observation.context, result, ms));
}

/**
 * A call refused before its tool started (a stage of the pipeline, a door's check of a whole
 * batch, a script's own refusals): whoever watches the run is told as of a call the gate refused,
 * the listener with its end and the tracer with a span of its own under the door's.
 *
 * @param context - the context the call would have run with
 * @param frame - the frame of the run that makes it
 * @param name - the name the call used
 * @param tool - the tool that name resolved to, if any
 * @param step - the step that makes it
 * @param result - the refusal
 */
export function observeRefusal(
  context: ToolExecutionContext,
  frame: RunFrame | undefined,
  name: string,
  tool: ITool | undefined,
  step: string,
  result: ToolExecutionResult,
): void {
  const listener = listenerOf(context);
  const tracer = frame?.tracer;
  if (listener === undefined && tracer === undefined) return;
  if (tracer !== undefined) endSpan(startCallSpan(tracer, name, tool, step, frame!.span), result, frame!.traceMessages);
  if (listener === undefined) return;
  tell(listener, endedEvent(name, step, context, result, 0));
}

/** The end of a call: its verdict, and a failure's code and message when it has them. */
function endedEvent(tool: string, step: string, context: ToolExecutionContext, result: ToolExecutionResult, ms: number): ToolCallEnded {
  const ended: ToolCallEnded = { type: 'call_ended', ...about(tool, step, context), ok: result.success === true, ms };
  const code = result.details?.code;
  if (typeof code === 'string') ended.code = code;
  if (!ended.ok && typeof result.error === 'string') ended.error = result.error;
  return ended;
}

function about(tool: string, step: string, context: ToolExecutionContext): Omit<ToolCallStarted, 'type'> {
  // The frame's path, not the one in `sessionData`, which a tool may have changed.
  const frame = frameOf(context);
  const door = frame?.door?.kind;
  return {
    tool,
    step,
    ...(door ? { door } : {}),
    path: frame ? [...frame.path] : [],
  };
}

function tell(listener: (event: ToolEvent) => void, event: ToolEvent): void {
  try {
    listener(event);
  } catch {
    // A listener is told; it cannot change or stop the run.
  }
}
