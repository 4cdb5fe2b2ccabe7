/**
 * Deciding which consecutive lines share a header. Only consecutive runs are grouped, so the
 * original order survives without recording it.
 *
 * Two kinds of runs: lines of a grep-style match list (`path:12: text`) group under their
 * `path:` when the same file repeats; everything else (and a file matched once) groups under its
 * directory. Neighbouring directory runs then merge under their shared directory when that is
 * cheaper than writing them apart, so `src/app/chat/a.ts, src/app/chat/b.ts, src/app/x.ts`
 * becomes one group under `src/app/`. The merge is greedy, one pass, O(lines): the result only
 * has to be smaller than the flat list, not optimal.
 */
import { canWriteInline, isUsablePrefix, writeLiteral, type GroupedPart } from './path-list-grammar.js';

/** `path:12:` at the start of a line: the path part of a grep -n match (group 1 keeps the colon). */
const MATCH_PREFIX = /^([^\s:\\][^:\n]*:)\d+:/;

/** A run of consecutive lines sharing one prefix, with the sums its cost needs. */
interface Run {
  /** `file`: a grep match list's repeated path; `dir`: a directory; `none`: never grouped. */
  kind: 'file' | 'dir' | 'none';
  prefix: string;
  lines: string[];
  /** The sum of the lines' lengths. */
  length: number;
  /** What the lines cost written one per line (escapes and newlines included). */
  literalCost: number;
}

/** The directory part of a path, slash included (`src/app/` for `src/app/x.ts` and for `src/app/chat/`). */
function directoryOf(path: string): string {
  // lastIndexOf clamps a negative start to 0 and would still find a slash there.
  if (path.length < 2) return '';
  const slash = path.lastIndexOf('/', path.length - 2);
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

/** The longest directory (ending in `/`) that both directories start with. */
function sharedDirectory(a: string, b: string): string {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  if (index === 0) return '';
  const slash = a.lastIndexOf('/', index - 1);
  return slash < 0 ? '' : a.slice(0, slash + 1);
}

/** What a line costs on its own in the grouped body, its newline included. */
function literalCost(line: string): number {
  return writeLiteral(line).length + 1;
}

/**
 * What a group costs written grouped, its newlines included. Inline (`P: e1, e2`) and block
 * (`P` then ` e1`, ` e2`) cost the same: the prefix once, plus each entry with two characters.
 */
function groupedCost(prefix: string, count: number, length: number): number {
  return length - (count - 1) * prefix.length + 2 * count + 1;
}

/** What a run costs written as one group. */
function runGroupedCost(run: Run): number {
  return groupedCost(run.prefix, run.lines.length, run.length);
}

/** The cheaper way to write a run. */
function runCost(run: Run): number {
  return run.lines.length >= 2 ? Math.min(run.literalCost, runGroupedCost(run)) : run.literalCost;
}

/** A run holding one line. */
function singleRun(kind: Run['kind'], prefix: string, line: string): Run {
  return { kind, prefix, lines: [line], length: line.length, literalCost: literalCost(line) };
}

/** Add a line to a run that shares its prefix. */
function extend(run: Run, line: string): void {
  run.lines.push(line);
  run.length += line.length;
  run.literalCost += literalCost(line);
}

/** The directory a line groups under, or `''` when it cannot head a group. */
function directoryKey(line: string): string {
  const match = MATCH_PREFIX.exec(line);
  const path = match ? match[1].slice(0, -1) : line;
  const directory = directoryOf(path);
  return isUsablePrefix(directory) && directory.length < line.length ? directory : '';
}

/** First pass: runs of the same matched file, then runs of the same directory. */
function collectRuns(lines: readonly string[]): Run[] {
  const fileRuns: Run[] = [];
  for (const line of lines) {
    const match = line.includes('\n') ? null : MATCH_PREFIX.exec(line);
    const last = fileRuns[fileRuns.length - 1];
    if (match && last?.kind === 'file' && last.prefix === match[1]) extend(last, line);
    else fileRuns.push(singleRun(match ? 'file' : 'none', match ? match[1] : '', line));
  }
  const runs: Run[] = [];
  for (const run of fileRuns) {
    if (run.lines.length >= 2) {
      runs.push(run);
      continue;
    }
    const line = run.lines[0];
    const directory = line.includes('\n') ? '' : directoryKey(line);
    const last = runs[runs.length - 1];
    if (directory && last?.kind === 'dir' && last.prefix === directory) extend(last, line);
    else runs.push(singleRun(directory ? 'dir' : 'none', directory, line));
  }
  return runs;
}

/** Second pass: merge neighbouring directory runs under their shared directory while it pays. */
function mergeRuns(runs: readonly Run[]): Run[] {
  const merged: Run[] = [];
  let current: Run | undefined;
  for (const run of runs) {
    if (current?.kind === 'dir' && run.kind === 'dir') {
      const prefix = sharedDirectory(current.prefix, run.prefix);
      const count = current.lines.length + run.lines.length;
      const length = current.length + run.length;
      const literal = current.literalCost + run.literalCost;
      const together = Math.min(literal, groupedCost(prefix, count, length));
      if (prefix !== '' && together < runCost(current) + runCost(run)) {
        // Runs are this module's own objects, so growing one in place keeps the pass linear.
        for (const line of run.lines) current.lines.push(line);
        current.prefix = prefix;
        current.length = length;
        current.literalCost = literal;
        continue;
      }
    }
    if (current) merged.push(current);
    current = run;
  }
  if (current) merged.push(current);
  return merged;
}

/** Plan one run as the cheapest of: literals, an inline group, a block group. */
function planRun(run: Run): GroupedPart[] {
  if (run.kind === 'none' || run.lines.length < 2 || runGroupedCost(run) >= run.literalCost) {
    return run.lines.map((line) => ({ form: 'literal', line }));
  }
  const entries = run.lines.map((line) => line.slice(run.prefix.length));
  // Inline and block cost the same; inline reads better for paths, block for match lines.
  const form = run.kind === 'dir' && canWriteInline(run.prefix, entries) ? 'inline' : 'block';
  return [{ form, prefix: run.prefix, entries }];
}

/** Decide how to write `lines` grouped: which consecutive lines share a prefix, and in what form. */
export function planGroupedParts(lines: readonly string[]): GroupedPart[] {
  return mergeRuns(collectRuns(lines)).flatMap(planRun);
}
