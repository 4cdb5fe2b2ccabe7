/**
 * Pages are planned from the line index and read as one byte range. They must be exactly the
 * pages the straightforward reading gives: split the text into lines, take whole lines while
 * they fit, else cut the first between characters.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexBody, lineCount } from '../../../src/agent-tools/observations/indexed-body.js';
import { bodySource, readPage, type ObservationPage, type ObservationPageRequest } from '../../../src/agent-tools/observations/observation-page.js';
import { splitLines } from '../../../src/shaping/text-lines.js';
import { cutUtf8, utf8ByteLength } from '../../../src/shaping/utf8.js';

/** The straightforward reading, over the split lines. */
function referencePage(lines: readonly string[], request: ObservationPageRequest): ObservationPage {
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

/** Text without lone surrogates (UTF-8 cannot carry them; they are stored as U+FFFD). */
const text = fc.array(
  fc.oneof(fc.constantFrom('\n', '\n\n', 'a', 'é', '日本', '😀', ' ', '\r\n', ''), fc.string({ maxLength: 12 })),
  { maxLength: 30 },
).map((parts) => parts.join(''));

describe('indexBody', () => {
  it('counts lines as splitLines does', () => {
    for (const sample of ['', '\n', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n\n', 'a\n\nb\n\n']) {
      expect(lineCount(indexBody(sample)), JSON.stringify(sample)).toBe(splitLines(sample).length);
    }
    fc.assert(fc.property(text, (sample) => {
      expect(lineCount(indexBody(sample))).toBe(splitLines(sample).length);
    }));
  });
});

describe('readPage', () => {
  it('gives exactly the page the straightforward reading gives', async () => {
    const request = fc.record({
      offset: fc.nat(12),
      maxLines: fc.integer({ min: 0, max: 10 }),
      budgetBytes: fc.integer({ min: 0, max: 40 }),
      mayCut: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(text, request, async (sample, page) => {
        expect(await readPage(bodySource(indexBody(sample)), page)).toEqual(referencePage(splitLines(sample), page));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads only the index entries and bytes of the page, wherever it is in the body', async () => {
    const lines = Array.from({ length: 100_000 }, (_, index) => `line ${index}`);
    const body = indexBody(lines.join('\n'));
    const reads: number[] = [];
    const source = bodySource(body);
    const counting = {
      lines: source.lines,
      bounds: (from: number, to: number) => {
        reads.push(to - from + 1);
        return source.bounds(from, to);
      },
      bytes: (start: number, end: number) => {
        reads.push(end - start);
        return source.bytes(start, end);
      },
    };
    const page = await readPage(counting, { offset: 99_990, maxLines: 80, budgetBytes: 50_000, mayCut: true });
    expect(page.text).toBe(lines.slice(99_990).join('\n'));
    expect(reads).toEqual([11, utf8ByteLength(page.text)]);
  });
});
