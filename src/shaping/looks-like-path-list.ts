/**
 * The wrapper's guess whether an output is a path or match list, so grouping is tried only where
 * it can pay. A wrong guess costs nothing but time: grouping ships only when smaller.
 *
 * It runs on every result the model reads, before any size threshold, on text a tool read from
 * anywhere: so every check here is a single left-to-right scan, linear in the line's length.
 * Patterns with two unbounded quantifiers around a shared character (`[^:]*[./][^:]*`) backtrack
 * quadratically on lines such as `/////… ` and are not used.
 */
import { splitLines } from './text-lines.js';

/** Characters a path line never holds: whitespace, quotes, colons and list or shell punctuation. */
const NOT_IN_PATH = /[\s:'"`,;<>|]/u;
/** Characters a bare file name never holds (anything but `\w`, `.`, `@`, `+`, `-`). */
const NOT_IN_FILE_NAME = /[^\w.@+-]/u;
/** A file extension: 1 to 10 ASCII letters or digits. */
const EXTENSION = /^[A-Za-z0-9]{1,10}$/u;
/** A character that cannot start a match line. */
const NOT_A_MATCH_START = /[\s:]/u;

/** The fewest non-empty lines worth grouping. */
const MIN_LINES = 5;
/** The share of non-empty lines that must look like paths or matches. */
const MIN_SHARE = 0.8;

/** A path with at least one slash and no spaces, quotes or colons (`src/a.ts`, `./x/`, `/etc/hosts`). */
function isPathLine(line: string): boolean {
  return line.includes('/') && !NOT_IN_PATH.test(line);
}

/** A bare file name with an extension (`README.md`): word characters, `.@+-`, not starting with a dot. */
function isFileNameLine(line: string): boolean {
  const dot = line.lastIndexOf('.');
  return dot >= 1 && line[0] !== '.' && !NOT_IN_FILE_NAME.test(line) && EXTENSION.test(line.slice(dot + 1));
}

/** Whether `code` is an ASCII digit's char code. */
function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * A grep -n match or context line (`src/a.ts:12: text`, `a.ts-13-text`): a path part holding a
 * `.` or `/` after its first character and no colon, then `:` or `-`, digits, and `:` or `-`.
 * The separator before the digits is the first colon, or a `-` before it.
 */
function isMatchLine(line: string): boolean {
  if (line === '' || NOT_A_MATCH_START.test(line[0])) return false;
  const colon = line.indexOf(':');
  const end = colon < 0 ? line.length : colon;
  let dot = 1;
  while (dot < end && line[dot] !== '.' && line[dot] !== '/') dot++;
  // Each digit run is scanned once: the next candidate separator lies after it.
  for (let at = dot + 1; at <= end && at < line.length; at++) {
    if (at < end && line[at] !== '-') continue;
    let digit = at + 1;
    while (digit < line.length && isDigitCode(line.charCodeAt(digit))) digit++;
    if (digit > at + 1 && (line[digit] === ':' || line[digit] === '-')) return true;
    at = digit - 1;
  }
  return false;
}

/** Whether one line looks like a path, a file name or a grep match. */
export function isPathLikeLine(line: string): boolean {
  return isPathLine(line) || isFileNameLine(line) || isMatchLine(line);
}

/** {@link looksLikePathList} on text already split into lines. */
export function linesLookLikePathList(lines: readonly string[]): boolean {
  let nonEmpty = 0;
  let pathLike = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    nonEmpty++;
    if (isPathLikeLine(line)) pathLike++;
  }
  return nonEmpty >= MIN_LINES && pathLike >= nonEmpty * MIN_SHARE;
}

/**
 * Whether `text` looks like a path or match list: at least 5 non-empty lines, and at least 80%
 * of them a path (`a/b.ts`, `README.md`) or a grep match (`a/b.ts:12:...`). Linear in the
 * length of `text`, whatever it holds.
 */
export function looksLikePathList(text: string): boolean {
  return linesLookLikePathList(splitLines(text));
}
