/**
 * What a mapping's labels are read from while a plan runs: the labels of everything its references
 * can see (the input, the outputs so far, the item), beside the values themselves (`RefScope`), and
 * the label of the mapping's own literals (the host's, in a spec; the model's, in what a model sent).
 */
import { TRUSTED, type Label } from './label.js';
import { partOf, type LabelTree } from './label-tree.js';
import { NoNames } from '../refs/no-names.js';

/** The labels beside a `RefScope`. */
export interface LabelScope {
  /** The input's. */
  input: LabelTree;
  /** The previous output's. */
  prev: LabelTree;
  /** The top-level outputs' so far, by position. */
  steps: LabelTree[];
  /** The named outputs' so far, by name. */
  named: Map<string, LabelTree>;
  /** The current item's, inside a for_each template. */
  item?: LabelTree;
  /** The current index's (the list's own label: which items there are), inside a for_each template. */
  index?: LabelTree;
  /** The label of what the mapping itself writes: the spec's literals, or the text a model sent. */
  literal: Label;
}

/** The labels of what a compiled mapping resolves to. */
export type LabelAccessor = (labels: LabelScope) => LabelTree;

/**
 * How a reference's labels are read, in two parts: the tree of its root in the scope (`root`),
 * then what is found from it (`from`, a function of that tree alone). Labels never change once
 * made, so the same root tree always gives the same labels: a mapping of such references knows
 * its labels are those it made last time when each root is the same object (see `object-labels.ts`).
 */
export interface LabelRead {
  readonly root: (labels: LabelScope) => LabelTree;
  readonly from: (root: LabelTree) => LabelTree;
}

/** The label of a value read from a root down `segments` (each container's own label joined in). */
export function labelWalk(segments: readonly (string | number)[]): (root: LabelTree) => LabelTree {
  return (root) => {
    let tree = root;
    for (const segment of segments) tree = partOf(tree, segment);
    return tree;
  };
}

/** The `named` labels of every run whose values' `named` map is a shared empty one: it stays empty too. */
const NO_NAMED_LABELS: Map<string, LabelTree> = new NoNames<LabelTree>();

/**
 * A scope with nothing read yet, whose literals and input are labelled `input`. `named` is the
 * map of the values' names beside it: a run that can record none (its map is a shared empty
 * one) shares an empty map of labels too, rather than making one.
 */
export function labelScopeOf(input: LabelTree, literal: Label = TRUSTED, named?: ReadonlyMap<string, unknown>): LabelScope {
  return { input, prev: TRUSTED, steps: [], named: named instanceof NoNames ? NO_NAMED_LABELS : new Map(), literal };
}
