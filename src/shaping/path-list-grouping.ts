/**
 * Deciding which consecutive lines share a header. Only consecutive runs are grouped, so the
 * original order survives without recording it.
 *
 * Two kinds of runs: lines of a grep-style match list (`path:12: text`) group under their
 * `path:` when the same file repeats; everything else (and a file matched once) groups under its
 * directory. Neighbouring directory runs then merge under their shared directory when that is
 * cheaper than writing them apart, so `src/app/chat/a.ts, src/app/chat/b.ts, src/app/x.ts`
 * becomes one group under `src/app/`. The merge is greedy, one pass: the result only has to be
 * smaller than the flat list, not optimal.
 *
 * Every step is a scan of a line or of a prefix at most a line long, and a run is a range of line
 * positions (no per-line objects), so planning is linear in the size of the list and cheap.
 */
import { canWriteInline, isUsablePrefix, literalNeedsEscape, type GroupedPart } from './path-list-grammar.js';

/** A run of consecutive lines `[start, end)` sharing one prefix, with the sums its cost needs. */
interface Run {
  /** `file`: a grep match list's repeated path; `dir`: a directory; `none`: never grouped. */
  kind: 'file' | 'dir' | 'none';
  prefix: string;
  start: number;
  end: number;
  /** The sum of the lines' lengths. */
  length: number;
  /** What the lines cost written one per line (escapes and newlines included). */
  literalCost: number;
}

/** Whether `code` is an ASCII digit's char code. */
function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A character that cannot start a match line's path. */
const NOT_A_PATH_START = /[\s:\\]/u;

/**
 * The path part of a grep -n match, colon included (`src/a.ts:` for `src/a.ts:12: x`), or
 * `undefined`: a first character that is not whitespace, `:` or `\`, then up to the first
 * colon, digits and a colon. A line holding a newline is never a match (it is escaped whole).
 */
function matchPrefix(line: string): string | undefined {
  const colon = line.indexOf(':');
  if (colon < 1 || NOT_A_PATH_START.test(line[0]) || line.includes('\n')) return undefined;
  let digit = colon + 1;
  while (digit < line.length && isDigitCode(line.charCodeAt(digit))) digit++;
  return digit > colon + 1 && line[digit] === ':' ? line.slice(0, colon + 1) : undefined;
}

/**
 * The length of the directory part of the path that is the first `pathLength` characters of
 * `line`, slash included (`src/app/` for `src/app/x.ts` and for `src/app/chat/`), or 0. Measured
 * in place: most lines extend the run before them, and need no string of their own.
 */
function directoryLength(line: string, pathLength: number): number {
  // lastIndexOf clamps a negative start to 0 and would still find a slash there.
  if (pathLength < 2) return 0;
  return line.lastIndexOf('/', pathLength - 2) + 1;
}

/** The longest directory (ending in `/`) that both directories start with. */
function sharedDirectory(a: string, b: string): string {
  let index = 0;
  while (index < a.length && index < b.length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  if (index === 0) return '';
  const slash = a.lastIndexOf('/', index - 1);
  return slash < 0 ? '' : a.slice(0, slash + 1);
}

/** What a line costs on its own in the grouped body, its newline included (measured, not written). */
function literalCost(line: string): number {
  return (literalNeedsEscape(line) ? 1 + JSON.stringify(line).length : line.length) + 1;
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
  return groupedCost(run.prefix, run.end - run.start, run.length);
}

/** The cheaper way to write a run. */
function runCost(run: Run): number {
  return run.end - run.start >= 2 ? Math.min(run.literalCost, runGroupedCost(run)) : run.literalCost;
}

/** The directory a one-line `line` groups under (its path being its first `pathLength` characters), or `''`. */
function directoryKey(line: string, pathLength: number): string {
  const directory = line.slice(0, directoryLength(line, pathLength));
  return isUsablePrefix(directory) && directory.length < line.length ? directory : '';
}

/** Whether a one-line `line` (its path being its first `pathLength` characters) groups under `run`'s directory. */
function extendsDirectoryRun(run: Run | undefined, line: string, pathLength: number): run is Run {
  return (
    run?.kind === 'dir' &&
    directoryLength(line, pathLength) === run.prefix.length &&
    run.prefix.length < line.length &&
    line.startsWith(run.prefix)
  );
}

/** The runs of `lines`: repeated match files first, then directories, each a range of positions. */
function collectRuns(lines: readonly string[]): Run[] {
  const runs: Run[] = [];
  let next = matchPrefix(lines[0] ?? '');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const file = next;
    next = index + 1 < lines.length ? matchPrefix(lines[index + 1]) : undefined;
    const last = runs[runs.length - 1];
    const cost = literalCost(line);
    // A match line opens a file run when the next line matches the same file, and extends one
    // that its previous line opened.
    if (file !== undefined && last?.kind === 'file' && last.prefix === file) {
      last.end++;
      last.length += line.length;
      last.literalCost += cost;
      continue;
    }
    if (file !== undefined && next === file) {
      runs.push({ kind: 'file', prefix: file, start: index, end: index + 1, length: line.length, literalCost: cost });
      continue;
    }
    // A line holding a newline is escaped whole: it never joins a group.
    const oneLine = !line.includes('\n');
    const pathLength = file === undefined ? line.length : file.length - 1;
    if (oneLine && extendsDirectoryRun(last, line, pathLength)) {
      last.end++;
      last.length += line.length;
      last.literalCost += cost;
      continue;
    }
    const directory = oneLine ? directoryKey(line, pathLength) : '';
    runs.push({ kind: directory ? 'dir' : 'none', prefix: directory, start: index, end: index + 1, length: line.length, literalCost: cost });
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
      const count = run.end - current.start;
      const length = current.length + run.length;
      const literal = current.literalCost + run.literalCost;
      const together = Math.min(literal, groupedCost(prefix, count, length));
      if (prefix !== '' && together < runCost(current) + runCost(run)) {
        // Runs are this module's own objects and neighbours, so growing one in place is enough.
        current.end = run.end;
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
function planRun(run: Run, lines: readonly string[], parts: GroupedPart[]): void {
  if (run.kind === 'none' || run.end - run.start < 2 || runGroupedCost(run) >= run.literalCost) {
    for (let index = run.start; index < run.end; index++) parts.push({ form: 'literal', line: lines[index] });
    return;
  }
  const entries: string[] = [];
  for (let index = run.start; index < run.end; index++) entries.push(lines[index].slice(run.prefix.length));
  // Inline and block cost the same; inline reads better for paths, block for match lines.
  const form = run.kind === 'dir' && canWriteInline(run.prefix, entries) ? 'inline' : 'block';
  parts.push({ form, prefix: run.prefix, entries });
}

/** Decide how to write `lines` grouped: which consecutive lines share a prefix, and in what form. */
export function planGroupedParts(lines: readonly string[]): GroupedPart[] {
  const parts: GroupedPart[] = [];
  for (const run of mergeRuns(collectRuns(lines))) planRun(run, lines, parts);
  return parts;
}
