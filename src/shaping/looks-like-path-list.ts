/**
 * The wrapper's guess whether an output is a path or match list, so grouping is tried only where
 * it can pay. A wrong guess costs nothing but time: grouping ships only when smaller.
 */
import { splitLines } from './text-lines.js';

/** A path with at least one slash and no spaces, quotes or colons (`src/a.ts`, `./x/`, `/etc/hosts`). */
const PATH_LINE = /^[^\s:'"`,;<>|]*\/[^\s:'"`,;<>|]*$/;
/** A bare file name with an extension (`README.md`). */
const FILE_NAME_LINE = /^[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,10}$/;
/** A grep -n match or context line (`src/a.ts:12: text`, `a.ts-13-text`). */
const MATCH_LINE = /^[^\s:][^:]*[./][^:]*[:-]\d+[:-]/;

/** The fewest non-empty lines worth grouping. */
const MIN_LINES = 5;
/** The share of non-empty lines that must look like paths or matches. */
const MIN_SHARE = 0.8;

/**
 * Whether `text` looks like a path or match list: at least 5 non-empty lines, and at least 80%
 * of them a path (`a/b.ts`, `README.md`) or a grep match (`a/b.ts:12:...`).
 */
export function looksLikePathList(text: string): boolean {
  const lines = splitLines(text).filter((line) => line.trim() !== '');
  if (lines.length < MIN_LINES) return false;
  let pathLike = 0;
  for (const line of lines) {
    if (PATH_LINE.test(line) || FILE_NAME_LINE.test(line) || MATCH_LINE.test(line)) pathLike++;
  }
  return pathLike >= lines.length * MIN_SHARE;
}
