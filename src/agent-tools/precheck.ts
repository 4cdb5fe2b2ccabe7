/**
 * Before a model-sent batch runs anything, check every call it names against the chainability
 * rule, so a refused tool stops the whole batch before any side effect. (Each call is checked
 * again when it runs, since a tool is replaced by name.)
 */
import { failure } from '../codes.js';
import { checkChainable, namesOf, type SideEffectingTools } from '../gate/chainable.js';
import type { StepGate } from '../gate/step-gate.js';
import type { ITool, ToolExecutionResult } from '../tool.js';

/** The first refusal among `calls` (`{ tool, at }` pairs), or `undefined` when all may run. */
export function precheckCalls(
  gate: StepGate,
  calls: readonly { tool: string; at: string }[],
  sideEffectingTools: SideEffectingTools | undefined,
  self: { name: string; tool: ITool },
): ToolExecutionResult | undefined {
  for (const call of calls) {
    const tool = gate.resolve(call.tool);
    if (call.tool === self.name || tool === self.tool) {
      return failure('pipeline_self_call', `${call.at}: ${self.name} cannot call itself.`, { step: call.at, tool: call.tool });
    }
    const check = checkChainable(call.tool, tool, sideEffectingTools, namesOf(gate), gate.advice);
    if (!check.ok) {
      return { ...check.refusal, error: `${call.at}: ${check.refusal.error}`, details: { ...check.refusal.details, step: call.at } };
    }
  }
  return undefined;
}
