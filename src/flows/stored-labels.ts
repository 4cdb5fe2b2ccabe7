/**
 * Labels read back from outside the process: a run journal (memory, Redis, Postgres, DBOS) or an
 * observation store. What comes back is plain JSON that another process, another version of this
 * library or a broken store may have written, so each label is checked whole, field by field and
 * part by part, and copied into fresh objects. Anything malformed anywhere reads as the caller's
 * fallback: never as more trusted, or readable by more, than what was stored. (A label that
 * passed a shallow check could hold a `null` source or a part that is a number, which would make
 * the gate throw later, inside a tool's callback, where nothing answers the call.)
 */
import { MAX_LABEL_SOURCES, sourceLabel, type Label, type LabelSource } from './label.js';
import type { LabelNode, LabelTree } from './label-tree.js';

/** The most labels and nodes one stored tree may hold; a larger one reads as the fallback. */
const MAX_STORED_NODES = 10_000;
/** The deepest a stored tree may nest; a deeper one reads as the fallback. */
const MAX_STORED_DEPTH = 64;

/** What a label the journal holds but that does not read as one reads as: untrusted, and readable by no one. */
export const UNREADABLE_LABEL: Label = sourceLabel('(journal)', 'unreadable label', false, []);

/** A label as stored, checked field by field and copied; `undefined` when it is not one. */
export function readStoredLabel(value: unknown): Label | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { trusted, sources, moreSources, readers } = value as Record<string, unknown>;
  if (typeof trusted !== 'boolean' || !Array.isArray(sources) || !sources.every(isSource)) return undefined;
  if (moreSources !== undefined && !(Number.isSafeInteger(moreSources) && (moreSources as number) >= 0)) return undefined;
  if (readers !== undefined && !(Array.isArray(readers) && readers.every((reader) => typeof reader === 'string'))) return undefined;
  // A label lists a bounded number of sources; any listed past that are counted, as a join counts them.
  const listed = sources.slice(0, MAX_LABEL_SOURCES).map((source: LabelSource) => ({ tool: source.tool, step: source.step }));
  const more = ((moreSources as number | undefined) ?? 0) + (sources.length - listed.length);
  return {
    trusted,
    sources: listed,
    ...(more > 0 ? { moreSources: more } : {}),
    ...(readers !== undefined ? { readers: [...(readers as string[])] } : {}),
  };
}

/**
 * A label tree as stored (one label, or a node of the container's own label and its parts'),
 * checked whole and copied; `fallback` when any part of it is malformed, or it is larger or
 * deeper than a stored tree may be.
 */
export function readStoredTree(value: unknown, fallback: Label): LabelTree {
  return readTree(value, { nodes: 0 }, 0) ?? fallback;
}

/** The tree `value` holds, copied; `undefined` for anything malformed in it. */
function readTree(value: unknown, count: { nodes: number }, depth: number): LabelTree | undefined {
  if (++count.nodes > MAX_STORED_NODES || depth > MAX_STORED_DEPTH) return undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const node = value as Record<string, unknown>;
  if (!('own' in node)) return readStoredLabel(value);
  const own = readStoredLabel(node.own);
  if (own === undefined) return undefined;
  const read: { -readonly [K in keyof LabelNode]: LabelNode[K] } = { own };
  const { fields, items, each } = node;
  if (fields !== undefined) {
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
    const copy: Record<string, LabelTree> = {};
    for (const key of Object.keys(fields)) {
      const part = readTree((fields as Record<string, unknown>)[key], count, depth + 1);
      if (part === undefined) return undefined;
      // Defined, not assigned: a field named `__proto__` is a field like any other.
      Object.defineProperty(copy, key, { value: part, enumerable: true, writable: true, configurable: true });
    }
    read.fields = copy;
  }
  if (items !== undefined) {
    if (!Array.isArray(items)) return undefined;
    const copy: LabelTree[] = [];
    for (const item of items) {
      const part = readTree(item, count, depth + 1);
      if (part === undefined) return undefined;
      copy.push(part);
    }
    read.items = copy;
  }
  if (each !== undefined) {
    const part = readTree(each, count, depth + 1);
    if (part === undefined) return undefined;
    read.each = part;
  }
  return read;
}

function isSource(value: unknown): value is LabelSource {
  if (typeof value !== 'object' || value === null) return false;
  const { tool, step } = value as Record<string, unknown>;
  return typeof tool === 'string' && typeof step === 'string';
}
