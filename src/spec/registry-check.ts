/**
 * The half of validation that knows the registry: every call a spec may make, checked against the
 * tools the gate resolves now and the host's chainability list, so a typo or an unlisted write is
 * found when the composite is built, not when a model first calls it. (The registry may change
 * after build; every run checks again.)
 */
import { gateSettings } from '../gate/settings.js';
import { messageOf } from '../gate/message-of.js';
import type { StepGate } from '../gate/options.js';
import { didYouMean } from '../gate/suggest.js';
import { adviceFor } from '../gate/stages/chainable.js';
import type { PlanCall } from '../engine/compile-env.js';
import type { ITool } from '../tool.js';
import { argsRefusal } from '../gate/stages/arguments.js';
import { cycleFrom, cycleProblem, type StepToolsOf } from './cycles.js';
import { isRecord } from './nodes.js';

/**
 * One message per call that cannot run as the registry stands now: the step, the tool, and what
 * to do. A call that leads back to a composition already on its way (`self`, the composite being
 * built, or one further down) is a composition cycle, each cycle reported once with its path.
 *
 * @param calls - every call the spec may make (leaves and compensations)
 * @param gate - the gate the composite runs through
 * @param sideEffectingTools - the host's chainable side-effecting tools
 * @param self - the name of the composite being built, if any
 * @param validateArgs - also check arguments fixed in the spec against each tool's `inputSchema`
 */
export function registryProblems(
  calls: readonly PlanCall[],
  gate: StepGate,
  sideEffectingTools: ReadonlySet<string>,
  self?: string,
  validateArgs = false,
): string[] {
  const problems: string[] = [];
  const internals = gateSettings(gate);
  const lookup = internals ? internals.lookup : (name: string) => gate.resolve(name);
  let names: string[] | undefined;
  const known = (): string[] => {
    if (names === undefined) {
      try {
        names = [...(gate.names?.() ?? [])];
      } catch {
        names = [];
      }
    }
    return names;
  };
  // What each composition calls, as the registry has it now; a lookup or a getter that throws means none.
  const stepToolsOf: StepToolsOf = (name) => {
    try {
      const tool = lookup(name);
      const tools: unknown = tool?.composition === true ? tool.stepTools : undefined;
      return Array.isArray(tools) ? tools.filter((t): t is string => typeof t === 'string') : undefined;
    } catch {
      return undefined;
    }
  };
  const searched = new Set<string>();
  const cycles = new Set<string>();
  const cycleAt = (call: PlanCall, name: string): void => {
    const cycle = cycleFrom(self, name, stepToolsOf, searched);
    if (cycle === undefined) return;
    const key = cycle.join('\u0000');
    if (cycles.has(key)) return;
    cycles.add(key);
    problems.push(cycleProblem(cycle, call.label, name));
  };
  for (const call of calls) {
    const name = call.tool;
    // A blank or missing tool name is the structure check's to report.
    if (typeof name !== 'string' || name.trim() === '') continue;
    // The composite being built is not registered yet (or is an older version): it calls itself.
    if (name === self) {
      cycleAt(call, name);
      continue;
    }
    const step = JSON.stringify(call.label);
    let tool: ITool | undefined;
    try {
      tool = lookup(name);
    } catch (error) {
      problems.push(`step ${step}: looking up tool "${name}" failed: ${messageOf(error)}`);
      continue;
    }
    if (!tool) {
      const more = adviceFor(gate.advice, 'missing', name);
      problems.push(`no tool "${name}" in step ${step}${didYouMean(name, known())}${more ? ` ${more}` : ''}`);
      continue;
    }
    const before = problems.length;
    let declared: unknown;
    try {
      declared = tool.hasSideEffects;
    } catch (error) {
      problems.push(`step ${step}: reading hasSideEffects of tool "${name}" failed: ${messageOf(error)}`);
      continue;
    }
    if (declared === true && !sideEffectingTools.has(name)) {
      problems.push(
        `step ${step} calls "${name}", which has side effects and is not listed as one that may be chained: ${adviceFor(gate.advice, 'chain', name) ?? `list it with builder.bind({ sideEffectingTools: [${JSON.stringify(name)}] }) before build`}, or leave the step out`,
      );
    } else if (declared !== true && declared !== false) {
      problems.push(
        `step ${step} calls "${name}", which does not declare whether it has side effects, so it is never chained: ${adviceFor(gate.advice, 'declare', name) ?? 'declare hasSideEffects on the tool (false: it changes nothing; true: it does, and list it in sideEffectingTools)'}`,
      );
    } else {
      cycleAt(call, name);
    }
    if (validateArgs && problems.length === before && isRecord(call.staticArgs)) {
      // Arguments fixed in the spec can be checked now; those read at run time are checked then.
      // Read by the spec's author: the fix is in the spec, unless the host says where it is.
      const refusal = argsRefusal(tool, name, call.label, call.staticArgs, { args: (t) => adviceFor(gate.advice, 'args', t) ?? 'Fix the arguments the spec gives this step' });
      if (refusal?.error) problems.push(refusal.error);
    }
  }
  return problems;
}
