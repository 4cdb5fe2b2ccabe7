/**
 * The references a model writes in run_pipeline's string args: `${step_2.output}`,
 * `${fetch.output}`, and paths into an object output (`${fetch.output.user.id}`,
 * `${step_1.output.items[0]}`). Each that names an earlier step becomes a hole of the engine;
 * one that names a later or unknown step stays as written (as a pipeline has always done), and is
 * reported, so the model can see its typo instead of a tool called with the raw text.
 */
import { compileWalk, parseDottedPath } from '../refs/path.js';
import type { Hole } from '../refs/scope.js';
import { TRUSTED } from '../flows/label.js';
import { labelWalk } from '../flows/label-scope.js';

/** A reference the model wrote that was left as written, and why. */
export interface UnresolvedReference {
  /** The step whose args hold it. */
  step: string;
  /** The reference, as written. */
  reference: string;
  /** Why it was not filled. */
  reason: string;
}

/** `${<id>.output<path>}`, with spaces allowed inside the braces. */
const REFERENCE = /\$\{\s*([^\s.{}[\]]+)\.output((?:\.[^\s.{}[\]]+|\[\d+\])*)\s*\}/g;

/** The most values one step's args are searched through (a model's args are small; this bounds a hostile or cyclic one). */
const MAX_VALUES = 10_000;

/**
 * The holes for step `index`'s args, by their exact text, the references left as written, and
 * the earlier steps the holes read (what `schedule: 'auto'` waits for).
 *
 * @param args - the step's args, as the model sent them
 * @param index - the step's position (0-based)
 * @param ids - every step's id, in order
 */
export function stepReferences(
  args: unknown,
  index: number,
  ids: readonly string[],
): { holes: Map<string, Hole>; unresolved: UnresolvedReference[]; reads: Set<number> } {
  const holes = new Map<string, Hole>();
  const unresolved: UnresolvedReference[] = [];
  const reads = new Set<number>();
  for (const text of stringsIn(args)) {
    for (const match of text.matchAll(REFERENCE)) {
      const [written, ref, path] = match;
      if (holes.has(written)) continue;
      const target = targetOf(ref, ids);
      if (target < 0) {
        unresolved.push({ step: ids[index], reference: written, reason: `no step is named "${ref}"` });
        continue;
      }
      if (target >= index) {
        unresolved.push({ step: ids[index], reference: written, reason: target === index ? 'a step cannot read its own output' : `"${ref}" runs later` });
        continue;
      }
      const parsed = parseDottedPath(path);
      if (!parsed.ok) {
        unresolved.push({ step: ids[index], reference: written, reason: parsed.problem });
        continue;
      }
      const walk = compileWalk(parsed.segments);
      const labelsOf = labelWalk(parsed.segments);
      reads.add(target);
      holes.set(written, {
        read: (scope) => {
          try {
            return walk(scope.steps[target]);
          } catch {
            return undefined;
          }
        },
        labels: (l) => labelsOf(l.steps[target] ?? TRUSTED),
      });
    }
  }
  return { holes, unresolved, reads };
}

/** The step a reference names: `step_N` by position, else by id; -1 when none. */
function targetOf(ref: string, ids: readonly string[]): number {
  const byId = ids.indexOf(ref);
  if (byId >= 0) return byId;
  const positional = /^step_(\d+)$/.exec(ref);
  if (!positional) return -1;
  const n = Number(positional[1]);
  return n >= 1 && n <= ids.length ? n - 1 : -1;
}

/** Every string value in a JSON value that may hold a reference, bounded. */
function* stringsIn(value: unknown): Generator<string> {
  // In the order written, level by level.
  const queue: unknown[] = [value];
  for (let head = 0; head < queue.length && head < MAX_VALUES; head++) {
    const next = queue[head];
    if (typeof next === 'string') {
      if (next.includes('${')) yield next;
    } else if (Array.isArray(next)) {
      for (const item of next) queue.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const item of Object.values(next)) queue.push(item);
    }
  }
}

/** The note under a pipeline's text when references were left as written. */
export function unresolvedNote(unresolved: readonly UnresolvedReference[]): string {
  return `note: left as written: ${unresolved.map((u) => `${u.reference} in ${u.step} (${u.reason})`).join('; ')}`;
}
