/**
 * Calls by name, for a host's own door: the public way into the call pipeline from `chainable` on
 * (see `pipeline.ts`), through any gate.
 */
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { CallbackCall } from './call-record.js';
import type { GateRunOptions, StepGate } from './options.js';
import { ENTRY, startCall } from './pipeline.js';
import { frameOf } from './run-frame.js';
import { gateSettings } from './settings.js';
import { isChainable, type SideEffectingTools } from './stages/chainable.js';
import { ticksFor } from './watchdog.js';

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
export function callResolved(
  gate: StepGate,
  name: string,
  tool: ITool | undefined,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  options: CallByNameOptions = {},
): Promise<CallByNameResult> {
  const sideEffectingTools = options.sideEffectingTools ?? NONE;
  // The instance that passed the rule is the one that ran, whatever the gate then answered.
  const ran = isChainable(name, tool, sideEffectingTools) ? tool : undefined;
  return new Promise((done) => {
    const call = new CallbackCall((result) => done(ran === undefined ? { result } : { result, tool: ran }));
    const ctx = context ?? {};
    const timeoutMs = options.timeoutMs;
    call.aim(name, options.step ?? name, timeoutMs, ticksFor(timeoutMs), args, ctx, options.signal, gateSettings(gate));
    call.door = { gate, sideEffectingTools, validateArgs: false, dry: undefined, version: undefined, resolved: undefined };
    call.tool = tool;
    call.frame = frameOf(ctx);
    const now = startCall(call, ENTRY.chainable);
    if (now) call.deliver(now);
  });
}

const NONE: ReadonlySet<string> = new Set();


