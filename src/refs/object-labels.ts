/**
 * The labels of an object a mapping writes: its own label is the mapping's (the spec's literals, or
 * the model's text), each field its own. Labels never change once made, so the same labels in gives
 * the same tree out, and a step run again on the labels it had last time (every step of a run
 * repeated in a session whose label is unchanged) hands the same tree object again: the gate then
 * knows, by identity alone, that it has labelled that step's output before.
 */
import type { LabelNode, LabelTree } from '../flows/label-tree.js';
import type { LabelAccessor, LabelRead, LabelScope } from '../flows/label-scope.js';

/** What the labels of one field are read by: always its accessor, and, for a plain reference or a literal, its root and what is found from it. */
export interface FieldLabels {
  labels: LabelAccessor;
  read?: LabelRead;
}

/** The labels of an object the mapping writes with `keys`, whose fields' labels are read by `fields` (in the same order). */
export function objectLabels(keys: readonly string[], fields: readonly FieldLabels[]): LabelAccessor {
  // Without a `__proto__` key, plain assignment writes each field (defining each cost more than
  // the rest of a label's work).
  const write = keys.includes('__proto__') ? defineField : setField;
  const reads = fields.map((field) => field.read);
  if (reads.every((read) => read !== undefined)) {
    return reads.length === 1 ? oneRead(keys[0], reads[0]!, write) : byRoots(keys, reads as LabelRead[], write);
  }
  return byParts(
    keys,
    fields.map((field) => field.labels),
    write,
  );
}

/**
 * An object of one field that is a plain reference or a literal (`{ n: '$prev.n' }`): the last tree
 * again while its root's tree and the mapping's own label are the same objects, so a step run again
 * on what it read last time reads two fields and compares them. (`byRoots` written out for one
 * field: folding it into `byRoots` cost the 20-step chain with labels about 1,200 instructions per run.)
 */
function oneRead(key: string, read: LabelRead, write: FieldWriter): LabelAccessor {
  const { root, from } = read;
  let lastRoot: LabelTree | undefined;
  let last: LabelNode | undefined;
  return (l) => {
    const tree = root(l);
    if (tree === lastRoot && last !== undefined && last.own === l.literal) return last;
    const fields: Record<string, LabelTree> = {};
    write(fields, key, from(tree));
    lastRoot = tree;
    return (last = { own: l.literal, fields });
  };
}

/** An object whose every field is a plain reference or a literal: the last tree again while every root's tree and the mapping's own label are the same objects. */
function byRoots(keys: readonly string[], reads: readonly LabelRead[], write: FieldWriter): LabelAccessor {
  const n = keys.length;
  const lastRoots = new Array<LabelTree | undefined>(n);
  let last: LabelNode | undefined;
  return (l) => {
    if (last !== undefined && last.own === l.literal && sameRoots(reads, lastRoots, l)) return last;
    // Forgotten first: roots noted by a build that did not finish never pass for the last tree's.
    last = undefined;
    const fields: Record<string, LabelTree> = {};
    for (let i = 0; i < n; i++) {
      const tree = reads[i].root(l);
      lastRoots[i] = tree;
      write(fields, keys[i], reads[i].from(tree));
    }
    return (last = { own: l.literal, fields });
  };
}

/** Whether each root reads in `l` the tree it read last time. */
function sameRoots(reads: readonly LabelRead[], lastRoots: readonly (LabelTree | undefined)[], l: LabelScope): boolean {
  for (let i = 0; i < reads.length; i++) if (reads[i].root(l) !== lastRoots[i]) return false;
  return true;
}

/** Any other object (a field that is a template, a nested object or list): the last tree again while each field's labels are the same objects. */
function byParts(keys: readonly string[], labels: readonly LabelAccessor[], write: FieldWriter): LabelAccessor {
  const lastParts: LabelTree[] = new Array<LabelTree>(keys.length);
  let last: LabelNode | undefined;
  return (l) => {
    let same = last !== undefined && last.own === l.literal;
    for (let i = 0; i < keys.length; i++) {
      const part = labels[i](l);
      if (part !== lastParts[i]) {
        lastParts[i] = part;
        same = false;
        // Forgotten at once: parts noted by a build that does not finish never pass for the last tree's.
        last = undefined;
      }
    }
    if (same) return last!;
    const fields: Record<string, LabelTree> = {};
    for (let i = 0; i < keys.length; i++) write(fields, keys[i], lastParts[i]);
    return (last = { own: l.literal, fields });
  };
}

type FieldWriter = (fields: Record<string, LabelTree>, key: string, label: LabelTree) => void;

function setField(fields: Record<string, LabelTree>, key: string, label: LabelTree): void {
  fields[key] = label;
}

function defineField(fields: Record<string, LabelTree>, key: string, label: LabelTree): void {
  Object.defineProperty(fields, key, { value: label, enumerable: true, writable: true, configurable: true });
}
