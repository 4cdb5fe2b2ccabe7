import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import type { CompileSite, RefScope } from '../../src/refs/scope.js';

const protoKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
const arrayProtoKeysBefore = Object.getOwnPropertyNames(Array.prototype).sort();

function assertNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeysBefore);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayProtoKeysBefore);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((globalThis as Record<string, unknown>).PWNED).toBeUndefined();
}

const segmentName = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'polluted',
  'toString',
  'a',
  'b',
  'id',
  'length',
  'x y',
);

const segment = fc.oneof(
  segmentName.map((n) => (/^[A-Za-z_]+$/u.test(n) ? `.${n}` : `[${JSON.stringify(n)}]`)),
  segmentName.map((n) => `['${n}']`),
  fc.nat({ max: 3 }).map((n) => `[${n}]`),
  fc.constantFrom('..', '.*', '[*]', '..id', '[?(@.a > 1)]', "[?(@.b == 'x')]", '[0:2]', '.', '[', '[x]'),
  fc.constantFrom(
    "[?(@.constructor.constructor('globalThis.PWNED=1')())]",
    "[?(@.__lookupGetter__('__proto__').call(@.toString).constructor('globalThis.PWNED=1')())]",
  ),
);

const root = fc.constantFrom('$input', '$prev', '$steps[0]', '$steps[5]', '$steps.fetchUser', '$steps.later', '$item', '$index', '$foo', '$');

const reference = fc.tuple(root, fc.array(segment, { maxLength: 4 })).map(([r, segs]) => r + segs.join(''));

const stringExpr = fc.oneof(
  reference,
  reference.map((r) => `text \${${r}} more`),
  reference.map((r) => `$${r}`),
  fc.constantFrom('{item}', '{index}', '{result}', 'n {item} {index} {result}', '${HOME}', '$$', '$'),
  fc.string(),
);

const mapping = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringExpr,
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'polluted')), tie('node'), {
      maxKeys: 4,
    }),
    // Keys exactly as JSON.parse would give them (an own `__proto__`).
    fc
      .tuple(tie('node'), tie('node'))
      .map(([a, b]) => JSON.parse(`{"__proto__": ${JSON.stringify(a) ?? 'null'}, "polluted": ${JSON.stringify(b) ?? 'null'}}`) as unknown),
  ),
})).node;

const siteArb: fc.Arbitrary<CompileSite> = fc.record({
  step: fc.string(),
  stepsBefore: fc.nat({ max: 4 }),
  namesBefore: fc.constant(new Set(['fetchUser'])),
  allNames: fc.constant(new Set(['fetchUser', 'later'])),
  hasPrev: fc.boolean(),
  inForEach: fc.boolean(),
  inPipeStage: fc.boolean(),
  strict: fc.boolean(),
});

/** Scope values: anything, including objects with `__proto__` keys and null prototypes. */
const value = fc.oneof(fc.anything({ withNullPrototype: true, withObjectString: true }), fc.jsonValue());

const scopeArb: fc.Arbitrary<RefScope> = fc.record({
  input: value,
  prev: value,
  steps: fc.array(value, { maxLength: 3 }),
  named: fc.array(fc.tuple(fc.constantFrom('fetchUser', 'later', '__proto__'), value), { maxLength: 3 }).map((e) => new Map(e)),
  item: value,
  index: fc.nat(),
});

describe('property: compile and run never throw and never pollute', () => {
  it('over generated mappings, sites and scopes', () => {
    fc.assert(
      fc.property(mapping, siteArb, scopeArb, (m, si, sc) => {
        const compiled = compileMapping(m, si);
        expect(Array.isArray(compiled.errors)).toBe(true);
        // Without strict mode only $steps references that cannot point backwards are refused.
        if (!si.strict) for (const e of compiled.errors) expect(e).toMatch(/\$steps.*(has not run yet|no step named)/);
        const out = compiled.accessor(sc);
        // An object in the mapping builds a fresh output object (scope data may have any prototype).
        if (m !== null && typeof m === 'object' && !Array.isArray(m)) {
          expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        }
        assertNoPollution();
      }),
      { numRuns: 2000 },
    );
  });

  it('any value at all as the mapping', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withSparseArray: true }), siteArb, scopeArb, (m, si, sc) => {
        compileMapping(m, si).accessor(sc);
        assertNoPollution();
      }),
      { numRuns: 500 },
    );
  });

  it('data read from the scope comes back as the same value, never resolved again', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = compileMapping({ a: '$input', b: ['$prev'] }, { ...baseSite, hasPrev: true });
        const out = c.accessor({ input: v, prev: v, steps: [], named: new Map() }) as { a: unknown; b: unknown[] };
        expect(out.a).toBe(v);
        expect(out.b[0]).toBe(v);
      }),
    );
  });

  it('a pure literal mapping comes back deep-equal, and not dynamic', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => !JSON.stringify(v).includes('$') && !JSON.stringify(v).includes('{')),
        (v) => {
          const c = compileMapping(v, baseSite);
          expect(c.dynamic).toBe(false);
          expect(c.errors).toEqual([]);
          expect(c.accessor({ input: 1, prev: 2, steps: [], named: new Map() })).toEqual(v);
        },
      ),
    );
  });
});

const baseSite: CompileSite = {
  step: 's',
  stepsBefore: 0,
  namesBefore: new Set(),
  allNames: new Set(),
  hasPrev: false,
  inForEach: true,
  inPipeStage: true,
  strict: true,
};
