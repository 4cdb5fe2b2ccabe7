/**
 * How a run of a plan follows labels (a gate with `flows`): beside each value its references can
 * read (`RefScope`), the value's labels (`RefScope.labels`); each node's outcome carries the label
 * of its output; and the run's state carries what decided that its calls are made (`control`). A
 * run whose gate has no `flows` has no labels in its scope, and none of this runs.
 */
import type { GateFlows } from '../flows/gate-flows.js';
import { isNeutral, joinLabels, TRUSTED, type Label } from '../flows/label.js';
import { flatten, type LabelTree } from '../flows/label-tree.js';
import { labelScopeOf, type LabelAccessor } from '../flows/label-scope.js';
import { handedInRun, labelResult } from '../flows/run-flow.js';
import { frameOf, type RunFrame } from '../gate/run-frame.js';
import type { RefScope } from '../refs/scope.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { NodeOutcome, RunState } from './run-state.js';

/**
 * The labels of the input a door was called with (`context` is the caller's, `frame` the door's
 * run's): the caller's
 * session's (or the run's own, as its first run had it), for a call from outside; for a door nested
 * in a run, the labels the calling step gave the object, else all the run has read.
 */
export function inputLabelsOf(flows: GateFlows, frame: RunFrame, input: unknown, context: ToolExecutionContext): LabelTree {
  const caller = frameOf(context);
  if (caller === undefined) return frame.flow?.label ?? flows.argumentsOf(context);
  return handedInRun(input, caller.flow);
}

/**
 * Give `refs` the labels of a run's scope, when the run follows labels. `literal` says who wrote the
 * mapping's own text: the host (a spec: trusted) or the caller (what a model sent: the input's).
 */
export function withLabels(refs: RefScope, state: RunState, context: ToolExecutionContext, literalIsInput: boolean): RefScope {
  if (state.flows === undefined) return refs;
  const input = inputLabelsOf(state.flows, state.frame, refs.input, context);
  refs.labels = labelScopeOf(input, literalIsInput ? flatten(input) : TRUSTED, refs.named);
  return refs;
}

/** The label of a node's output (a node that followed none: trusted, as a literal is). */
export function outcomeLabel(outcome: NodeOutcome): LabelTree {
  return outcome.label ?? TRUSTED;
}

/** A top-level output as the steps after it read it: `$prev`, and `$steps[n]` when kept; its labels beside it. */
export function recordLabel(refs: RefScope, label: LabelTree | undefined, keepSteps: boolean): void {
  const labels = refs.labels;
  if (labels === undefined) return;
  const tree = label ?? TRUSTED;
  if (keepSteps) labels.steps.push(tree);
  labels.prev = tree;
}

/** A named node's output's label, beside it. */
export function recordNamedLabel(refs: RefScope, name: string, label: LabelTree | undefined): void {
  refs.labels?.named.set(name, label ?? TRUSTED);
}

/** `scope` with `output` as its previous output (a pipe stage, a check, an undo), labelled `label`. */
export function withPrev(scope: RefScope, output: unknown, label: LabelTree | undefined): RefScope {
  const labels = scope.labels;
  return labels === undefined ? { ...scope, prev: output } : { ...scope, prev: output, labels: { ...labels, prev: label ?? TRUSTED } };
}

/** The state of the nodes a decision on data labelled `label` makes run (or not): their calls carry it as control. */
export function underControl(state: RunState, label: Label): RunState {
  // Only a label that adds nothing is left out: one that says who may read it adds that.
  if (state.flows === undefined || isNeutral(label)) return state;
  return { ...state, control: joinLabels(state.control, label) };
}

/** The flat label of what `labels` reads in `scope` (a condition, a list), when the run follows labels. */
export function labelIn(scope: RefScope, labels: LabelAccessor): Label {
  return scope.labels === undefined ? TRUSTED : flatten(labels(scope.labels));
}

/** The result of a door's run carries data labelled `label`: the caller's session is marked with it (see `runAsDoor`). */
export function labelDoorResult(state: RunState, result: ToolExecutionResult, label: LabelTree | undefined): ToolExecutionResult {
  if (state.flows !== undefined && label !== undefined) labelResult(result, flatten(label));
  return result;
}
