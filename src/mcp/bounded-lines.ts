/**
 * A byte stream cut into lines, each line bounded: a line longer than the bound is passed over as
 * it streams, never held whole, and only its size and its two ends (enough to read a JSON-RPC id
 * from) are kept. What is held at any time is at most the bound plus one chunk.
 */

/** What is kept of a line longer than the bound. */
export interface LongLine {
  /** Its full size in bytes (without the newline). */
  bytes: number;
  /** Its first bytes (at most {@link LINE_END_BYTES}). */
  head: Buffer;
  /** Its last bytes (at most {@link LINE_END_BYTES}). */
  tail: Buffer;
}

/** How many bytes of each end of a long line are kept. */
export const LINE_END_BYTES = 512;

const NEWLINE = 0x0a;

/** Cuts the chunks given to `push` into lines: `onLine` for each within the bound, `onLongLine` for each past it. */
export class BoundedLines {
  private parts: Buffer[] = [];
  private size = 0;
  /** The line being passed over, while it is. */
  private long: LongLine | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onLongLine: (line: LongLine) => void,
  ) {}

  /** Take the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, end < 0 ? chunk.length : end));
      if (end < 0) return;
      this.endLine();
      start = end + 1;
    }
  }

  /** Forget what is held (the stream ended or was closed). */
  clear(): void {
    this.parts = [];
    this.size = 0;
    this.long = undefined;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.long) {
      this.long.bytes += piece.length;
      this.long.tail = lastBytes([this.long.tail, piece]);
      return;
    }
    if (this.size + piece.length <= this.maxLineBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // Past the bound: from here on only the count and the ends are kept.
    const held = [...this.parts, piece];
    this.long = { bytes: this.size + piece.length, head: firstBytes(held), tail: lastBytes(held) };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    const long = this.long;
    if (long) {
      this.long = undefined;
      this.onLongLine(long);
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.onLine(line);
  }
}

/** The first {@link LINE_END_BYTES} of the pieces, copied (`concat` copies: a piece may be a view of a large chunk). */
function firstBytes(pieces: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= LINE_END_BYTES) break;
    const part = piece.subarray(0, LINE_END_BYTES - size);
    kept.push(part);
    size += part.length;
  }
  return Buffer.concat(kept, size);
}

/** The last {@link LINE_END_BYTES} of the pieces, copied. */
function lastBytes(pieces: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let at = pieces.length - 1; at >= 0 && size < LINE_END_BYTES; at--) {
    const piece = pieces[at]!;
    const part = piece.subarray(Math.max(0, piece.length - (LINE_END_BYTES - size)));
    kept.unshift(part);
    size += part.length;
  }
  return Buffer.concat(kept, size);
}
