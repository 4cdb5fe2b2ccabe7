/**
 * How `toolweave check` compares an example's expected output with the output a dry run gave, and
 * how it shows a mismatch: one line per place that differs (its path, what was expected, what came),
 * each value cut to a readable length, never the whole output as one line of escaped JSON.
 *
 * The rules, the same at every depth:
 * - `{ "$regex": "..." }` (an object with that one key) matches a string the pattern finds
 *   (JavaScript syntax, `u` flag; anchor it with `^` and `$` to match the whole string).
 * - An object matches an object with the same keys, each matching; with `match: 'partial'`, keys
 *   the example leaves out are not compared (only those it gives must be there and match).
 * - An array matches an array of the same length, item by item (in either mode).
 * - Anything else matches an equal value.
 */
import { isDeepStrictEqual } from 'node:util';

/** `exact`: every key compared; `partial`: only the keys the example gives. */
export type MatchMode = 'exact' | 'partial';

/** How much of a value a line shows. */
const SHOWN = 60;
/** How many places a mismatch lists; the rest are counted. */
const MAX_LINES = 20;

/** Every place `actual` differs from `expected`, one line each (`output.a[1].b: expected 1, got 2`); none when they match. */
export function outputDifferences(actual: unknown, expected: unknown, mode: MatchMode): string[] {
  const lines: string[] = [];
  compare(actual, expected, 'output', mode, lines);
  return lines;
}

/** The lines of a mismatch under its header, at most {@link MAX_LINES}, indented under the FAIL line. */
export function describeDifferences(differences: readonly string[]): string {
  const shown = differences.slice(0, MAX_LINES).map((line) => `       ${line}`);
  if (differences.length > MAX_LINES) shown.push(`       ... and ${differences.length - MAX_LINES} more`);
  const places = differences.length === 1 ? '1 place' : `${differences.length} places`;
  return [`the output differs from the one expected in ${places}:`, ...shown].join('\n');
}

function compare(actual: unknown, expected: unknown, at: string, mode: MatchMode, lines: string[]): void {
  const pattern = regexOf(expected);
  if (pattern !== undefined) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, 'u');
    } catch (error) {
      lines.push(`${at}: $regex ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`);
      return;
    }
    if (typeof actual !== 'string' || !regex.test(actual)) lines.push(`${at}: expected a string matching /${JSON.stringify(pattern).slice(1, -1)}/, got ${show(actual)}`);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) {
      lines.push(`${at}: expected ${count(expected.length)}, got ${count(actual.length)}`);
      return;
    }
    expected.forEach((item, i) => compare(actual[i], item, `${at}[${i}]`, mode, lines));
    return;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    // A field that reads `undefined` is no field at all in the output as JSON (as a client sees it).
    for (const key of Object.keys(expected)) {
      const where = `${at}${keyPath(key)}`;
      if (!has(actual, key)) lines.push(`${where}: expected ${show(expected[key])}, got nothing (the output has no such field)`);
      else compare(actual[key], expected[key], where, mode, lines);
    }
    if (mode === 'exact') {
      for (const key of Object.keys(actual)) if (has(actual, key) && !Object.hasOwn(expected, key)) lines.push(`${at}${keyPath(key)}: not expected, got ${show(actual[key])}`);
    }
    return;
  }
  if (isDeepStrictEqual(actual, expected)) return;
  if (typeof actual === 'string' && typeof expected === 'string') {
    lines.push(differentStrings(actual, expected, at));
    return;
  }
  lines.push(`${at}: expected ${show(expected)}, got ${show(actual)}`);
}

/** The pattern of a `{ "$regex": "..." }` matcher, or `undefined` for any other value. */
function regexOf(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$regex' && typeof value.$regex === 'string' ? value.$regex : undefined;
}

/**
 * Two strings that differ: when the first difference is past what a line shows, both are shown
 * from a little before it, so the line shows where they part.
 */
function differentStrings(actual: string, expected: string, at: string): string {
  let first = 0;
  while (first < actual.length && first < expected.length && actual[first] === expected[first]) first++;
  if (first < SHOWN - 10) return `${at}: expected ${show(expected)}, got ${show(actual)}`;
  const from = first - 10;
  return `${at}: expected ${show(expected, from)}, got ${show(actual, from)} (they differ from character ${first + 1})`;
}

/**
 * A value as a line shows it: JSON, cut after {@link SHOWN} characters (a string's own characters,
 * from `from`), with `...` and the whole length where it was cut.
 */
function show(value: unknown, from = 0): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const part = value.slice(from, from + SHOWN);
    const before = from > 0 ? '...' : '';
    return from + SHOWN < value.length ? `${before}${JSON.stringify(part)}... (${value.length} characters)` : `${before}${JSON.stringify(part)}`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}... (${text.length} characters)` : text;
}

/** `.name`, or `["odd key"]` for a key that is not a plain name. */
function keyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/u.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Whether `object` has `key` with a value JSON keeps. */
function has(object: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}

function count(n: number): string {
  return n === 1 ? '1 item' : `${n} items`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
