/**
 * What a run knows of the labels it has handled, beyond each value's own: the join of every
 * output produced in it (kept on the run's frame, shared by every door nested in it), the labels of
 * the arguments a call hands a nested door (found again by the object itself, as the door's input),
 * and the label of a door's result (what the session is marked with when the result goes back).
 */
import { joinLabels, sourceLabel, TRUSTED, type Label } from './label.js';
import { flatten, type LabelTree } from './label-tree.js';

/** The labels a run has handled. */
export class RunFlow {
  /** The join of every output produced in the run so far, and of its input: all it could have read. */
  label: Label;

  /** @param input - the label of the run's input */
  constructor(input: Label = TRUSTED) {
    this.label = input;
  }

  /** An output labelled `tree` was produced in the run. */
  produced(tree: LabelTree): void {
    this.label = joinLabels(this.label, flatten(tree));
  }
}

const ARGS = new WeakMap<object, LabelTree>();
const RESULTS = new WeakMap<object, Label>();

/** The arguments object `args`, handed to a nested door, is labelled `tree`. */
export function labelArgs(args: object, tree: LabelTree): void {
  ARGS.set(args, tree);
}

/** The labels of the arguments object `args`, when a call handed it on; `undefined` when no call did. */
export function argsLabels(args: unknown): LabelTree | undefined {
  return typeof args === 'object' && args !== null ? ARGS.get(args) : undefined;
}

/** A door's result `result` carries data labelled `label` (all of it joined). */
export function labelResult(result: object, label: Label): void {
  RESULTS.set(result, label);
}

/** What is read inside a run that did not follow labels (a nested door's input, a call's arguments): untrusted, and readable by no one (who may read it was not followed either). */
const UNFOLLOWED = sourceLabel('(a run that did not follow labels)', '', false, []);

/** All a run whose labels `flow` follows has read (a run that follows none: untrusted). */
export function readInRun(flow: RunFlow | undefined): Label {
  return flow?.label ?? UNFOLLOWED;
}

/**
 * The labels of `args`, given inside a run by a caller that did not label them: those a call
 * handed with the same object, else all the run has read.
 */
export function handedInRun(args: unknown, flow: RunFlow | undefined): LabelTree {
  return argsLabels(args) ?? readInRun(flow);
}

/** The label a door gave its result `result`, if any. */
export function resultLabel(result: unknown): Label | undefined {
  return typeof result === 'object' && result !== null ? RESULTS.get(result) : undefined;
}
