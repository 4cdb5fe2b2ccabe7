/**
 * One page of a stored body: whole lines from an offset, bounded by a line count and a byte
 * budget shared by every id of a call. The page is planned from the line index alone, then its
 * bytes are read as one range, so a page costs the same at the start and at the end of a body,
 * in memory or in a remote store.
 */
import { wholeCharacterLength } from '../../shaping/utf8.js';
import type { IndexedBody } from './indexed-body.js';

/**
 * Which page of a body to read: where it starts and how much it may hold.
 *
 * @category Observations
 */
export interface ObservationPageRequest {
  /** The 0-based line to start at. */
  offset: number;
  /** The most lines. */
  maxLines: number;
  /** The most UTF-8 bytes, newlines between lines included. */
  budgetBytes: number;
  /**
   * Whether a first line larger than the budget may be cut (between characters) rather than
   * left out. Only the first page of a call may: a line that does not fit in a later page fits
   * whole in the next call, while one larger than a whole call's budget never would.
   */
  mayCut: boolean;
}

/**
 * A page and its size.
 *
 * @category Observations
 */
export interface ObservationPage {
  /** The page text (no trailing newline). */
  text: string;
  /** How many lines it holds, counting a cut line. */
  shown: number;
  /** Its UTF-8 size. */
  bytes: number;
  /** Its only line is the start of a line over the budget. */
  cut: boolean;
}

/**
 * Where a page is read from: a body's line count, a slice of its line index, and a range of its
 * bytes.
 *
 * Each read may answer at once or with a promise (a remote store reads ranges).
 *
 * @category Observations
 */
export interface PageSource {
  /** How many lines the body has. */
  lines: number;
  /** The index entries `from` to `to`, both included (see {@link IndexedBody.bounds}). */
  bounds(from: number, to: number): ArrayLike<number> | Promise<ArrayLike<number>>;
  /** The body's bytes from `start` up to, not including, `end`. */
  bytes(start: number, end: number): Uint8Array | Promise<Uint8Array>;
}

/** The page of nothing. */
const EMPTY_PAGE: ObservationPage = { text: '', shown: 0, bytes: 0, cut: false };

/** Decode UTF-8 bytes. */
function decode(bytes: Uint8Array, length = bytes.length): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('utf8');
}

/**
 * Read one page of a body from any {@link PageSource}: what a store's `read` answers with.
 *
 * Read the page `request` asks for: as many whole lines from its offset as fit its bounds, or,
 * when not even the first fits and `mayCut` allows, that line's start cut between characters.
 * Reads the index for at most `maxLines + 1` lines and the bytes of the page only.
 *
 * @category Observations
 */
export async function readPage(source: PageSource, request: ObservationPageRequest): Promise<ObservationPage> {
  const count = Math.min(request.maxLines, source.lines - request.offset);
  if (count <= 0 || request.offset < 0) return EMPTY_PAGE;
  const bounds = await source.bounds(request.offset, request.offset + count);
  const start = bounds[0];
  let shown = 0;
  while (shown < count && bounds[shown + 1] - 1 - start <= request.budgetBytes) shown++;
  if (shown > 0) {
    const end = bounds[shown] - 1;
    return { text: decode(await source.bytes(start, end)), shown, bytes: end - start, cut: false };
  }
  if (!request.mayCut) return EMPTY_PAGE;
  const lineEnd = bounds[1] - 1;
  const head = await source.bytes(start, Math.min(lineEnd, start + Math.max(0, request.budgetBytes)));
  const kept = wholeCharacterLength(head);
  return { text: decode(head, kept), shown: 1, bytes: kept, cut: true };
}

/**
 * A {@link PageSource} over a body held in memory.
 *
 * @category Observations
 */
export function bodySource(body: IndexedBody): PageSource {
  return {
    lines: body.bounds.length - 1,
    bounds: (from, to) => body.bounds.subarray(from, to + 1),
    bytes: (start, end) => body.utf8.subarray(start, end),
  };
}
