/**
 * Path and match lists, grouped when that makes them smaller and only then. The grammar is in
 * `path-list-grammar.ts`; which lines share a header is decided in `path-list-grouping.ts`.
 */
import {
  GROUPED_MARKER,
  readGroupedBody,
  writePart,
  writePartUnits,
  type GroupedPart,
  type GroupedUnit,
} from './path-list-grammar.js';
import { planGroupedParts } from './path-list-grouping.js';

/** Preview units wrap inline groups at this many characters, so a preview can stop inside a long group. */
const PREVIEW_LINE_LENGTH = 160;

/**
 * What {@link compressPathList} returns.
 *
 * @category Observations
 */
export interface CompressedPathList {
  /** The text to ship: the grouped form, or the flat `lines.join('\n')`. */
  text: string;
  /** Whether `text` is the grouped form. */
  grouped: boolean;
}

/** A {@link CompressedPathList} that also keeps the grouped body in units a preview can cut between. */
export interface ShapedPathList extends CompressedPathList {
  /**
   * When `grouped`: the grouped body (after the marker) as units a preview can stop between,
   * long inline groups wrapped at 160 characters. Any prefix of them, after the marker, is a
   * valid grouped text of the lines they cover. Written as they are read, so a preview that
   * stops early never pays for the rest.
   */
  units?: Iterable<GroupedUnit>;
}

/** The preview units of `parts`, written one part at a time as they are read. */
function* unitsOf(parts: readonly GroupedPart[]): Generator<GroupedUnit> {
  for (const part of parts) yield* writePartUnits(part, PREVIEW_LINE_LENGTH);
}

/** The length of `lines.join('\n')`, without joining. */
function joinedLength(lines: readonly string[]): number {
  let length = lines.length - 1;
  for (const line of lines) length += line.length;
  return length;
}

/**
 * Whether the flat form cannot stand for these lines. `''` is read back as no lines, a first
 * line equal to the marker would be read as grouped, and a line holding a newline would be read
 * as two: each of these ships grouped (escaped) even when that is longer, the one case where
 * the output grows.
 */
function flatIsAmbiguous(lines: readonly string[]): boolean {
  if (lines.length === 1 && lines[0] === '') return true;
  if (lines[0] === GROUPED_MARKER) return true;
  return lines.some((line) => line.includes('\n'));
}

/**
 * Group a path or match list, keeping the grouped body's units for a preview to cut between.
 * The shipped text is the one {@link compressPathList} returns.
 */
export function shapePathList(lines: readonly string[]): ShapedPathList {
  if (lines.length === 0) return { text: '', grouped: false };
  const parts = planGroupedParts(lines);
  const text = [GROUPED_MARKER, ...parts.flatMap(writePart)].join('\n');
  if (text.length >= joinedLength(lines) && !flatIsAmbiguous(lines)) return { text: lines.join('\n'), grouped: false };
  return { text, grouped: true, units: { [Symbol.iterator]: () => unitsOf(parts) } };
}

/**
 * Group a path or match list so each shared directory is written once, when that is shorter.
 *
 * Group a path list (`src/app/chat/a.ts`, ...) or a grep-style match list
 * (`src/a.ts:12: text`) so each shared prefix is written once, as in
 * `src/app/: chat/a.ts, chat/b.ts, x.ts`. The grouped form (first line `GROUPED_MARKER`) ships
 * only when it is strictly shorter, in characters, than `lines.join('\n')`; otherwise that flat
 * text ships with `grouped: false`. Either way {@link expandPathList} gives back exactly `lines`.
 *
 * The one exception to "never longer": when the flat text cannot stand for the lines (a single
 * empty line, a first line equal to the marker, a line holding `\n`), the grouped form ships.
 *
 * @example
 * ```ts
 * const { text, grouped } = compressPathList(['src/app/a.ts', 'src/app/b.ts', 'src/lib/c.ts']);
 * ```
 *
 * @category Observations
 */
export function compressPathList(lines: readonly string[]): CompressedPathList {
  const { text, grouped } = shapePathList(lines);
  return { text, grouped };
}

/**
 * Read a text from {@link compressPathList} back into its lines.
 *
 * Grouped or flat: a first line
 * equal to the marker means grouped, anything else is a flat list, and `''` is no lines.
 *
 * @example
 * ```ts
 * const lines = expandPathList(compressPathList(paths).text); // every original line, in order
 * ```
 *
 * @category Observations
 */
export function expandPathList(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[0] !== GROUPED_MARKER) return lines;
  return readGroupedBody(lines.slice(1));
}
