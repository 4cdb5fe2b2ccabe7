import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { run, scope, site } from './helpers.js';

describe('references', () => {
  const input = { foo: 1, user: { name: 'Ada' }, 'odd key': 'odd', list: [{ id: 'a' }, { id: 'b' }] };

  it('$input and $input.foo', () => {
    expect(run('$input', { input })).toBe(input);
    expect(run('$input.foo', { input })).toBe(1);
    expect(run('$input.user.name', { input })).toBe('Ada');
    expect(run('$input.list[1].id', { input })).toBe('b');
    expect(run('$input["odd key"]', { input })).toBe('odd');
    expect(run("$input['odd key']", { input })).toBe('odd');
  });

  it('$prev and $prev.bar', () => {
    const prev = { bar: [10, 20], items: [{ id: 7 }] };
    expect(run('$prev', { prev })).toBe(prev);
    expect(run('$prev.bar', { prev })).toBe(prev.bar);
    expect(run('$prev.items[0].id', { prev })).toBe(7);
    expect(run('$prev.bar.length', { prev })).toBe(2);
  });

  it('$steps[n] is the step output itself, and a path goes into it exactly as written', () => {
    const steps = [{ output: { data: 'deep' }, data: 'shallow' }, [5, 6]];
    expect(run('$steps[0]', { steps })).toBe(steps[0]);
    expect(run('$steps[0].output.data', { steps })).toBe('deep');
    expect(run('$steps[0].data', { steps })).toBe('shallow');
    expect(run('$steps[1][0]', { steps })).toBe(5);
  });

  it('$steps.name reads the named output', () => {
    const named = new Map<string, unknown>([['fetchUser', { id: 42, tags: ['x'] }]]);
    expect(run('$steps.fetchUser', { named })).toEqual({ id: 42, tags: ['x'] });
    expect(run('$steps.fetchUser.id', { named })).toBe(42);
    expect(run('$steps.fetchUser.tags[0]', { named })).toBe('x');
    expect(run('$steps["fetchUser"].id', { named })).toBe(42);
  });

  it('$item, $item.x and $index inside for_each', () => {
    const fe = { inForEach: true };
    expect(run('$item', { item: [1, 2] }, fe)).toEqual([1, 2]);
    expect(run('$item.x', { item: { x: 'y' } }, fe)).toBe('y');
    expect(run('$index', { index: 3 }, fe)).toBe(3);
  });

  it('anything else is a literal, unchanged', () => {
    for (const v of ['hello', '', 'a $input.x', 42, true, null, 'input.foo', 'price: 5$']) {
      expect(run(v, { input })).toBe(v);
    }
  });

  it('a missing segment is undefined, never a throw', () => {
    expect(run('$input.nope.deeper[3].x', { input })).toBeUndefined();
    expect(run('$input.foo.bar', { input })).toBeUndefined();
    expect(run('$prev.x', { prev: null })).toBeUndefined();
    expect(run('$input[9]', { input: [] })).toBeUndefined();
    expect(run('$steps[1]', { steps: [] })).toBeUndefined();
    expect(run('$steps.fetchUser.id')).toBeUndefined();
  });
});

describe('objects and arrays', () => {
  it('resolve recursively into fresh structures each run', () => {
    const compiled = compileMapping(
      { a: '$input.a', nested: { list: ['$input.b', 'lit', 3, { c: '$prev' }] } },
      site(),
    );
    expect(compiled.errors).toEqual([]);
    expect(compiled.dynamic).toBe(true);
    const sc = scope({ input: { a: 1, b: 2 }, prev: 'p' });
    const one = compiled.accessor(sc) as { nested: { list: unknown[] } };
    const two = compiled.accessor(sc) as { nested: { list: unknown[] } };
    expect(one).toEqual({ a: 1, nested: { list: [2, 'lit', 3, { c: 'p' }] } });
    expect(one).not.toBe(two);
    expect(one.nested.list).not.toBe(two.nested.list);
  });

  it('a pure literal is not dynamic and is copied per run, so mutating args cannot corrupt the spec', () => {
    const spec = { a: [1, { b: 'x' }], c: null };
    const compiled = compileMapping(spec, site());
    expect(compiled.dynamic).toBe(false);
    const out = compiled.accessor(scope()) as { a: unknown[] };
    expect(out).toEqual(spec);
    expect(out).not.toBe(spec);
    out.a.push('mutated');
    expect(spec.a).toHaveLength(2);
    expect(compiled.accessor(scope())).toEqual(spec);
  });

  it('string and number literals return themselves', () => {
    expect(compileMapping('plain', site()).dynamic).toBe(false);
    expect(compileMapping(5, site()).accessor(scope())).toBe(5);
  });
});

describe('JSONPath', () => {
  const prev = { a: { id: 1, b: { id: 2 } }, list: [{ id: 3 }] };
  const input = {
    items: [
      { name: 'cheap', price: 5 },
      { name: 'dear', price: 20 },
      null,
      { name: 'dearer', price: 30 },
    ],
  };

  it('recursive descent returns the array of matches', () => {
    expect(run('$prev..id', { prev })).toEqual([1, 2, 3]);
  });

  it('a filter selects, and an item the filter cannot read is skipped, not fatal', () => {
    expect(run('$input.items[?(@.price > 10)].name', { input })).toEqual(['dear', 'dearer']);
    expect(run("$input.items[?(@.name == 'cheap' || @.price >= 30)].price", { input })).toEqual([5, 30]);
  });

  it('wildcards, from every root', () => {
    const named = new Map<string, unknown>([['fetchUser', { tags: ['a', 'b'] }]]);
    expect(run('$steps.fetchUser.tags[*]', { named })).toEqual(['a', 'b']);
    expect(run('$steps[0]..x', { steps: [{ y: { x: 1 } }] })).toEqual([1]);
    expect(run('$item.*', { item: { p: 1, q: 2 } }, { inForEach: true })).toEqual([1, 2]);
  });

  it('no match, or a scalar root, is an empty array', () => {
    expect(run('$prev..nothing', { prev })).toEqual([]);
    expect(run('$prev..id', { prev: undefined })).toEqual([]);
    expect(run('$prev..id', { prev: 0 })).toEqual([]);
  });

  it('`$input..` is JSONPath, not a malformed path', () => {
    const c = compileMapping('$input..', site());
    expect(c.errors).toEqual([]);
    expect(Array.isArray(c.accessor(scope({ input: { a: 1 } })))).toBe(true);
  });
});

describe('string templates', () => {
  it('interpolate references with the documented stringification', () => {
    const sc = { input: { name: 'Ada', n: 3, ok: true, obj: { a: 1 }, list: [1, 2], nil: null }, prev: { count: 7 } };
    expect(run('Hello ${$input.name}, found ${$prev.count}', sc)).toBe('Hello Ada, found 7');
    expect(run('${$input.n}|${$input.ok}|${$input.obj}|${$input.list}|${$input.nil}|${$input.missing}|', sc)).toBe(
      '3|true|{"a":1}|[1,2]|||',
    );
    expect(run('${ $input.name }!', sc)).toBe('Ada!');
    expect(run('${$input.name}', sc)).toBe('Ada');
    expect(run('${$input.list}', sc)).toBe('[1,2]');
  });

  it('text that only looks like a template stays literal', () => {
    expect(run('echo ${HOME}', {})).toBe('echo ${HOME}');
    // An unclosed reference part is kept as text in lenient mode (strict mode refuses it).
    expect(run('open ${$input.x', { input: { x: 1 } }, { strict: false })).toBe('open ${$input.x');
    expect(compileMapping('open ${$input.x', site()).errors).toEqual(['step "summarise": "${$input.x" (in "open ${$input.x") has no closing "}"']);
  });

  it('JSONPath inside a template reads as JSON', () => {
    expect(run('ids: ${$prev..id}', { prev: { a: { id: 1 }, b: { id: 2 } } })).toBe('ids: [1,2]');
  });

  it('never throws on values JSON cannot say', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(run('x${$input.c}y${$input.b}z', { input: { c: cyclic, b: 10n } })).toBe('xy10z');
  });
});

describe('holes', () => {
  const fe = { inForEach: true };
  it('a whole-string {item} is the item as-is; {index} the index', () => {
    expect(run('{item}', { item: ['a', 'b'] }, fe)).toEqual(['a', 'b']);
    expect(run({ path: '{item}', at: '{index}' }, { item: { p: 1 }, index: 2 }, fe)).toEqual({ path: { p: 1 }, at: 2 });
  });

  it('inside a longer string they are interpolated as text', () => {
    expect(run('file {index}: {item}', { item: 'a.txt', index: 0 }, fe)).toBe('file 0: a.txt');
    expect(run('{item}!', { item: [1] }, fe)).toBe('[1]!');
    expect(run('${$input.p}/{item}', { input: { p: '/tmp' }, item: 'x' }, fe)).toBe('/tmp/x');
  });

  it('{result} is $prev in a pipe stage', () => {
    const ps = { inPipeStage: true };
    expect(run('{result}', { prev: { n: 1 } }, ps)).toEqual({ n: 1 });
    expect(run('got {result}', { prev: { n: 1 } }, ps)).toBe('got {"n":1}');
  });

  it('where not allowed, holes are plain literal text', () => {
    expect(compileMapping('{item}', site()).dynamic).toBe(false);
    expect(run('{item}', { item: 'x' })).toBe('{item}');
    expect(run('a {index} {result}', { item: 'x', prev: 1, index: 0 })).toBe('a {index} {result}');
    expect(run('{result}', { prev: 1 }, fe)).toBe('{result}');
  });
});

describe('the $$ literal escape', () => {
  it('removes exactly one leading $ and parses nothing else', () => {
    expect(run('$$input.x', { input: { x: 1 } })).toBe('$input.x');
    expect(run('$$5')).toBe('$5');
    expect(run('$$$prev')).toBe('$$prev');
    expect(run('$${$input.x}', { input: { x: 1 } })).toBe('${$input.x}');
    expect(run('$${item}', { item: 1 }, { inForEach: true })).toBe('${item}');
    expect(compileMapping('$$input.x', site()).dynamic).toBe(false);
  });
});

describe('strict mode', () => {
  const errorsOf = (mapping: unknown, over = {}): string[] => compileMapping(mapping, site(over)).errors;

  it('a forward $steps[n]', () => {
    expect(errorsOf('$steps[3]')).toEqual(['step "summarise": "$steps[3]" refers to a step that has not run yet']);
    expect(errorsOf('$steps[2].x')).toEqual(['step "summarise": "$steps[2].x" refers to a step that has not run yet']);
    expect(errorsOf('$steps[1].x')).toEqual([]);
  });

  it('a forward or unknown $steps.name', () => {
    expect(errorsOf('$steps.later.x')).toEqual([
      'step "summarise": "$steps.later.x" refers to a step that has not run yet',
    ]);
    expect(errorsOf('$steps.ghost')).toEqual(['step "summarise": "$steps.ghost" refers to no step named "ghost"']);
  });

  it('an unknown root', () => {
    const [err] = errorsOf('$foo.bar');
    expect(err).toContain('step "summarise"');
    expect(err).toContain('"$foo.bar"');
    expect(err).toContain('unknown root "$foo"');
    expect(errorsOf('$5')[0]).toContain('"$5"');
  });

  it('$prev without a previous step, $item/$index outside for_each', () => {
    expect(errorsOf('$prev', { hasPrev: false })).toEqual([
      'step "summarise": "$prev" has no previous step to read here',
    ]);
    expect(errorsOf('$item.x')[0]).toBe('step "summarise": "$item.x" is only available inside a for_each template');
    expect(errorsOf('$index')[0]).toContain('"$index"');
  });

  it('malformed paths', () => {
    for (const bad of ['$input.', '$steps[x]', '$steps', '$input.a[', '$input.a b', '$input[-1]']) {
      const errs = errorsOf(bad);
      expect(errs, bad).toHaveLength(1);
      expect(errs[0]).toContain('step "summarise"');
      expect(errs[0]).toContain(JSON.stringify(bad));
    }
  });

  it('the same inside template parts, naming the part and the template', () => {
    expect(errorsOf('Hi ${$steps[5].name} and ${$foo}')).toEqual([
      'step "summarise": "$steps[5].name" (in "Hi ${$steps[5].name} and ${$foo}") refers to a step that has not run yet',
      'step "summarise": "$foo" (in "Hi ${$steps[5].name} and ${$foo}") has an unknown root "$foo" (expected $input, $prev, $steps, $item or $index)',
    ]);
  });

  it('errors from every node of a nested mapping; the accessor is still returned', () => {
    const c = compileMapping({ a: ['$steps[9]'], b: { c: '$nope' } }, site());
    expect(c.errors).toHaveLength(2);
    expect(typeof c.accessor).toBe('function');
    expect(c.accessor(scope())).toEqual({ a: [undefined], b: { c: '$nope' } });
  });
});

describe('non-strict mode', () => {
  const lax = { strict: false };
  it('an unknown or malformed $-expression passes through as the literal string, with no error', () => {
    for (const v of ['$foo.bar', '$5', '$input.', '$steps[x]', 'Hi ${$foo}']) {
      const c = compileMapping(v, site(lax));
      expect(c.errors).toEqual([]);
      expect(c.dynamic).toBe(false);
      expect(c.accessor(scope({ input: { x: 1 } }))).toBe(v);
    }
  });

  it('a $steps reference that cannot point backwards is refused even without strict mode', () => {
    for (const v of ['$steps[7]', '$steps.later', '$steps.ghost.x', 'a ${$steps[9]} b']) {
      const c = compileMapping(v, site(lax));
      expect(c.errors).toHaveLength(1);
      expect(c.errors[0]).toMatch(/has not run yet|no step named/);
    }
  });

  it('$item, $index and $prev where they do not exist read undefined without strict mode', () => {
    for (const v of ['$item', '$index']) {
      const c = compileMapping(v, site(lax));
      expect(c.errors).toEqual([]);
      expect(c.accessor(scope())).toBeUndefined();
    }
    const c = compileMapping('$prev', site({ strict: false, hasPrev: false }));
    expect(c.errors).toEqual([]);
    expect(c.accessor(scope())).toBeUndefined();
  });
});

describe('buildsObject', () => {
  it('is true only for a mapping written as an object, whose every value is then a fresh object', () => {
    const proto = JSON.parse('{ "__proto__": "$input.foo", "b": 2 }') as unknown;
    for (const mapping of [{}, { a: '$input.foo' }, { a: { b: '$prev' } }, proto, Object.assign(Object.create(null), { a: 1 })]) {
      const compiled = compileMapping(mapping, site());
      expect(compiled.buildsObject).toBe(true);
      const first = compiled.accessor(scope({ input: 5, prev: null }));
      const second = compiled.accessor(scope({ input: 5, prev: null }));
      expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
      expect(first).not.toBe(second);
    }
  });

  it('is false for anything else, and for an object mapping that does not compile', () => {
    for (const mapping of ['$input', '$prev.items', ['a'], 3, null, 'text', '${$input.foo}']) {
      expect(compileMapping(mapping, site()).buildsObject).toBe(false);
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const compiled = compileMapping(cyclic, site());
    expect(compiled.errors.join()).toContain('cycle');
    expect(compiled.buildsObject).toBe(false);
  });
});

describe('a mapping written as an object, of every size', () => {
  it.each(Array.from({ length: 11 }, (_, n) => n))('with %i keys builds every key, in the order written, each from its own reference', (n) => {
    const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { at: i }]));
    // Mixed with a literal and a key that reads as an index, which objects list first.
    const entries = Array.from({ length: n }, (_, i) => [i === 3 ? '7' : `k${i}`, i === 1 ? 'literal' : `$input.f${i}`] as const);
    const mapping = Object.fromEntries(entries);
    const compiled = compileMapping(mapping, site());
    expect(compiled.errors).toEqual([]);
    const built = compiled.accessor(scope({ input })) as Record<string, unknown>;
    expect(Object.keys(built)).toEqual(Object.keys(mapping));
    entries.forEach(([key], i) => expect(built[key]).toBe(i === 1 ? 'literal' : input[`f${i}`]));
    expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
    // Each run builds an object of its own.
    expect(compiled.accessor(scope({ input }))).not.toBe(built);
  });
});
