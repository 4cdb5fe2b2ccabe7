/**
 * Work that grows with what a spec writes stays bounded: jsonpath-plus's shared cache keeps at
 * most a fixed number of entries, and compiling a template scans its text a bounded number of
 * times, however many parts it holds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JSONPath } from 'jsonpath-plus';
import { compileJsonPath, JSONPATH_CACHE_LIMIT } from '../../src/refs/jsonpath.js';
import { compileTemplate, holesAt } from '../../src/refs/template.js';
import { site } from './helpers.js';

describe('the JSONPath cache', () => {
  it('keeps at most JSONPATH_CACHE_LIMIT entries, however many distinct paths run, and evicted paths still answer', () => {
    const data = { items: [{ n: 1 }, { n: 2 }, { n: 3 }] };
    const first = compileJsonPath('$.items[?(@.n > 0)].n');
    expect(first(data)).toEqual([1, 2, 3]);
    for (let i = 0; i < 3 * JSONPATH_CACHE_LIMIT; i++) {
      // Each path is distinct, and so is its filter: two cache entries per path.
      expect(compileJsonPath(`$.items[?(@.n > ${i % 3})].n`)(data).length).toBe(3 - (i % 3));
      compileJsonPath(`$..n${i}`)(data);
    }
    expect(Object.keys(JSONPath.cache as object).length).toBeLessThanOrEqual(JSONPATH_CACHE_LIMIT);
    // The first path's entries were evicted long ago; it is parsed again and answers the same.
    expect(first(data)).toEqual([1, 2, 3]);
  });

  it('evicts the oldest entries first', () => {
    for (let i = 0; i < JSONPATH_CACHE_LIMIT + 10; i++) compileJsonPath(`$..oldest${i}`)({});
    const keys = Object.keys(JSONPath.cache as object);
    expect(keys).not.toContain('$..oldest0');
    expect(keys).toContain(`$..oldest${JSONPATH_CACHE_LIMIT + 9}`);
  });
});

describe('compileTemplate', () => {
  afterEach(() => vi.restoreAllMocks());

  /** The characters String.prototype.indexOf and slice walk while `text` compiles. */
  function charactersScanned(text: string): number {
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    const slice = String.prototype.slice;
    vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search: string, from?: number) {
      const found = indexOf.call(this, search, from);
      scanned += (found < 0 ? this.length : found) - Math.max(0, from ?? 0);
      return found;
    });
    vi.spyOn(String.prototype, 'slice').mockImplementation(function (this: string, start?: number, end?: number) {
      const out = slice.call(this, start, end);
      scanned += out.length;
      return out;
    });
    const at = site({ strict: false, inForEach: true });
    try {
      compileTemplate(text, at, holesAt(at), () => {});
    } finally {
      vi.restoreAllMocks();
    }
    return scanned;
  }

  // Each input is many parts that are not references (or are, for the last one) and that a
  // search for their closing brace would walk past, again and again, to the end of the text.
  const inputs: Record<string, (n: number) => string> = {
    'unclosed "${"': (n) => '${'.repeat(n),
    '"${ x" parts closed once at the end': (n) => '${ x'.repeat(n) + '}',
    'unclosed "{"': (n) => '{item'.repeat(n),
    'references between them': (n) => '${ x ${$input.a} {'.repeat(n),
  };
  for (const [name, make] of Object.entries(inputs)) {
    it(`scans its text a bounded number of times: ${name}`, () => {
      for (const n of [1000, 4000]) {
        const text = make(n);
        expect(charactersScanned(text), `${n} parts`).toBeLessThanOrEqual(20 * text.length);
      }
    });
  }
});
