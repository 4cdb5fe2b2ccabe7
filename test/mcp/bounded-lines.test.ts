/**
 * The stdout reader of upstream servers: lines cut from chunks however they fall, a line past the
 * bound passed over while it streams (what is held stays at the bound, not the line's size), and
 * the id of a message read from either end when it cannot be parsed whole.
 */
import { describe, expect, it } from 'vitest';
import { BoundedLines, LINE_END_BYTES, type LongLine } from '../../src/mcp/bounded-lines.js';
import { peekMessage, peekValue } from '../../src/mcp/jsonrpc-peek.js';

function reader(max: number) {
  const lines: string[] = [];
  const long: LongLine[] = [];
  const splitter = new BoundedLines(max, (line) => lines.push(line.toString()), (line) => long.push(line));
  return { splitter, lines, long };
}

describe('BoundedLines', () => {
  it('cuts lines wherever the chunks fall, one byte at a time or many lines at once', () => {
    const text = 'first\nsecond line\n\nthird\n';
    const byByte = reader(100);
    for (const byte of Buffer.from(text)) byByte.splitter.push(Buffer.from([byte]));
    const atOnce = reader(100);
    atOnce.splitter.push(Buffer.from(text));
    expect(byByte.lines).toEqual(['first', 'second line', '', 'third']);
    expect(atOnce.lines).toEqual(byByte.lines);
  });

  it('gives a line of exactly the bound whole, and one byte more as a long line with its size and ends', () => {
    const { splitter, lines, long } = reader(10);
    splitter.push(Buffer.from('0123456789\n01234'));
    splitter.push(Buffer.from('56789X\nafter\n'));
    expect(lines).toEqual(['0123456789', 'after']);
    expect(long).toHaveLength(1);
    expect(long[0]!.bytes).toBe(11);
    expect(long[0]!.head.toString()).toBe('0123456789X');
    expect(long[0]!.tail.toString()).toBe('0123456789X');
  });

  it('passes over a 384 MiB line holding at most the bound: memory stays far under the line, the ends are kept', () => {
    const { splitter, lines, long } = reader(1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    let most = 0;
    splitter.push(Buffer.from('{"result":{"text":"'));
    for (let n = 0; n < 384; n++) {
      // A fresh chunk each time, as a stream gives them: a reader that kept them would hold them all.
      splitter.push(Buffer.alloc(1024 * 1024, 'y'));
      most = Math.max(most, process.memoryUsage().arrayBuffers - before);
    }
    splitter.push(Buffer.from('"},"jsonrpc":"2.0","id":42}\nnext\n'));
    expect(lines).toEqual(['next']);
    expect(long[0]!.bytes).toBe(384 * 1024 * 1024 + '{"result":{"text":"'.length + '"},"jsonrpc":"2.0","id":42}'.length);
    expect(long[0]!.head.length).toBe(LINE_END_BYTES);
    expect(long[0]!.tail.toString()).toMatch(/y"\},"jsonrpc":"2\.0","id":42\}$/u);
    // Chunks not yet collected count too, so the bound is loose; a reader holding the line would pass 384 MiB.
    expect(most).toBeLessThan(128 * 1024 * 1024);
  });
});

describe('peekMessage', () => {
  it('reads the id first (the Python SDK) or last (the TypeScript SDK), and knows an answer', () => {
    expect(peekMessage('{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"cut', '')).toEqual({ kind: 'answer', id: 7 });
    expect(peekMessage('{"result":{"content":[{"type":"text","text":"yyyy', 'yyyy"}]},"jsonrpc":"2.0","id":7}')).toEqual({ kind: 'answer', id: 7 });
    expect(peekMessage('{ "id" : "a-1" , "error" : {"code": 1', '')).toEqual({ kind: 'answer', id: 'a-1' });
  });

  it('does not take an id that belongs to a nested object or to escaped text', () => {
    expect(peekMessage('{"result":{"structuredContent":', '"structuredContent":{"id":5}}}')).toEqual({ kind: 'answer' });
    expect(peekMessage('{"result":{"content":', 'text\\":\\"x\\",\\"id\\":5}')).toEqual({ kind: 'answer' });
  });

  it('tells a request, a notification or text from an answer', () => {
    expect(peekMessage('{"method":"sampling/createMessage","params":{', '"jsonrpc":"2.0","id":0}')).toEqual({ kind: 'other', id: 0 });
    expect(peekMessage('Server started on stdio', 'Server started on stdio')).toEqual({ kind: 'other' });
    expect(peekMessage('{"jsonrpc":"2.0",', '')).toEqual({ kind: 'unknown' });
  });
});

describe('peekValue', () => {
  it('reads a parsed value that is JSON but not JSON-RPC', () => {
    expect(peekValue({ jsonrpc: '2.0', id: 3, result: 'oops' })).toEqual({ kind: 'answer', id: 3 });
    expect(peekValue({ jsonrpc: '2.0', method: 'x', id: 3, params: 1 })).toEqual({ kind: 'other', id: 3 });
    expect(peekValue([1, 2])).toEqual({ kind: 'other' });
  });
});
