/**
 * OpenTelemetry spans, following the GenAI semantic conventions for tool execution: every door's
 * run (a composite, run_pipeline, compose, run_js) is a span, and every call through the gate a
 * child of the door that made it. No context manager is assumed: the door's span travels in the
 * run's frame, so the calls a script makes nest under the script's span whatever the host's setup.
 * Without a tracer none of this runs.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { ITool, ToolExecutionResult } from '../tool.js';

/** The span name of a tool's execution: `execute_tool <name>`. */
function spanName(name: string): string {
  return `execute_tool ${name}`;
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
  return startSpan(tracer, name, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'toolweave.door': door, 'toolweave.dry_run': dry }, parent);
}

/**
 * The span of one call through the gate.
 *
 * @param tracer - the gate's tracer
 * @param tool - the tool the call runs
 * @param step - the step that makes the call
 * @param parent - the span of the door that makes it
 */
export function startCallSpan(tracer: Tracer, tool: ITool, step: string, parent: Span | undefined): Span {
  const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name, 'toolweave.step': step, 'toolweave.dry_run': false };
  const declared = tool.hasSideEffects;
  attributes['toolweave.side_effects'] = declared === true ? 'true' : declared === false ? 'false' : 'undeclared';
  return startSpan(tracer, tool.name, attributes, parent);
}

/** End a span with the call's verdict: on a failure, its code as `error.type` (and the tool's own as `toolweave.inner_code`). */
export function endSpan(span: Span, result: ToolExecutionResult): void {
  try {
    if (result.success !== true) {
      const details = result.details;
      const code = typeof details?.code === 'string' ? details.code : 'step_failed';
      span.setAttribute('error.type', code);
      if (typeof details?.innerCode === 'string') span.setAttribute('toolweave.inner_code', details.innerCode);
      span.setStatus({ code: SpanStatusCode.ERROR, message: typeof result.error === 'string' ? result.error : code });
    }
  } finally {
    span.end();
  }
}

export type { Span, Tracer };
