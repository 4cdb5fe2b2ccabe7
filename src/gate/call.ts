import { failure } from '../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { checkChainable, namesOf, type SideEffectingTools } from './chainable.js';
import { observeRefusal } from './events.js';
import { messageOf } from './execute-call.js';
import { frameOf } from './run-frame.js';
import type { GateRunOptions, StepGate } from './step-gate.js';

/**
 * Options of {@link callByName}: the host's chainability list and the per-call gate options.
 *
 * @category The gate
 */
export interface CallByNameOptions extends GateRunOptions {
  /** The host's list of side-effecting tools that may be chained. */
  sideEffectingTools?: SideEffectingTools;
  /** Aborts the call before the tool runs. */
  signal?: AbortSignal;
}

/**
 * What {@link callByName} returns: the result, and the tool that ran (when one did).
 *
 * @category The gate
 */
export interface CallByNameResult {
  /** The call's result (a refusal when the chainability rule or a gate check refused it). */
  result: ToolExecutionResult;
  /** The instance that was checked and run, when the name resolved and passed the rule. */
  tool?: ITool;
}

/**
 * Resolve a tool by name, check it against the chainability rule, and run that very instance
 * through the gate.
 *
 * The path every front door (pipeline, compose, script) takes for one call.
 *
 * @example
 * ```ts
 * const { result, tool } = await callByName(gate, 'read_file', { path: 'a.ts' }, context, { sideEffectingTools: ['write_file'], step: 'my door' });
 * ```
 *
 * @category The gate
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
 * {@link callByName} for a tool the caller has already resolved.
 *
 * {@link callByName} for a caller that has already resolved `name` (to check something else of
 * the tool first): the chainability rule on that instance, then the gate runs that instance.
 *
 * @example
 * ```ts
 * const tool = gate.resolve('read_file');
 * if (tool?.interactive !== true) await callResolved(gate, 'read_file', tool, { path: 'a.ts' }, context);
 * ```
 *
 * @category The gate
 */
export async function callResolved(
  gate: StepGate,
  name: string,
  tool: ITool | undefined,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  options: CallByNameOptions = {},
): Promise<CallByNameResult> {
  const check = checkChainable(name, tool, options.sideEffectingTools, namesOf(gate), gate.advice);
  if (!check.ok) {
    observeRefusal(context, frameOf(context), name, tool, options.step ?? name, check.refusal);
    return { result: check.refusal };
  }
  const result = await runThroughGate(gate, check.tool, args, context, options.signal, options);
  return { result, tool: check.tool };
}

/**
 * `gate.run`, for any gate: a host-made gate may throw, reject or answer something that is not a
 * result, and its failures may carry no code. Each becomes a result with a code (`step_threw`,
 * `step_bad_result`, `step_failed` for a failure without one, its own fields kept), so every door
 * keeps its promise of a `details.code` on every failure, whatever gate it was given.
 */
export async function runThroughGate(
  gate: StepGate,
  tool: ITool,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
  options: GateRunOptions | undefined,
): Promise<ToolExecutionResult> {
  const step = options?.step ?? tool.name;
  let answer: unknown;
  try {
    answer = await gate.run(tool, args, context, signal, options);
  } catch (error) {
    return failure('step_threw', `The gate failed running tool "${tool.name}": ${messageOf(error)}`, { tool: tool.name, step });
  }
  return gateResult(answer, tool, step);
}

/** What a gate answered, as a result with a code on every failure; see {@link runThroughGate}. */
export function gateResult(answer: unknown, tool: ITool, step: string): ToolExecutionResult {
  try {
    const result = answer as ToolExecutionResult;
    if (typeof answer !== 'object' || answer === null || typeof result.success !== 'boolean') {
      return failure('step_bad_result', `The gate answered something that is not a tool result for tool "${tool.name}".`, { tool: tool.name, step });
    }
    if (result.success) return result;
    const details = result.details;
    if (typeof details?.code === 'string') return result;
    return {
      ...result,
      error: typeof result.error === 'string' && result.error ? result.error : `Tool "${tool.name}" failed.`,
      details: { ...details, code: 'step_failed', tool: tool.name, step },
    };
  } catch {
    return failure('step_bad_result', `The gate answered something unreadable for tool "${tool.name}".`, { tool: tool.name, step });
  }
}
