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
  ownOutput?: KeptOutput;
}

/**
 * A compiled step's own output label, and the last output label made from it. Labels never change
 * once made, so the same arguments' and control labels (the same objects) give the same output
 * label: a step run again on what its run handed it last time (every step of a run repeated in a
 * session whose label is unchanged, as the compiled mapping hands the same label tree for the same
 * labels) reuses it and joins nothing.
 */
class KeptOutput {
  private lastArgs: LabelTree | undefined;
  private lastControl: Label | undefined;
  private lastOutput: LabelTree | undefined;
  constructor(
    readonly tool: ITool,
    readonly flows: GateFlows,
    readonly own: OwnOutput,
  ) {}

  /** The output label of a call with arguments labelled `args`, decided by `control` (see {@link GateFlows.outputOf}). */
  outputOf(step: string, args: LabelTree, control: Label, approved: boolean): LabelTree {
    if (approved) return this.flows.outputOf(this.tool, step, flatten(args), control, true, this.own);
    if (args === this.lastArgs && control === this.lastControl) return this.lastOutput!;
    const output = this.flows.outputOf(this.tool, step, flatten(args), control, false, this.own);
    this.lastArgs = args;
    this.lastControl = control;
    this.lastOutput = output;
    return output;
  }
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
    const args = call.argLabels ?? TRUSTED;
    const control = call.control ?? TRUSTED;
    const approved = call.approved && call.provenance !== undefined;
    const site = call.site;
    if (tool === undefined) call.outputLabel = joinLabels(flatten(args), control);
    // A nested door labels its own result (all it read, when it cannot say more).
    else if (tool.composition === true) call.outputLabel = joinLabels(resultLabel(result) ?? call.frame?.flow?.label ?? flatten(args), control);
    else if (site === undefined) call.outputLabel = flows.outputOf(tool, call.step, flatten(args), control, approved);
    else call.outputLabel = keptAt(site, flows, tool, call.step).outputOf(call.step, args, control, approved);
  }
  call.frame?.flow?.produced(call.outputLabel);
}

/** What the compiled step `site` keeps of `tool`'s output label at `step`, under the gate's rules `flows`. */
function keptAt(site: LabelSite, flows: GateFlows, tool: ITool, step: string): KeptOutput {
  const kept = site.ownOutput;
  if (kept !== undefined && kept.tool === tool && kept.flows === flows) return kept;
  return (site.ownOutput = new KeptOutput(tool, flows, flows.ownOutput(tool, step)));
}
