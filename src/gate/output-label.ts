/**
 * The label of a call's output, with `flows`: made as the call ends, whichever stage ended it.
 */
import type { GateFlows, OwnOutput } from '../flows/gate-flows.js';
import { joinLabels, TRUSTED, type Label } from '../flows/label.js';
import { flatten, type LabelTree } from '../flows/label-tree.js';
import type { Provenance } from '../flows/options.js';
import { resultLabel, type RunFlow } from '../flows/run-flow.js';
import type { ITool, ToolExecutionResult } from '../tool.js';

/** What a compiled step keeps of its tool's own output label (see `CallSite`). */
export interface LabelSite {
  /** Its tool's own output label at this step, with the tool instance and the gate's rules it holds for (asked once, not at every call). */
  ownOutput?: { readonly tool: ITool; readonly flows: GateFlows; readonly own: OwnOutput };
}

/** What of a call its output label is made from (a `GateCall` is one). */
interface LabelledCall {
  readonly step: string;
  readonly tool: ITool | undefined;
  readonly settings: { readonly flows: GateFlows | undefined } | undefined;
  readonly frame: { readonly flow: RunFlow | undefined } | undefined;
  readonly site: LabelSite | undefined;
  readonly approved: boolean;
  readonly provenance: Provenance | undefined;
  readonly argLabels: LabelTree | undefined;
  readonly control: Label | undefined;
  outputLabel: LabelTree | undefined;
}

/**
 * The label of what the call answered (a gate with `flows`): its tool's, with its arguments' and
 * what decided the call joined in, unless a person approved it with its provenance before them; an
 * answer from the journal keeps the label it was recorded with. The run has produced it.
 */
export function labelOutput(call: LabelledCall, result: ToolExecutionResult): void {
  const flows = call.settings!.flows!;
  const tool = call.tool;
  if (call.outputLabel === undefined) {
    const args = call.argLabels === undefined ? TRUSTED : flatten(call.argLabels);
    const control = call.control ?? TRUSTED;
    if (tool === undefined) call.outputLabel = joinLabels(args, control);
    // A nested door labels its own result (all it read, when it cannot say more).
    else if (tool.composition === true) call.outputLabel = joinLabels(resultLabel(result) ?? call.frame?.flow?.label ?? args, control);
    else call.outputLabel = flows.outputOf(tool, call.step, args, control, call.approved && call.provenance !== undefined, ownOutputAt(call, flows, tool));
  }
  call.frame?.flow?.produced(call.outputLabel);
}

/** The own output label of `tool` at the call's step: kept by its compiled step, if it has one. */
function ownOutputAt(call: LabelledCall, flows: GateFlows, tool: ITool): OwnOutput {
  const site = call.site;
  if (site === undefined) return flows.ownOutput(tool, call.step);
  const kept = site.ownOutput;
  if (kept !== undefined && kept.tool === tool && kept.flows === flows) return kept.own;
  const own = flows.ownOutput(tool, call.step);
  site.ownOutput = { tool, flows, own };
  return own;
}
