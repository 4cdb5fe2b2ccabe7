/**
 * The label of a call's output, with `flows`: made as the call ends, whichever stage ended it, or,
 * for a tool that stores its output (an observation wrapper), as the tool starts, so it can store
 * the label with it. The library's own get_observation answers with what it read: its output is
 * labelled with the labels its pages were stored with, never as its own output.
 */
import type { GateFlows, OwnOutput } from '../flows/gate-flows.js';
import { joinLabels, TRUSTED, type Label } from '../flows/label.js';
import { flatten, type LabelTree } from '../flows/label-tree.js';
import { handLabels, labelOfReads, observationRole, READS_OBSERVATIONS, readsObservations, StoredReads, STORES_LABELS, type OutputLabeller } from '../flows/observation-labels.js';
import type { Provenance } from '../flows/options.js';
import { resultLabel, type RunFlow } from '../flows/run-flow.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';

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

  /**
   * The output label made last, when it holds for `call` as it stands: the call of an ordinary
   * tool (no door, not get_observation) through this instance and these rules, no approval with
   * its provenance, and the same arguments' and control labels (the same objects) as last time.
   * `undefined` otherwise, and the label is made in full.
   */
  reusedFor(call: LabelledCall): LabelTree | undefined {
    if (call.argLabels !== this.lastArgs || call.control !== this.lastControl || call.tool !== this.tool || call.settings!.flows !== this.flows) return undefined;
    if (call.approved && call.provenance !== undefined) return undefined;
    return this.tool.composition === true || observationRole(this.tool) !== 0 ? undefined : this.lastOutput;
  }

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
  readonly context: ToolExecutionContext;
  outputLabel: LabelTree | undefined;
  /** What get_observation said it read, when the call runs it (see {@link contextToRun}). */
  storedReads: StoredReads | undefined;
}

/**
 * The label of what the call answered (a gate with `flows`): its tool's, with its arguments' and
 * what decided the call joined in, unless a person approved it with its provenance before them; an
 * answer from the journal keeps the label it was recorded with. The run has produced it.
 */
export function labelOutput(call: LabelledCall, result: ToolExecutionResult): void {
  let label = call.outputLabel;
  // A compiled step run again on the labels it had last time answers with the label it made then.
  if (label === undefined) call.outputLabel = label = call.site?.ownOutput?.reusedFor(call) ?? madeOutput(call, result);
  const flow = call.frame?.flow;
  // A label joined with itself is itself: an output labelled as all the run has read (every step
  // of a steady session, whose outputs are built on its label) leaves the run's label as it is.
  if (flow !== undefined && flow.label !== label) flow.produced(label);
}

/** The label of what the call answered, made from the call as it stands (see {@link labelOutput}). */
function madeOutput(call: LabelledCall, result: ToolExecutionResult): LabelTree {
  const tool = call.tool;
  const args = call.argLabels ?? TRUSTED;
  const control = call.control ?? TRUSTED;
  if (tool === undefined) return joinLabels(flatten(args), control);
  // A nested door labels its own result (all it read, when it cannot say more).
  if (tool.composition === true) return doorLabel(result, call.frame?.flow, flatten(args), control);
  if (readsObservations(tool)) return readLabel(call.storedReads, flatten(args), control);
  return toolOutput(call, call.settings!.flows!, tool, args, control);
}

/** A nested door labels its own result (all the run read, when it cannot say more). */
function doorLabel(result: unknown, flow: RunFlow | undefined, args: Label, control: Label): Label {
  return joinLabels(resultLabel(result) ?? flow?.label ?? args, control);
}

/**
 * What get_observation answered: the labels of what it read, whoever the host trusts (listing it
 * among the trusted tools trusts no stored text), joined with its arguments' and the control's.
 */
function readLabel(reads: StoredReads | undefined, args: Label, control: Label): Label {
  return joinLabels(labelOfReads(reads), joinLabels(args, control));
}

/**
 * The context the call's tool runs with (a gate with `flows`): the call's own, or, for a tool that
 * stores its output or reads stored outputs, a copy that hands it its output's label or takes what
 * it read. The label handed is made now, from the call as it stands, and the labeller keeps no
 * reference to the call record: a tool that settles after its call timed out (the record perhaps
 * making another call by then) stores the label of its own call.
 */
export function contextToRun(call: LabelledCall): ToolExecutionContext {
  const tool = call.tool!;
  const role = observationRole(tool);
  if (role === 0) return call.context;
  if ((role & READS_OBSERVATIONS) !== 0) call.storedReads = new StoredReads();
  return handLabels(call.context, (role & STORES_LABELS) !== 0 ? labellerOf(call, call.settings!.flows!, tool) : undefined, call.storedReads);
}

/** The labeller for what `tool` answers the call, made from the call as it stands now. */
function labellerOf(call: LabelledCall, flows: GateFlows, tool: ITool): OutputLabeller {
  const argTree = call.argLabels ?? TRUSTED;
  const control = call.control ?? TRUSTED;
  if (tool.composition === true) {
    const flow = call.frame?.flow;
    const args = flatten(argTree);
    return (result) => doorLabel(result, flow, args, control);
  }
  if (readsObservations(tool)) {
    const reads = call.storedReads;
    const args = flatten(argTree);
    return () => readLabel(reads, args, control);
  }
  // Known before the tool runs: the call keeps it, so what is stored is what the gate labels.
  const tree = toolOutput(call, flows, tool, argTree, control);
  call.outputLabel = tree;
  const label = flatten(tree);
  return () => label;
}

/** The label of what an ordinary tool answers the call: kept by its compiled step, if it has one. */
function toolOutput(call: LabelledCall, flows: GateFlows, tool: ITool, args: LabelTree, control: Label): LabelTree {
  const approved = call.approved && call.provenance !== undefined;
  const site = call.site;
  if (site === undefined) return flows.outputOf(tool, call.step, flatten(args), control, approved);
  return keptAt(site, flows, tool, call.step).outputOf(call.step, args, control, approved);
}

/** What the compiled step `site` keeps of `tool`'s output label at `step`, under the gate's rules `flows`. */
function keptAt(site: LabelSite, flows: GateFlows, tool: ITool, step: string): KeptOutput {
  const kept = site.ownOutput;
  if (kept !== undefined && kept.tool === tool && kept.flows === flows) return kept;
  return (site.ownOutput = new KeptOutput(tool, flows, flows.ownOutput(tool, step)));
}
