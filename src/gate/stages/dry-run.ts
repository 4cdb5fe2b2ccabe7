/**
 * Dry run: a run the host asked to be dry (`context.dryRun`) makes no side effect. A call of a
 * side-effecting tool or a composition is not made: it is answered from `dry.stepOutputs` (by its
 * step; a script's call also by the tool's name, else with a note that it was not run), and its
 * door lists it as one that would have run. Pure calls go on and run for real. The host's
 * permission check and checks are asked first, as in a real run: a call they refuse is refused.
 */
import { failure } from '../../codes.js';
import type { ToolExecutionResult } from '../../tool.js';
import type { GateCall, Later } from '../call-record.js';
import { askedLater } from './permission.js';

/** The stage: the dry answer of a call that would have an effect, or `undefined` for a real run or a pure call. */
export function answerDryRun(call: GateCall): ToolExecutionResult | Later | undefined {
  const dry = call.door!.dry;
  // The test a real run pays; the rest is kept out of line, so it costs the run nothing more.
  return dry === undefined ? undefined : dryAnswer(call, dry);
}

function dryAnswer(call: GateCall, dry: { stepOutputs: Record<string, unknown> }): ToolExecutionResult | Later | undefined {
  const tool = call.tool!;
  if (tool.hasSideEffects !== true && !tool.composition) return undefined;
  // Answered by the dry run from here on, refused or stubbed: its door reads this as it starts it.
  call.answered = 'dry';
  // The host's permission check and checks are asked as in the real run, so a call they would
  // refuse is refused here too, with its code, not listed as one that would run. The approval
  // hook is not: a person is not asked about a call that will not be made.
  if (call.settings?.asksPermission === true) return askedLater(call, (refusal) => refusal ?? stubbed(call, dry));
  return stubbed(call, dry);
}

/** The call answered from the dry run's outputs. */
function stubbed(call: GateCall, dry: { stepOutputs: Record<string, unknown> }): ToolExecutionResult {
  const outputs = dry.stepOutputs;
  const step = call.step;
  if (Object.hasOwn(outputs, step)) return { success: true, output: outputs[step] };
  // A script's calls are numbered as they come: the tool's name is a key a host can know beforehand.
  if (call.frame?.door?.kind === 'run_js') {
    return { success: true, output: Object.hasOwn(outputs, call.name) ? outputs[call.name] : `dry run: "${call.name}" was not run` };
  }
  return failure('dry_run_needs_output', `Dry run: step "${step}" (${call.name}) would run; give its output in dry.stepOutputs["${step}"].`);
}
