/**
 * Dotted paths of every length (the short ones have walks of their own, longer ones a loop),
 * step names, and mappings that cannot be compiled as they are (a cycle).
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { run, scope, site } from './helpers.js';

describe('dotted paths of any length', () => {
  const input = { a: { b: { c: { d: { e: { f: 'six' } } } } }, list: [[[[['deep']]]]] };

  it('read every depth, from one segment to six', () => {
    expect(run('$input.a', { input })).toBe(input.a);
    expect(run('$input.a.b', { input })).toBe(input.a.b);
    expect(run('$input.a.b.c', { input })).toBe(input.a.b.c);
    expect(run('$input.a.b.c.d', { input })).toBe(input.a.b.c.d);
    expect(run('$input.a.b.c.d.e', { input })).toBe(input.a.b.c.d.e);
    expect(run('$input.a.b.c.d.e.f', { input })).toBe('six');
    expect(run('$input.list[0][0][0][0][0]', { input })).toBe('deep');
    expect(run('$input["a"].b["c"].d', { input })).toBe(input.a.b.c.d);
  });

  it('from every root, at four segments and more', () => {
    const named = new Map<string, unknown>([['fetchUser', input]]);
    expect(run('$prev.a.b.c.d.e.f', { prev: input })).toBe('six');
    expect(run('$item.a.b.c.d', { item: input }, { inForEach: true })).toBe(input.a.b.c.d);
    expect(run('$steps[1].a.b.c.d.e.f', { steps: [null, input] })).toBe('six');
    expect(run('$steps.fetchUser.a.b.c.d.e.f', { named })).toBe('six');
  });

  it('a missing segment at any depth is undefined, and so is a walk through a scalar or null', () => {
    for (const path of ['$input.x.b.c.d', '$input.a.x.c.d', '$input.a.b.x.d', '$input.a.b.c.x', '$input.a.b.c.d.x.y', '$input.a.b.c.d.e.f.length.x']) {
      expect(run(path, { input }), path).toBeUndefined();
    }
    expect(run('$input.a.b.c.d', { input: { a: { b: { c: null } } } })).toBeUndefined();
    expect(run('$input.a.b.c.d', { input: { a: { b: 'text' } } })).toBeUndefined();
    expect(run('$input.a.b.c.d.e', { input: { a: { b: { c: { d: 0 } } } } })).toBeUndefined();
  });

  it('keeps falsy values found at the end of a long path', () => {
    for (const value of [0, '', false, null]) {
      expect(run('$input.a.b.c.d', { input: { a: { b: { c: { d: value } } } } })).toBe(value);
    }
  });

  it('reads own properties only at every depth: no prototype is reached through a long path', () => {
    const deep = { a: { b: { c: { d: {} } } } };
    for (const tail of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(run(`$input.a.b.c.d.${tail}`, { input: deep }), tail).toBeUndefined();
      expect(run(`$input.a.b.c.${tail}.name`, { input: deep }), tail).toBeUndefined();
      expect(run(`$input.a.${tail}`, { input: deep }), tail).toBeUndefined();
      expect(run(`$input.a.b.${tail}`, { input: deep }), tail).toBeUndefined();
      expect(run(`$input.a.b.c.${tail}`, { input: deep }), tail).toBeUndefined();
    }
    expect(run('$input.a.b.c.d.length', { input: { a: { b: { c: { d: 'text' } } } } })).toBeUndefined();
    expect(run('$input.a.b.c.d.length', { input: { a: { b: { c: { d: [1, 2] } } } } })).toBe(2);
  });

  it('a getter that throws at any depth reads undefined, never a throw', () => {
    const throwing = {
      get boom(): unknown {
        throw new Error('boom');
      },
    };
    for (const path of ['$input.boom', '$input.t.boom', '$input.t.t.boom', '$input.t.t.t.boom', '$input.t.t.t.t.boom']) {
      const t: Record<string, unknown> = { ...{} };
      Object.defineProperty(t, 'boom', Object.getOwnPropertyDescriptor(throwing, 'boom')!);
      t.t = t;
      expect(run(path, { input: t }), path).toBeUndefined();
    }
    const prev = { t: {} };
    Object.defineProperty(prev.t, 'x', { get: () => { throw new Error('boom'); } });
    expect(run('$prev.t.x', { prev })).toBeUndefined();
    expect(run('$item.t.x', { item: prev }, { inForEach: true })).toBeUndefined();
    expect(run('$steps[0].t.x', { steps: [prev] })).toBeUndefined();
  });

  it('a root that is not what it should be reads undefined', () => {
    const c = compileMapping(['$steps.fetchUser', '$steps[0]', '$steps.fetchUser.a', '$steps[0].a'], site());
    const broken = { input: 1, prev: 2, steps: null, named: null } as unknown as Parameters<typeof c.accessor>[0];
    expect(c.accessor(broken)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('an index too large to be exact is refused', () => {
    expect(compileMapping('$input[99999999999999999999]', site()).errors[0]).toContain('index 99999999999999999999 is too large');
    expect(compileMapping('$steps[99999999999999999999]', site()).errors[0]).toContain('step position 99999999999999999999 is too large');
  });

  it('a malformed path names where it goes wrong', () => {
    const errorOf = (path: string) => compileMapping(path, site()).errors[0];
    expect(errorOf('$input.a.')).toContain('is not a valid path: expected a property name at offset 3');
    expect(errorOf('$input.a[b]')).toContain('is not a valid path: expected [index] or ["key"] at offset 2');
    expect(errorOf('$input.a]')).toContain('is not a valid path: unexpected "]" at offset 2');
    expect(errorOf('$input["a\\q"]')).toContain('bad escape in ["a\\q"]');
  });

  it('a bare name stops at path punctuation, quotes, whitespace and JSONPath operators: such a key needs brackets', () => {
    for (const ch of ["'", '"', '`', '?', '@', '(', ')', ',', ':', '^', '~', '{', '}', ' ', '\t']) {
      const key = `x${ch}y`;
      const c = compileMapping(`$input.${key}`, site({ strict: false }));
      const read = c.accessor(scope({ input: { [key]: 'by name', x: { y: 'nested' } } }));
      expect(read, JSON.stringify(ch)).not.toBe('by name');
      expect(run(`$input[${JSON.stringify(key)}]`, { input: { [key]: 'by name' } }), JSON.stringify(ch)).toBe('by name');
    }
  });

  it('quoted keys: JSON escapes in double quotes, anything but a quote in single quotes', () => {
    const input = { 'a"b': 1, 'a.b': 2, "it's": 3, 'x]y': 4, 'tab\there': 5 };
    expect(run('$input["a\\"b"]', { input })).toBe(1);
    expect(run('$input["a.b"]', { input })).toBe(2);
    expect(run("$input['a.b']", { input })).toBe(2);
    expect(run('$input["it\'s"]', { input })).toBe(3);
    expect(run("$input['x]y']", { input })).toBe(4);
    expect(run('$input["tab\\there"]', { input })).toBe(5);
  });
});

describe('step names in $steps', () => {
  const named = new Map<string, unknown>([
    ['fetchUser', { id: 1 }],
    ['odd name', { id: 2 }],
    ['quote"d', { id: 3 }],
  ]);
  const known = { namesBefore: new Set(named.keys()), allNames: new Set(named.keys()) };

  it('a dotted name stops where a bare path name would', () => {
    for (const bad of ['$steps.fetch*', '$steps.fetch,x', '$steps.a b', '$steps.a:b', '$steps.a}', "$steps.a'", '$steps.a"', '$steps.a`', '$steps.a(b)', '$steps.a?', '$steps.a^', '$steps.a~', '$steps.a@', '$steps.a]']) {
      const c = compileMapping(bad, site(known));
      expect(c.errors, bad).toHaveLength(1);
      expect(c.errors[0], bad).toContain('is not a valid step name');
      // Lenient mode keeps it as written.
      expect(compileMapping(bad, site({ ...known, strict: false })).accessor(scope({ named }))).toBe(bad);
    }
  });

  it('any name can be written in brackets', () => {
    expect(run('$steps["odd name"].id', { named }, known)).toBe(2);
    expect(run("$steps['odd name'].id", { named }, known)).toBe(2);
    expect(run('$steps["quote\\"d"].id', { named }, known)).toBe(3);
    expect(run('$steps.fetchUser.id', { named }, known)).toBe(1);
  });

  it('a bracketed name with a bad escape is refused', () => {
    expect(compileMapping('$steps["a\\q"]', site(known)).errors[0]).toContain('has a bad escape in its step name');
  });

  it('$steps needs a position or a name', () => {
    for (const bad of ['$steps', '$steps.', '$steps[x]', '$steps["x"', '$stepsx']) {
      expect(compileMapping(bad, site(known)).errors, bad).toHaveLength(1);
    }
    expect(compileMapping('$steps', site(known)).errors[0]).toContain('must be followed by [n] (a step position) or .name (a step name)');
  });

  it('a position or a name not before this step is refused even in lenient mode; one before it is not', () => {
    const lax = { ...known, strict: false, stepsBefore: 2, namesBefore: new Set(['fetchUser']), allNames: new Set(['fetchUser', 'later']) };
    expect(compileMapping('$steps[1]', site(lax)).errors).toEqual([]);
    expect(compileMapping('$steps[2]', site(lax)).errors).toHaveLength(1);
    expect(compileMapping('$steps.fetchUser', site(lax)).errors).toEqual([]);
    expect(compileMapping('$steps.later', site(lax)).errors[0]).toContain('refers to a step that has not run yet');
    expect(compileMapping('$steps.ghost', site(lax)).errors[0]).toContain('refers to no step named "ghost"');
  });
});

describe('a mapping that refers to itself', () => {
  it('an object cycle is refused with an error naming the step, not a stack overflow', () => {
    const mapping: Record<string, unknown> = { a: '$input.x' };
    mapping.self = mapping;
    const c = compileMapping(mapping, site());
    expect(c.errors).toEqual(['step "summarise": the mapping refers to itself (a cycle)']);
    expect(c.accessor(scope({ input: { x: 1 } }))).toEqual({ a: 1, self: undefined });
  });

  it('an array cycle, and a cycle deeper down, too', () => {
    const list: unknown[] = ['$input.x'];
    list.push({ inner: list });
    const c = compileMapping({ top: list }, site());
    expect(c.errors).toEqual(['step "summarise": the mapping refers to itself (a cycle)']);
    expect(c.accessor(scope({ input: { x: 1 } }))).toEqual({ top: [1, { inner: undefined }] });
  });

  it('the same object used twice, side by side, is no cycle', () => {
    const shared = { v: '$input.x' };
    const list = [shared, shared];
    const c = compileMapping({ a: shared, b: shared, list, more: [list, list] }, site());
    expect(c.errors).toEqual([]);
    const out = c.accessor(scope({ input: { x: 1 } })) as Record<string, unknown>;
    expect(out).toEqual({ a: { v: 1 }, b: { v: 1 }, list: [{ v: 1 }, { v: 1 }], more: [[{ v: 1 }, { v: 1 }], [{ v: 1 }, { v: 1 }]] });
    // Each place gets a fresh object.
    expect(out.a).not.toBe(out.b);
  });

  it('is refused in lenient mode too: a cycle can never be built', () => {
    const mapping: Record<string, unknown> = {};
    mapping.self = mapping;
    expect(compileMapping(mapping, site({ strict: false })).errors).toHaveLength(1);
  });
});
