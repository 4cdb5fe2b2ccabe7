/**
 * OpenTelemetry spans, following the GenAI semantic conventions for tool execution: every door's
 * run (a composite, run_pipeline, compose, run_js) is a span, and every call through the gate a
 * child of the door that made it. No context manager is assumed: the door's span travels in the
 * run's frame, so the calls a script makes nest under the script's span whatever the host's setup.
 * Without a tracer none of this runs.
 *
 * A span carries codes and names, not values: its status message is the failure's code, never
 * the failure's text (which may quote an argument, a path or a secret a tool printed), unless the
 * host asks for the text (`traceMessages`). A name a model may have chosen (a pipeline step's id,
 * the tool a script names) is escaped and cut to a bounded length before it is recorded.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { ITool, ToolExecutionResult } from '../tool.js';

/** The span name of a tool's execution: `execute_tool <name>`, the name bounded. */
function spanName(name: string): string {
  return `execute_tool ${bounded(name)}`;
}

/** The most characters of a name recorded in a span. */
const MAX_TRACED_NAME = 128;
/** Control characters, line and paragraph separators, and the bidirectional overrides: escaped as `\uXXXX`. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` as a span may record it: control characters escaped, cut to {@link MAX_TRACED_NAME} characters (then ending in `…`). */
export function bounded(text: string): string {
  const escaped = text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > MAX_TRACED_NAME ? `${escaped.slice(0, MAX_TRACED_NAME)}…` : escaped;
}

/** Start a span as a child of `parent` (or a root span), passing the parent explicitly. */
function startSpan(tracer: Tracer, name: string, attributes: Attributes, parent: Span | undefined): Span {
  const context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  return tracer.startSpan(spanName(name), { kind: SpanKind.INTERNAL, attributes }, context);
}

/**
 * The span of a door's run.
 *
 * @param tracer - the gate's tracer
 * @param name - the door's tool name (a composite's name, `run_js`, ...)
 * @param door - which kind of door
 * @param parent - the span of the door that called this one, if any
 * @param dry - the run is a dry run
 */
export function startDoorSpan(tracer: Tracer, name: string, door: string, parent: Span | undefined, dry: boolean): Span {
  return startSpan(tracer, name, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': bounded(name), 'toolweave.door': door, 'toolweave.dry_run': dry }, parent);
}

/**
 * The span of one call through the gate.
 *
 * @param tracer - the gate's tracer
 * @param name - the name the call used
 * @param tool - the tool it runs, when the name resolved to one
 * @param step - the step that makes the call
 * @param parent - the span of the door that makes it
 */
export function startCallSpan(tracer: Tracer, name: string, tool: ITool | undefined, step: string, parent: Span | undefined): Span {
  const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': bounded(name), 'toolweave.step': bounded(step), 'toolweave.dry_run': false };
  if (tool !== undefined) {
    const declared = tool.hasSideEffects;
    attributes['toolweave.side_effects'] = declared === true ? 'true' : declared === false ? 'false' : 'undeclared';
  }
  return startSpan(tracer, name, attributes, parent);
}

/**
 * End a span with the call's verdict: on a failure, its code as `error.type` (and the tool's own
 * as `toolweave.inner_code`), and as the status message; the failure's text only with `messages`.
 */
export function endSpan(span: Span, result: ToolExecutionResult, messages: boolean): void {
  try {
    if (result.success !== true) {
      const details = result.details;
      const code = typeof details?.code === 'string' ? bounded(details.code) : 'step_failed';
      span.setAttribute('error.type', code);
      if (typeof details?.innerCode === 'string') span.setAttribute('toolweave.inner_code', bounded(details.innerCode));
      span.setStatus({ code: SpanStatusCode.ERROR, message: messages && typeof result.error === 'string' ? result.error : code });
    }
  } finally {
    span.end();
  }
}

export type { Span, Tracer };
