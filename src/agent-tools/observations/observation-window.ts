/**
 * One page of a stored body: whole lines from an offset, bounded by a line count and a byte
 * budget shared by every id of the call.
 */
import { cutUtf8, utf8ByteLength } from '../../shaping/utf8.js';

/** What to read. */
export interface WindowRequest {
  /** The 0-based line to start at. */
  offset: number;
  /** The most lines. */
  maxLines: number;
  /** The most UTF-8 bytes, newlines between lines included. */
  budgetBytes: number;
  /**
   * Whether a first line larger than the budget may be cut (between characters) rather than
   * left out. Only the first window of a call may: a line that does not fit in a later window
   * fits whole in the next call, while one larger than a whole call's budget never would.
   */
  mayCut: boolean;
}

/** A page and its size. */
export interface Window {
  /** The page text (no trailing newline). */
  text: string;
  /** How many lines it holds, counting a cut line. */
  shown: number;
  /** Its UTF-8 size. */
  bytes: number;
  /** Its only line is the start of a line over the budget. */
  cut: boolean;
}

/** Read the lines of `lines` from `request.offset` that fit the request's bounds. */
export function readWindow(lines: readonly string[], request: WindowRequest): Window {
  const taken: string[] = [];
  let bytes = 0;
  for (let index = request.offset; index < lines.length && taken.length < request.maxLines; index++) {
    const size = utf8ByteLength(lines[index]) + (taken.length > 0 ? 1 : 0);
    if (bytes + size > request.budgetBytes) break;
    taken.push(lines[index]);
    bytes += size;
  }
  if (taken.length === 0 && request.mayCut && request.maxLines > 0 && request.offset < lines.length) {
    const start = cutUtf8(lines[request.offset], request.budgetBytes);
    return { text: start, shown: 1, bytes: utf8ByteLength(start), cut: true };
  }
  return { text: taken.join('\n'), shown: taken.length, bytes, cut: false };
}
