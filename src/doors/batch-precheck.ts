/**
 * Before a model-sent batch (run_pipeline's steps, compose's tree) runs anything, check every call
 * it names against the chainability rule, so a refused tool stops the whole batch before any side
 * effect. (Each call is checked again when it runs, since a tool is replaced by name.) The check
 * runs in the batch's entered run, so a refusal is told as the gate's own are: a span under the
 * door's, an event to the run's listener.
 */
import { failure } from '../codes.js';
import type { RunState } from '../engine/run-state.js';
import { observeRefusal } from '../gate/events.js';
import { checkChainable, namesOf } from '../gate/stages/chainable.js';
import type { ITool, ToolExecutionResult } from '../tool.js';

/**
 * The first refusal among `calls` (`{ tool, at }` pairs) in the run `state`, told to whoever
 * watches it, or `undefined` when all may run. `self` is the door: a batch never calls its own door.
 */
export function precheckBatch(state: RunState, calls: readonly { tool: string; at: string }[], self: ITool): ToolExecutionResult | undefined {
  const gate = state.gate;
  for (const call of calls) {
    const tool = gate.resolve(call.tool);
    const refusal = refusalOf(state, call, tool, self);
    if (refusal !== undefined) {
      observeRefusal(state.context, state.frame, call.tool, tool, call.at, refusal);
      return refusal;
    }
  }
  return undefined;
}

/** Why `call` (resolved to `tool`) may not run in the batch, if it may not. */
function refusalOf(state: RunState, call: { tool: string; at: string }, tool: ITool | undefined, self: ITool): ToolExecutionResult | undefined {
  if (call.tool === self.name || tool === self) return failure('pipeline_self_call', `${call.at}: ${self.name} cannot call itself.`, { step: call.at, tool: call.tool });
  const check = checkChainable(call.tool, tool, state.sideEffectingTools, namesOf(state.gate), state.gate.advice);
  return check.ok ? undefined : { ...check.refusal, error: `${call.at}: ${check.refusal.error}`, details: { ...check.refusal.details, step: call.at } };
}
