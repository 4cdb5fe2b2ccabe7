import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPathLikeLine, looksLikePathList } from '../../src/shaping/looks-like-path-list.js';

/**
 * The patterns the line checks replace: right on short lines, quadratic on long hostile ones.
 * Kept here as the reference the linear checks must agree with.
 */
const REFERENCE = [
  /^[^\s:'"`,;<>|]*\/[^\s:'"`,;<>|]*$/,
  /^[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,10}$/,
  /^[^\s:][^:]*[./][^:]*[:-]\d+[:-]/,
];
const referenceIsPathLike = (line: string): boolean => REFERENCE.some((pattern) => pattern.test(line));

describe('looksLikePathList', () => {
  it('accepts path lists and grep match lists of five lines or more', () => {
    expect(looksLikePathList('src/a.ts\nsrc/b.ts\nsrc/c/d.ts\nREADME.md\npackage.json\n')).toBe(true);
    expect(
      looksLikePathList('src/a.ts:1: x\nsrc/a.ts:9: y = 2\nlib/b.js:3:foo\nlib/c.js:4: bar\ntest/d.ts:5: baz'),
    ).toBe(true);
  });

  it('tolerates a few odd lines among paths', () => {
    const lines = Array.from({ length: 9 }, (_, index) => `src/file${index}.ts`);
    expect(looksLikePathList([...lines, 'Found 9 files'].join('\n'))).toBe(true);
  });

  it('rejects short lists, prose, JSON and logs', () => {
    expect(looksLikePathList('src/a.ts\nsrc/b.ts\nsrc/c.ts\nsrc/d.ts')).toBe(false);
    expect(
      looksLikePathList('The build failed.\nSee the log below.\nIt ran for 3 minutes.\nThen it stopped.\nDone.'),
    ).toBe(false);
    expect(looksLikePathList(JSON.stringify({ a: 1, b: [1, 2, 3], c: 'x', d: null }, null, 2))).toBe(false);
    expect(
      looksLikePathList(
        'https://a.example/x\nhttps://a.example/y\nhttps://a.example/z\nhttps://a.example/w\nhttps://a.example/v',
      ),
    ).toBe(false);
  });
});

describe('isPathLikeLine', () => {
  it('accepts exactly the lines the reference patterns accept', () => {
    const unit = fc.constantFrom('a', 'Z', '0', '9', '_', '.', '/', ':', '-', ' ', '\t', '@', '+', ',', '"', '|', 'é', '\n');
    const line = fc.oneof(
      fc.string({ unit, maxLength: 24 }),
      fc.string({ maxLength: 24 }),
      fc.tuple(fc.string({ unit, maxLength: 8 }), fc.nat(999), fc.constantFrom(':', '-'), fc.string({ unit, maxLength: 8 }))
        .map(([path, n, sep, rest]) => `${path}${sep}${n}${sep}${rest}`),
    );
    fc.assert(
      fc.property(line, (text) => {
        expect(isPathLikeLine(text)).toBe(referenceIsPathLike(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees with the reference on the usual shapes', () => {
    const samples = ['src/a.ts', './x/', '/etc/hosts', 'README.md', '.env', 'a.b.c', 'a.toolongextension',
      'src/a.ts:12: x', 'a.ts-13-text', 'a.ts:x:1:', ':a/b', ' a/b', 'a/b c', 'a-1-', 'a/-1-', 'x.y:', 'x.y:1', 'x.y:1:'];
    for (const sample of samples) expect(isPathLikeLine(sample), sample).toBe(referenceIsPathLike(sample));
  });
});
