/**
 * Before a model-sent batch runs anything, check every call it names against the chainability
 * rule, so a refused tool stops the whole batch before any side effect. (Each call is checked
 * again when it runs, since a tool is replaced by name.)
 */
import { failure } from '../codes.js';
import { checkChainable, namesOf, type SideEffectingTools } from '../gate/stages/chainable.js';
import { nestedContext } from '../gate/depth.js';
import { listenerOf, observeRefusal } from '../gate/events.js';
import { gateSettings } from '../gate/settings.js';
import { frameOf } from '../gate/run-frame.js';
import type { DoorInfo } from '../tool-events.js';
import type { StepGate } from '../gate/options.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/** The door a batch is checked for, and the context it was called with: a refusal is told to whoever watches it. */
export interface PrecheckSite {
  /** The door (run_pipeline, compose). */
  door: DoorInfo;
  /** The context the door was called with. */
  context: ToolExecutionContext;
}

/** The first refusal among `calls` (`{ tool, at }` pairs), or `undefined` when all may run. */
export function precheckCalls(
  gate: StepGate,
  calls: readonly { tool: string; at: string }[],
  sideEffectingTools: SideEffectingTools | undefined,
  self: { name: string; tool: ITool },
  site: PrecheckSite,
): ToolExecutionResult | undefined {
  for (const call of calls) {
    const tool = gate.resolve(call.tool);
    if (call.tool === self.name || tool === self.tool) {
      return refusedBatch(gate, site, call, tool, failure('pipeline_self_call', `${call.at}: ${self.name} cannot call itself.`, { step: call.at, tool: call.tool }));
    }
    const check = checkChainable(call.tool, tool, sideEffectingTools, namesOf(gate), gate.advice);
    if (!check.ok) {
      return refusedBatch(gate, site, call, tool, { ...check.refusal, error: `${call.at}: ${check.refusal.error}`, details: { ...check.refusal.details, step: call.at } });
    }
  }
  return undefined;
}

/**
 * A batch refused before it ran, for one of its calls. When anything watches the run (the gate's
 * tracer, the context's listener), the door is entered all the same, so that the refused call is
 * told as the gate's own refusals are: a span under the door's span, which ends with the refusal.
 */
function refusedBatch(gate: StepGate, site: PrecheckSite, call: { tool: string; at: string }, tool: ITool | undefined, refusal: ToolExecutionResult): ToolExecutionResult {
  const internals = gateSettings(gate);
  const { context, door } = site;
  if (internals?.tracer === undefined && listenerOf(context) === undefined) return refusal;
  const nested = nestedContext(context, { door, tracer: internals?.tracer, traceMessages: internals?.traceMessages, limits: internals?.limits, dryRun: context.dryRun !== undefined });
  const frame = frameOf(nested)!;
  observeRefusal(nested, frame, call.tool, tool, call.at, refusal);
  frame.end(refusal);
  return refusal;
}
