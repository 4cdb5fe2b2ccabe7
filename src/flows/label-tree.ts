/**
 * Labels finer than a value: a label tree follows the shape of a value where its parts came from
 * different places. A node's own label is the container's (which fields or items exist), and is
 * joined into every part read from it, because which items exist is the choice of whoever wrote
 * the list. A part no node names has the container's label.
 */
import { isNeutral, joinLabels, sourceLabel, TRUSTED, type Label } from './label.js';

/** A node of a label tree: the container's label, and the labels of its parts where they differ. */
export interface LabelNode {
  /** The container's own label. */
  readonly own: Label;
  /** The labels of named fields. */
  readonly fields?: Readonly<Record<string, LabelTree>>;
  /** The labels of items, by position. */
  readonly items?: readonly LabelTree[];
  /** The label of every item or field `fields` and `items` do not name. */
  readonly each?: LabelTree;
}

/** A value's labels: one label for all of it, or a node. */
export type LabelTree = Label | LabelNode;

/** Whether `tree` is a node (else one label for all of the value). */
export function isNode(tree: LabelTree): tree is LabelNode {
  return (tree as LabelNode).own !== undefined;
}

/** The container's own label of a value labelled `tree` (one label for all of it: that one). */
export function ownLabel(tree: LabelTree): Label {
  return isNode(tree) ? tree.own : tree;
}

/** The label of the part `key` (a field name or an item's position) of a value labelled `tree`, the container's joined in. */
export function partOf(tree: LabelTree, key: string | number): LabelTree {
  if (!isNode(tree)) return tree;
  const fields = tree.fields;
  const field = String(key);
  // An item is read by its number or by the digits that name it (`$prev.0`, `$prev['0']` read item 0).
  const index = typeof key === 'number' ? key : tree.items !== undefined && String(Number(key)) === key ? Number(key) : undefined;
  const named = (index !== undefined ? tree.items?.[index] : undefined) ?? (fields !== undefined && Object.hasOwn(fields, field) ? fields[field] : undefined);
  const part = named ?? tree.each;
  return part === undefined ? tree.own : joinTree(part, tree.own);
}

/** The most nodes {@link flatten} looks at. */
const MAX_NODES = 10_000;
/**
 * What a tree larger than {@link MAX_NODES} adds for the parts past the bound: untrusted and
 * readable by no one, since nothing was read of them (the parts left are the walk's last, which
 * may be a list's first items).
 */
const PAST_THE_BOUND: Label = sourceLabel('(labels)', `past ${MAX_NODES} parts`, false, []);

/** The one label of all of a value labelled `tree`: every part's joined (what a template, a count or a filter over it carries). */
export function flatten(tree: LabelTree): Label {
  if (!isNode(tree)) return tree;
  return flatFields(tree) ?? flattenAll(tree);
}

/** The common node, an object whose fields are plain labels, flattened without a walk; `undefined` for any other. */
function flatFields(tree: LabelNode): Label | undefined {
  const fields = tree.fields;
  if (fields === undefined || tree.items !== undefined || tree.each !== undefined) return undefined;
  let label = tree.own;
  for (const key in fields) {
    const field = fields[key];
    if (isNode(field)) return undefined;
    label = joinLabels(label, field);
  }
  return label;
}

function flattenAll(tree: LabelNode): Label {
  let label = TRUSTED;
  const stack: LabelTree[] = [tree];
  let seen = 0;
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (++seen > MAX_NODES) return joinLabels(label, PAST_THE_BOUND);
    if (!isNode(next)) {
      label = joinLabels(label, next);
      continue;
    }
    label = joinLabels(label, next.own);
    if (next.fields !== undefined) for (const key of Object.keys(next.fields)) stack.push(next.fields[key]);
    if (next.items !== undefined) for (const item of next.items) stack.push(item);
    if (next.each !== undefined) stack.push(next.each);
  }
  return label;
}

/** `tree` with `label` joined into every label in it. */
export function joinTree(tree: LabelTree, label: Label): LabelTree {
  if (!isNode(tree)) return joinLabels(tree, label);
  if (isNeutral(label)) return tree;
  const fields = tree.fields;
  return {
    own: joinLabels(tree.own, label),
    ...(fields !== undefined ? { fields: Object.fromEntries(Object.keys(fields).map((key) => [key, joinTree(fields[key], label)])) } : {}),
    ...(tree.items !== undefined ? { items: tree.items.map((item) => joinTree(item, label)) } : {}),
    ...(tree.each !== undefined ? { each: joinTree(tree.each, label) } : {}),
  };
}

/**
 * The tree of an output whose container is labelled `own` and whose parts at `paths` are labelled
 * `part`. A path is dotted field names, `*` standing for every item or field (`*.subject`: the
 * subject of every item of a list).
 */
export function treeWithParts(own: Label, paths: readonly string[], part: Label): LabelTree {
  let tree: LabelTree = own;
  for (const path of paths) tree = withPart(tree, own, path.split('.').filter((s) => s !== ''), part);
  return tree;
}

function withPart(tree: LabelTree, own: Label, segments: readonly string[], part: Label): LabelTree {
  if (segments.length === 0) return part;
  const node: LabelNode = isNode(tree) ? tree : { own: tree };
  const [head, ...rest] = segments;
  if (head === '*') return { ...node, each: withPart(node.each ?? own, own, rest, part) };
  const fields = node.fields ?? {};
  const current = Object.hasOwn(fields, head) ? fields[head] : own;
  const next: Record<string, LabelTree> = { ...fields };
  Object.defineProperty(next, head, { value: withPart(current, own, rest, part), enumerable: true, writable: true, configurable: true });
  return { ...node, fields: next };
}

/**
 * The label of what is found at `path` in a value labelled `tree` (each container's own label
 * joined in, as {@link partOf} does): all of it joined, or with `ownOnly` only which fields and
 * items it has (its own label). A segment `*` stands for any item or field: every part's joined. A
 * segment of digits reads an item, or the field of that name.
 */
export function labelAtPath(tree: LabelTree, path: readonly string[], ownOnly = false, from = 0): Label {
  if (from === path.length) return ownOnly ? ownLabel(tree) : flatten(tree);
  if (!isNode(tree)) return tree;
  const segment = path[from];
  // The segment as written: partOf reads an item by the digits that name it, and a field named by
  // other digits (`01`, or a number too large to be exact) by its own name, not by the item it rounds to.
  if (segment !== '*') return labelAtPath(partOf(tree, segment), path, ownOnly, from + 1);
  // Any part: each named one, and what any part not named has (the container's own when nothing is said of it).
  let label = tree.own;
  const parts: LabelTree[] = [...(tree.items ?? []), ...(tree.fields !== undefined ? Object.values(tree.fields) : []), tree.each ?? tree.own];
  for (const part of parts) label = joinLabels(label, labelAtPath(joinTree(part, tree.own), path, ownOnly, from + 1));
  return label;
}
