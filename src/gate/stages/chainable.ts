/**
 * Chainable: the chainability rule, the stage after resolve. A composition calls a side-effecting
 * tool only where the host listed it, never a tool that declares nothing, and never a composition
 * already running on its own path (a cycle). Every door checks its calls here at every call (a
 * tool is replaced by name), and a batch door checks all of them first, before any runs.
 */
import { failure } from '../../codes.js';
import { withoutPeriod } from '../../sentence.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import type { GateCall } from '../call-record.js';
import type { RefusalAdvice } from '../host-hooks.js';
import type { StepGate } from '../options.js';
import { didYouMean } from '../suggest.js';

/** The stage: the call's tool may be chained here, or the refusal that says why not. */
export function checkChain(call: GateCall): ToolExecutionResult | undefined {
  const tool = call.tool;
  // A pure tool that is no composition chains freely: the one test most calls pay.
  return tool !== undefined && tool.hasSideEffects === false && tool.composition !== true ? undefined : chainVerdict(call);
}

function chainVerdict(call: GateCall): ToolExecutionResult | undefined {
  const door = call.door!;
  const tool = call.tool;
  if (!isChainable(call.name, tool, door.sideEffectingTools)) return chainRefusal(call.name, tool, namesOf(door.gate), door.gate.advice);
  // A composition already running on this path would reach itself.
  if (tool.composition === true) {
    const path = call.frame!.path;
    if (path.includes(tool.id)) {
      return failure('composition_cycle', `Step "${call.step}" calls composition "${tool.name}", which is already running on this path.`, { path: [...path, tool.id] });
    }
  }
  return undefined;
}

/**
 * The host's list of side-effecting tools that may be chained, as a list or a set.
 *
 * @category The gate
 */
export type SideEffectingTools = readonly string[] | ReadonlySet<string>;

/**
 * The verdict of {@link checkChainable}: the tool to run, or the refusal.
 *
 * @category The gate
 */
export type ChainCheck =
  | { ok: true; tool: ITool }
  | { ok: false; refusal: ToolExecutionResult<never> };

/**
 * Turn a host list into a set once, so the per-step check is one lookup. Always a copy: a door
 * declares its grade from the list it was given, so a later change to the host's own list or set
 * must not widen what the door can do behind that grade.
 */
export function toToolSet(list: SideEffectingTools | undefined): ReadonlySet<string> {
  if (!list) return EMPTY;
  return new Set(list as Iterable<string>);
}
const EMPTY: ReadonlySet<string> = new Set();

/**
 * Whether a composition may call a tool: the chainability rule.
 *
 * A tool that declares no side effects (`hasSideEffects: false`) chains
 * freely; one with side effects only when the host lists it (`step_not_chainable`); one that
 * declares nothing, for no one, even when listed (`side_effects_undeclared`); a name that
 * resolves to nothing is `step_missing`.
 *
 * @param name - the name the step used
 * @param tool - what that name resolved to, if anything
 * @param sideEffectingTools - the host's list of side-effecting tools that may be chained
 * @param names - the registered names, for "did you mean" on a missing tool
 * @param advice - the host's words for what its user can change (a gate's `advice`); default: the options
 *
 * @example
 * ```ts
 * const check = checkChainable('write_file', registry.get('write_file'), ['write_file']);
 * if (!check.ok) console.log(check.refusal.details?.code); // step_not_chainable, side_effects_undeclared, step_missing
 * ```
 *
 * @category The gate
 */
export function checkChainable(
  name: string,
  tool: ITool | undefined,
  sideEffectingTools?: SideEffectingTools,
  names?: () => Iterable<string> | undefined,
  advice?: RefusalAdvice,
): ChainCheck {
  if (isChainable(name, tool, sideEffectingTools)) return { ok: true, tool };
  return { ok: false, refusal: chainRefusal(name, tool, names, advice) };
}

/**
 * The chainability rule as a yes or no, allocating nothing: the engine asks it on every step and
 * builds the refusal ({@link chainRefusal}) only when the answer is no.
 *
 * @param name - the name the step used
 * @param tool - what that name resolved to, if anything
 * @param sideEffectingTools - the host's list of side-effecting tools that may be chained
 */
export function isChainable(name: string, tool: ITool | undefined, sideEffectingTools?: SideEffectingTools): tool is ITool {
  if (!tool) return false;
  const declared = tool.hasSideEffects;
  if (declared === false) return true;
  if (declared !== true) return false;
  return sideEffectingTools instanceof Set
    ? sideEffectingTools.has(name)
    : (sideEffectingTools as readonly string[] | undefined)?.includes(name) ?? false;
}

/**
 * The names `gate` knows, asked only when a refusal needs them (for "did you mean"). Made by a
 * function of its own: a closure written in a function that checks every call would make V8
 * allocate a context at every check, refused or not (measured: 38 bytes a call).
 */
export function namesOf(gate: Pick<StepGate, 'names'>): () => Iterable<string> | undefined {
  return () => gate.names?.();
}

/**
 * Why the rule refuses `tool`, once {@link isChainable} has said no: `step_missing`,
 * `step_not_chainable` or `side_effects_undeclared`, each saying what to do about it.
 *
 * @param name - the name the step used
 * @param tool - what that name resolved to, if anything
 * @param names - the registered names, for "did you mean" on a missing tool
 * @param advice - the host's words for what its user can change (a gate's `advice`)
 */
export function chainRefusal(name: string, tool: ITool | undefined, names?: () => Iterable<string> | undefined, advice?: RefusalAdvice): ToolExecutionResult<never> {
  const problem = chainProblem(name, tool, names, advice);
  return failure(problem.code, problem.message, { tool: name });
}

/** What {@link chainProblem} says: the refusal's code and its message. */
export interface ChainProblem {
  /** The refusal code. */
  code: 'step_missing' | 'step_not_chainable' | 'side_effects_undeclared';
  /** What is wrong and what to do, naming the tool. */
  message: string;
}

/**
 * The words of a chainability refusal, shared by the run-time refusal and by `validate`: what is
 * wrong with `tool`, and how to fix it, in the host's words when its `advice` gives them.
 */
export function chainProblem(name: string, tool: ITool | undefined, names?: () => Iterable<string> | undefined, advice?: RefusalAdvice): ChainProblem {
  if (!tool) {
    let known: Iterable<string> | undefined;
    try {
      known = names?.();
    } catch {
      // Names that cannot be listed suggest nothing: `known` stays undefined.
    }
    // The suggestion ends with its own question mark.
    const suggestion = didYouMean(name, known);
    const more = adviceFor(advice, 'missing', name);
    return { code: 'step_missing', message: `No tool named "${name}" is registered${suggestion || '.'}${more ? ` ${more}` : ''}` };
  }
  if (tool.hasSideEffects === true) {
    return {
      code: 'step_not_chainable',
      message: `Tool "${name}" has side effects and is not listed as one that may be chained, so it cannot run here: call it directly, or ${chainAdvice(name, advice)}.`,
    };
  }
  return {
    code: 'side_effects_undeclared',
    message: `Tool "${name}" does not declare whether it has side effects, so it is never chained: call it directly, or ${declareAdvice(name, advice)}.`,
  };
}

/** How to let side-effecting tool `name` be chained: the host's words, or the option's. */
export function chainAdvice(name: string, advice?: RefusalAdvice): string {
  return (
    adviceFor(advice, 'chain', name) ??
    `list "${name}" in sideEffectingTools (builder.bind({ sideEffectingTools }) for a composite; the sideEffectingTools option of createRunPipelineTool, createComposeTool or createScriptTool)`
  );
}

/** How to declare whether `name` has side effects: the host's words, or the tool's field. */
export function declareAdvice(name: string, advice?: RefusalAdvice): string {
  return adviceFor(advice, 'declare', name) ?? 'declare hasSideEffects on the tool (false: it changes nothing; true: it does, and then list it in sideEffectingTools)';
}

/**
 * The host's words for `name`, or `undefined` when it has none: advice that throws or answers
 * something other than text is left out, so a refusal is always made.
 */
export function adviceFor(advice: RefusalAdvice | undefined, kind: keyof RefusalAdvice, name: string): string | undefined {
  try {
    const text: unknown = advice?.[kind]?.(name);
    // The advice goes on inside a sentence of the refusal, which ends it.
    if (typeof text === 'string' && withoutPeriod(text) !== '') return kind === 'missing' ? text : withoutPeriod(text);
  } catch {
    // Advice that throws is left out, as advice that answers nothing is.
  }
  return undefined;
}
