/**
 * The bounded preview a stored result leaves in the conversation: whole lines, at most so many
 * bytes and so many lines. A grouped path list previews in its grouped form when that shows
 * more of the original lines in the same room.
 */
import { GROUPED_MARKER, type GroupedUnit } from '../../shaping/path-list-grammar.js';
import { utf8ByteLength } from '../../shaping/utf8.js';
import type { IndexedBody } from './indexed-body.js';
import { bodySource, readPage } from './observation-page.js';

/** The bounds of a preview. */
export interface PreviewLimits {
  /** The most UTF-8 bytes, newlines between lines included. */
  maxBytes: number;
  /** The most lines. */
  maxLines: number;
}

/** A preview and how much of the original it shows. */
export interface Preview {
  /** The preview text (no trailing newline). */
  text: string;
  /** How many original lines, from the first, it shows whole. */
  shown: number;
  /** The first line alone was over the byte bound, and `text` is its start, cut between characters. */
  partial: boolean;
}

/**
 * The first whole lines that fit. When not even the first line fits, its start (cut on a
 * character boundary) is better than nothing: a one-line minified output would otherwise show
 * only a footer.
 */
export async function previewLines(body: IndexedBody, limits: PreviewLimits): Promise<Preview> {
  // A preview is the first page of the body, read as get_observation reads any page.
  const page = await readPage(bodySource(body), { offset: 0, maxLines: limits.maxLines, budgetBytes: limits.maxBytes, mayCut: true });
  if (page.cut) return { text: page.text, shown: 0, partial: page.text !== '' };
  return { text: page.text, shown: page.shown, partial: false };
}

/**
 * The grouped form's marker and first whole units that fit, or `undefined` when not one unit
 * fits beside the marker.
 */
export function previewGroupedUnits(units: Iterable<GroupedUnit>, limits: PreviewLimits): Preview | undefined {
  const taken: string[] = [GROUPED_MARKER];
  let bytes = utf8ByteLength(GROUPED_MARKER);
  let shown = 0;
  for (const unit of units) {
    if (taken.length + unit.lines.length > limits.maxLines) break;
    let size = 0;
    for (const line of unit.lines) size += utf8ByteLength(line) + 1;
    if (bytes + size > limits.maxBytes) break;
    taken.push(...unit.lines);
    bytes += size;
    shown += unit.covers;
  }
  if (shown === 0 || bytes > limits.maxBytes || taken.length > limits.maxLines) return undefined;
  return { text: taken.join('\n'), shown, partial: false };
}

/**
 * The preview that shows more original lines: the plain one, or the grouped one when `units`
 * is given and it shows strictly more (the plain one reads more directly at equal cover).
 */
export async function buildPreview(
  body: IndexedBody,
  units: Iterable<GroupedUnit> | undefined,
  limits: PreviewLimits,
): Promise<Preview> {
  const plain = await previewLines(body, limits);
  const grouped = units ? previewGroupedUnits(units, limits) : undefined;
  return grouped && grouped.shown > plain.shown ? grouped : plain;
}
