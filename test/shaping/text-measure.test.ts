import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/shaping/text-lines.js';
import { cutUtf8, utf8ByteLength } from '../../src/shaping/utf8.js';

describe('splitLines', () => {
  it('counts no line in empty text and none after a final newline', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b']);
  });
});

describe('cutUtf8', () => {
  it('never splits a character', () => {
    const text = 'aé日😀b';
    expect(utf8ByteLength(text)).toBe(1 + 2 + 3 + 4 + 1);
    expect(cutUtf8(text, 0)).toBe('');
    expect(cutUtf8(text, 2)).toBe('a');
    expect(cutUtf8(text, 3)).toBe('aé');
    expect(cutUtf8(text, 5)).toBe('aé');
    expect(cutUtf8(text, 6)).toBe('aé日');
    expect(cutUtf8(text, 9)).toBe('aé日');
    expect(cutUtf8(text, 10)).toBe('aé日😀');
    expect(cutUtf8(text, 100)).toBe(text);
  });

  it('measures a lone surrogate as its U+FFFD encoding', () => {
    expect(cutUtf8('\ud800x', 3)).toBe('\ud800');
    expect(utf8ByteLength('\ud800')).toBe(3);
  });
});
