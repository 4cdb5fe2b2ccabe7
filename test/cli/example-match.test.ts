/**
 * How `toolweave check` matches an example's output, and what it prints when it does not match
 * (test/cli/check.test.ts runs the same through the bin).
 */
import { describe, expect, it } from 'vitest';
import { describeDifferences, outputDifferences } from '../../src/cli/example-match.js';

describe('exact', () => {
  it('matches equal values, and names each place that differs by its path', () => {
    const actual = { a: 1, list: [{ id: 1 }, { id: 2 }], 'odd key': true, gone: undefined };
    expect(outputDifferences(actual, { a: 1, list: [{ id: 1 }, { id: 2 }], 'odd key': true }, 'exact')).toEqual([]);
    expect(outputDifferences(actual, { a: '1', list: [{ id: 1 }, { id: 3, at: 'now' }], 'odd key': false, gone: null }, 'exact')).toEqual([
      'output.a: expected "1", got 1',
      'output.list[1].id: expected 3, got 2',
      'output.list[1].at: expected "now", got nothing (the output has no such field)',
      'output["odd key"]: expected false, got true',
      'output.gone: expected null, got nothing (the output has no such field)',
    ]);
  });

  it('reports a field the example does not give, and arrays of another length once', () => {
    expect(outputDifferences({ a: 1, b: 2, list: [1, 2, 3] }, { a: 1, list: [1] }, 'exact')).toEqual([
      'output.list: expected 1 item, got 3 items',
      'output.b: not expected, got 2',
    ]);
    expect(outputDifferences('text', { a: 1 }, 'exact')).toEqual(['output: expected {"a":1}, got "text"']);
  });
});

describe('partial', () => {
  it('compares only the keys the example gives, at every depth; arrays item by item at the same length', () => {
    const actual = { id: 7, at: '2026-01-01T10:00:00Z', rows: [{ n: 1, at: 'x' }, { n: 2, at: 'y' }] };
    expect(outputDifferences(actual, { id: 7, rows: [{ n: 1 }, { n: 2 }] }, 'partial')).toEqual([]);
    expect(outputDifferences(actual, { rows: [{ n: 1 }] }, 'partial')).toEqual(['output.rows: expected 1 item, got 2 items']);
    expect(outputDifferences(actual, { id: 8, rows: [{ n: 1 }, { m: 2 }] }, 'partial')).toEqual([
      'output.id: expected 8, got 7',
      'output.rows[1].m: expected 2, got nothing (the output has no such field)',
    ]);
  });
});

describe('$regex', () => {
  it('matches a string the pattern finds, in either mode; anything else is a difference', () => {
    const actual = { at: '2026-01-01T10:00:00Z', n: 5 };
    expect(outputDifferences(actual, { at: { $regex: '^\\d{4}-\\d{2}-\\d{2}T' }, n: 5 }, 'exact')).toEqual([]);
    expect(outputDifferences(actual, { at: { $regex: '^1999' }, n: { $regex: '5' } }, 'partial')).toEqual([
      'output.at: expected a string matching /^1999/, got "2026-01-01T10:00:00Z"',
      'output.n: expected a string matching /5/, got 5',
    ]);
    // An object with other keys beside $regex is an ordinary expected object.
    expect(outputDifferences({ $regex: 'a', flags: 'i' }, { $regex: 'a', flags: 'i' }, 'exact')).toEqual([]);
  });
});

describe('what a line shows', () => {
  it('cuts a long value, with its length', () => {
    const long = 'x'.repeat(100);
    expect(outputDifferences({ a: long, b: Array.from({ length: 40 }, (_, i) => i) }, { a: 'y', b: [] }, 'exact')).toEqual([
      `output.a: expected "y", got "${'x'.repeat(60)}"... (100 characters)`,
      'output.b: expected 0 items, got 40 items',
    ]);
    expect(outputDifferences({ a: { deep: long } }, { a: 1 }, 'exact')).toEqual([`output.a: expected 1, got {"deep":"${'x'.repeat(51)}... (111 characters)`]);
  });

  it('shows two long strings from just before where they part', () => {
    const base = `${'a'.repeat(70)}MIDDLE${'z'.repeat(70)}`;
    expect(outputDifferences(base.replace('MIDDLE', 'middle'), base, 'exact')).toEqual([
      `output: expected ..."${'a'.repeat(10)}MIDDLE${'z'.repeat(44)}"... (146 characters), got ..."${'a'.repeat(10)}middle${'z'.repeat(44)}"... (146 characters) (they differ from character 71)`,
    ]);
  });

  it('lists at most 20 places under one header, and counts the rest', () => {
    const expected = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const text = describeDifferences(outputDifferences({}, expected, 'exact')).split('\n');
    expect(text[0]).toBe('the output differs from the one expected in 25 places:');
    expect(text.slice(1, 3)).toEqual(['       output.k0: expected 0, got nothing (the output has no such field)', '       output.k1: expected 1, got nothing (the output has no such field)']);
    expect(text).toHaveLength(22);
    expect(text[21]).toBe('       ... and 5 more');
  });
});
