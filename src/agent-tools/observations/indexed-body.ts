/**
 * A body as a store keeps it: its UTF-8 bytes and the byte offset where each line starts, worked
 * out once when the body is stored. A page is then a contiguous byte range found from the index,
 * read without splitting (or even holding) the rest of the body.
 */

/**
 * A body and its line index.
 *
 * Line `i` is `utf8[bounds[i], bounds[i + 1] - 1)`: `bounds` has one
 * entry per line and a last one just past the end of the last line, as if a newline followed
 * it. `''` has no lines, and a final newline ends the last line rather than starting an empty one.
 *
 * @category Observations
 */
export interface IndexedBody {
  /** The body, UTF-8 encoded (a lone surrogate is encoded as U+FFFD). */
  readonly utf8: Buffer;
  /** Where each line starts, and one entry past the end of the last (see above). */
  readonly bounds: Uint32Array;
}

/** The newline byte. */
const NEWLINE = 0x0a;

/**
 * Encode `text` and index its lines, in one pass over the bytes.
 *
 * @category Observations
 */
export function indexBody(text: string): IndexedBody {
  const utf8 = Buffer.from(text, 'utf8');
  let newlines = 0;
  for (let at = utf8.indexOf(NEWLINE); at >= 0; at = utf8.indexOf(NEWLINE, at + 1)) newlines++;
  const endsOpen = utf8.length > 0 && utf8[utf8.length - 1] !== NEWLINE;
  const bounds = new Uint32Array(newlines + 1 + (endsOpen ? 1 : 0));
  let line = 1;
  for (let at = utf8.indexOf(NEWLINE); at >= 0; at = utf8.indexOf(NEWLINE, at + 1)) bounds[line++] = at + 1;
  if (endsOpen) bounds[line] = utf8.length + 1;
  return { utf8, bounds };
}

/**
 * How many lines a body has.
 *
 * @category Observations
 */
export function lineCount(body: IndexedBody): number {
  return body.bounds.length - 1;
}
