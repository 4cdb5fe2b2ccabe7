/**
 * Before a model-sent batch runs anything, check every call it names against the chainability
 * rule, so a refused tool stops the whole batch before any side effect. (Each call is checked
 * again when it runs, since a tool is replaced by name.)
 */
import { failure } from '../codes.js';
import type { RunSettings } from '../engine/run-settings.js';
import { nestedContext } from '../gate/depth.js';
import { listenerOf, observeRefusal } from '../gate/events.js';
import { frameOf } from '../gate/run-frame.js';
import { checkChainable, namesOf } from '../gate/stages/chainable.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/** The first refusal among `calls` (`{ tool, at }` pairs), or `undefined` when all may run. */
export function precheckBatch(
  settings: RunSettings,
  calls: readonly { tool: string; at: string }[],
  self: { name: string; tool: ITool },
  context: ToolExecutionContext,
): ToolExecutionResult | undefined {
  const gate = settings.gate;
  for (const call of calls) {
    const tool = gate.resolve(call.tool);
    if (call.tool === self.name || tool === self.tool) {
      return refusedBatch(settings, context, call, tool, failure('pipeline_self_call', `${call.at}: ${self.name} cannot call itself.`, { step: call.at, tool: call.tool }));
    }
    const check = checkChainable(call.tool, tool, settings.sideEffectingTools, namesOf(gate), gate.advice);
    if (!check.ok) {
      return refusedBatch(settings, context, call, tool, { ...check.refusal, error: `${call.at}: ${check.refusal.error}`, details: { ...check.refusal.details, step: call.at } });
    }
  }
  return undefined;
}

/**
 * A batch refused before it ran, for one of its calls. When anything watches the run (the gate's
 * tracer, the context's listener), the door is entered all the same, so that the refused call is
 * told as the gate's own refusals are: a span under the door's span, which ends with the refusal.
 */
function refusedBatch(settings: RunSettings, context: ToolExecutionContext, call: { tool: string; at: string }, tool: ITool | undefined, refusal: ToolExecutionResult): ToolExecutionResult {
  if (settings.tracer === undefined && listenerOf(context) === undefined) return refusal;
  const nested = nestedContext(context, { door: settings.door, tracer: settings.tracer, traceMessages: settings.traceMessages, limits: settings.limits, dryRun: context.dryRun !== undefined });
  const frame = frameOf(nested)!;
  observeRefusal(nested, frame, call.tool, tool, call.at, refusal);
  frame.end(refusal);
  return refusal;
}
