import { describe, expect, it } from 'vitest';
import { looksLikePathList } from '../../src/shaping/looks-like-path-list.js';

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
