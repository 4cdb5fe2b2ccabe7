/**
 * The reference compiler at its edges: brackets after other segments, roots read through a broken
 * scope, values that are not plain data, what `dynamic` says, and what lenient mode warns.
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { run, scope, site } from './helpers.js';

describe('bracket segments after other segments', () => {
  const input = { a: { b: 'ab', 'odd key': 'odd' }, x: { y: 'xy' }, list: Array.from({ length: 13 }, (_, i) => i * 10), '0': 'zero' };

  it('each bracket is read from where it starts', () => {
    expect(run('$input["a"]["b"]', { input })).toBe('ab');
    expect(run("$input['a'][\"b\"]", { input })).toBe('ab');
    expect(run('$input["a"][\'b\']', { input })).toBe('ab');
    expect(run('$input.x["y"]', { input })).toBe('xy');
    expect(run("$input.x['y']", { input })).toBe('xy');
    expect(run('$input.list[12]', { input })).toBe(120);
    expect(run('$input["list"][12]', { input })).toBe(120);
    expect(run('$input.a["odd key"]', { input })).toBe('odd');
  });

  it('a bad bracket is refused even when a good one follows', () => {
    // '[abc]' is as long as "['b']": a bracket found further on must not stand in for it.
    for (const bad of ['$input[x]["b"]', "$input[x]['b']", "$input[abc]['b']", '$input[abc]["b"]', '$input[x][0]', '$input.a[b]["b"]']) {
      const errors = compileMapping(bad, site()).errors;
      expect(errors, bad).toHaveLength(1);
      expect(errors[0], bad).toContain('is not a valid path');
    }
  });

  it('$steps: a position of more than one digit, and a bad head refused even when a name follows', () => {
    const steps = Array.from({ length: 12 }, (_, i) => ({ n: i }));
    expect(run('$steps[11].n', { steps }, { stepsBefore: 12 })).toBe(11);
    for (const bad of ['$steps[x].fetchUser', "$steps[x]['fetchUser']", '$steps{x}.fetchUser']) {
      expect(compileMapping(bad, site()).errors, bad).toHaveLength(1);
    }
    // '[x]' is as long as '.ab': a name found further on must not stand in for the head.
    const known = { namesBefore: new Set(['ab']), allNames: new Set(['ab']) };
    expect(compileMapping('$steps[x].ab.c', site(known)).errors[0]).toContain('must be followed by [n] (a step position) or .name (a step name)');
  });
});

describe('a scope that is not what it should be, read through JSONPath', () => {
  it('reads an empty list, never throws', () => {
    const c = compileMapping(['$steps.fetchUser..x', '$steps[0]..x', '$item..x'], site({ inForEach: true }));
    const broken = { input: 1, prev: 2, steps: null, named: null } as unknown as Parameters<typeof c.accessor>[0];
    expect(c.accessor(broken)).toEqual([[], [], []]);
  });
});

describe('values in a mapping that are not plain data', () => {
  it('are returned as they are, not rebuilt as objects', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const date = new Date(0);
    const point = new Point(1);
    const map = new Map([['k', '$input.x']]);
    const out = run({ date, point, map }, { input: { x: 1 } }) as Record<string, unknown>;
    expect(out.date).toBe(date);
    expect(out.point).toBe(point);
    expect(out.map).toBe(map);
  });

  it('an object without a prototype is compiled like any other', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: '$input.x' });
    expect(run(bare, { input: { x: 1 } })).toEqual({ a: 1 });
  });

  it('a __proto__ key in the output is an ordinary field a tool may change', () => {
    const out = run(JSON.parse('{"__proto__": "$input.x", "a": 1}'), { input: { x: 'v' } }) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')).toEqual({ value: 'v', writable: true, enumerable: true, configurable: true });
    expect(delete out.__proto__).toBe(true);
    expect(Object.keys(out)).toEqual(['a']);
  });

  it('a hole in a sparse array reads as an undefined item, and the items after it are read', () => {
    const sparse: unknown[] = [1];
    sparse[2] = '$input.x';
    const out = run(sparse, { input: { x: 'v' } }) as unknown[];
    expect(out).toHaveLength(3);
    expect(Object.hasOwn(out, 1)).toBe(true);
    expect(out).toEqual([1, undefined, 'v']);
  });

  it('objects of every size keep every key', () => {
    for (let size = 0; size <= 7; size++) {
      const mapping = Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, i % 2 ? `$input.v${i}` : `lit${i}`]));
      const input = Object.fromEntries(Array.from({ length: size }, (_, i) => [`v${i}`, i * 10]));
      const expected = Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, i % 2 ? i * 10 : `lit${i}`]));
      expect(run(mapping, { input }), `size ${size}`).toEqual(expected);
    }
  });

  it('a value JSON cannot write reads as empty text inside a template', () => {
    expect(run('[${$input.v}]', { input: { v: { toJSON: () => undefined } } })).toBe('[]');
    expect(run('[${$input.f}]', { input: { f: () => 1 } })).toBe('[]');
    expect(run('[${$input.s}]', { input: { s: Symbol.for('s') } })).toBe('[Symbol(s)]');
  });
});

describe('what dynamic says', () => {
  const dynamicOf = (mapping: unknown, over = {}) => compileMapping(mapping, site(over)).dynamic;

  it('true for anything that reads the scope, at any depth, in any position', () => {
    expect(dynamicOf(['lit', '$input.x'])).toBe(true);
    expect(dynamicOf(['$input.x', 'lit'])).toBe(true);
    expect(dynamicOf({ a: 'lit', b: ['x', { c: '$prev' }] })).toBe(true);
    expect(dynamicOf('{item}', { inForEach: true })).toBe(true);
    expect(dynamicOf('a ${$input.x}')).toBe(true);
    expect(dynamicOf('a ${$input.x} b ${$input.y}')).toBe(true);
    expect(dynamicOf('a ${$input.x} b ${$input.y} c ${$input.z}')).toBe(true);
    expect(dynamicOf('{item} and {index}', { inForEach: true })).toBe(true);
  });

  it('false for literals, model text without holes, and a mapping that only refers to itself', () => {
    expect(dynamicOf(['a', 1, { b: null }])).toBe(false);
    expect(dynamicOf('$input.x ${$prev}', { references: false })).toBe(false);
    const cyclic: Record<string, unknown> = { a: 'lit' };
    cyclic.self = cyclic;
    expect(dynamicOf(cyclic)).toBe(false);
  });
});

describe('what lenient mode warns', () => {
  it('a part that cannot resolve here reads undefined; a malformed one is kept as text', () => {
    const c = compileMapping({ a: 'x ${$prev.y}', b: 'y ${$foo}', c: '$index' }, site({ strict: false, hasPrev: false }));
    expect(c.errors).toEqual([]);
    expect(c.warnings).toEqual([
      'step "summarise": "$prev.y" (in "x ${$prev.y}") has no previous step to read here; it reads undefined when the step runs (strict mode refuses it)',
      'step "summarise": "$foo" (in "y ${$foo}") has an unknown root "$foo" (expected $input, $prev, $steps, $item or $index); kept as the literal text (strict mode refuses it)',
      'step "summarise": "$index" is only available inside a for_each template; it reads undefined when the step runs (strict mode refuses it)',
    ]);
    expect(c.accessor(scope())).toEqual({ a: 'x ', b: 'y ${$foo}', c: undefined });
  });
});
