import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { checkChainable, type SideEffectingTools } from './chainable.js';
import type { GateRunOptions, StepGate } from './step-gate.js';

/** Options of {@link callByName}: the host's chainability list and the per-call gate options. */
export interface CallByNameOptions extends GateRunOptions {
  /** The host's list of side-effecting tools that may be chained. */
  sideEffectingTools?: SideEffectingTools;
  /** Aborts the call before the tool runs. */
  signal?: AbortSignal;
}

/** What {@link callByName} returns: the result, and the tool that ran (when one did). */
export interface CallByNameResult {
  /** The call's result (a refusal when the chainability rule or a gate check refused it). */
  result: ToolExecutionResult;
  /** The instance that was checked and run, when the name resolved and passed the rule. */
  tool?: ITool;
}

/**
 * Resolve a tool by name, check it against the chainability rule, and run that very instance
 * through the gate. The path every front door (pipeline, compose, script) takes for one call.
 */
export function callByName(
  gate: StepGate,
  name: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  options: CallByNameOptions = {},
): Promise<CallByNameResult> {
  return callResolved(gate, name, gate.resolve(name), args, context, options);
}

/**
 * {@link callByName} for a caller that has already resolved `name` (to check something else of
 * the tool first): the chainability rule on that instance, then the gate runs that instance.
 */
export async function callResolved(
  gate: StepGate,
  name: string,
  tool: ITool | undefined,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  options: CallByNameOptions = {},
): Promise<CallByNameResult> {
  const check = checkChainable(name, tool, options.sideEffectingTools);
  if (!check.ok) return { result: check.refusal };
  const result = await gate.run(check.tool, args, context, options.signal, options);
  return { result, tool: check.tool };
}
