import { afterEach, describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { run, scope, site } from './helpers.js';

const g = globalThis as Record<string, unknown>;

afterEach(() => {
  delete g.PWNED;
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('prototype segments read own properties only', () => {
  it('never reach a prototype', () => {
    const input = { a: 1 };
    expect(run('$input.__proto__', { input })).toBeUndefined();
    expect(run('$input.constructor', { input })).toBeUndefined();
    expect(run('$input.constructor.prototype', { input })).toBeUndefined();
    expect(run('$input["__proto__"]', { input })).toBeUndefined();
    expect(run('$prev.__proto__.polluted', { prev: {} })).toBeUndefined();
    expect(run('$prev.toString', { prev: {} })).toBeUndefined();
    expect(run('$input.fn.prototype', { input: { fn: function f() {} } })).toBeUndefined();
    expect(run('$input.list.constructor', { input: { list: [] } })).toBeUndefined();
  });

  it('never read what is polluted onto Object.prototype after the mapping was compiled, nor inherited getters', () => {
    const mapping = compileMapping({ a: '$input.polluted', b: '$input.own', c: '$input.klass.n' }, site());
    expect(mapping.errors).toEqual([]);
    class Klass {
      get n(): number {
        return 7;
      }
    }
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.polluted = 'yes';
      proto.own = 'inherited';
      const out = mapping.accessor(scope({ input: { own: 'mine', klass: new Klass() } })) as Record<string, unknown>;
      expect(out).toEqual({ a: undefined, b: 'mine', c: undefined });
    } finally {
      delete proto.polluted;
      delete proto.own;
    }
  });

  it('read a proxy or a null-prototype object own properties only', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1 });
    expect(run('$input.bare.x', { input: { bare } })).toBe(1);
    const target = Object.create({ inherited: 'no' }) as Record<string, unknown>;
    target.mine = 'yes';
    const proxied = new Proxy(target, {});
    expect(run('$input.p.mine', { input: { p: proxied } })).toBe('yes');
    expect(run('$input.p.inherited', { input: { p: proxied } })).toBeUndefined();
  });

  it('an own __proto__ data property (as JSON.parse makes) is just data', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    expect(run('$input.__proto__.x', { input })).toBe(1);
  });

  it('JSONPath does not reach prototypes either', () => {
    expect(run('$input..constructor', { input: { a: {} } })).toEqual([]);
    expect(run('$input.*.__proto__', { input: { a: {} } })).toEqual([]);
  });
});

describe('data is never code (no second-order resolution)', () => {
  it('values read from the scope are returned verbatim', () => {
    const prev = { text: '$input.secret', tpl: '${$input.secret}', hole: '{item}', esc: '$$x' };
    const sc = { input: { secret: 'S' }, prev, item: 'I' };
    const fe = { inForEach: true };
    expect(run('$prev.text', sc, fe)).toBe('$input.secret');
    expect(run('$prev.tpl', sc, fe)).toBe('${$input.secret}');
    expect(run('$prev.hole', sc, fe)).toBe('{item}');
    expect(run('$prev', sc, fe)).toEqual(prev);
    expect(run('got ${$prev.text} and ${$prev.tpl}', sc, fe)).toBe('got $input.secret and ${$input.secret}');
    expect(run('{item}', { ...sc, item: '${$input.secret}' }, fe)).toBe('${$input.secret}');
    expect(run('x {item}', { ...sc, item: '$input.secret' }, fe)).toBe('x $input.secret');
    expect(run('$prev..text', sc, fe)).toEqual(['$input.secret']);
  });
});

describe('mapping keys named __proto__', () => {
  it('become own data properties; nothing is polluted and the prototype is unchanged', () => {
    const mapping = JSON.parse('{"__proto__": {"polluted": "$input.x"}, "a": {"__proto__": "$input.x"}}') as unknown;
    const c = compileMapping(mapping, site());
    expect(c.errors).toEqual([]);
    const out = c.accessor(scope({ input: { x: 'yes' } })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out.a)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getOwnPropertyDescriptor(out.a, '__proto__')?.value).toBe('yes');
    expect(out.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes"},"a":{"__proto__":"yes"}}');
  });

  it('keys like constructor are ordinary keys', () => {
    expect(run({ constructor: '$input.x', toString: 1 }, { input: { x: 2 } })).toEqual({ constructor: 2, toString: 1 });
  });
});

describe('a JSONPath filter cannot run code', () => {
  const attacks = [
    "$input[?(@.constructor.constructor('return process')())]",
    "$input[?(@.constructor.constructor('globalThis.PWNED = 1')())]",
    // Escapes jsonpath-plus 10.3.0's own "safe" evaluator when it is reached.
    "$input.items[?(@.__lookupGetter__('__proto__').call(@.toString).constructor('globalThis.PWNED = 1')())]",
    "$input.items[?(@.toString.call(@))]",
    '$input.items[?(@.push(1))]',
    "$input.items[?(@.a == '(globalThis.PWNED = 1)')]",
    '$input.items[(@.length-1)]',
    "$input.items[a,?(@.x.constructor('globalThis.PWNED=1')())]",
    '$input.items[?(x = 1)]',
    '$input.items[?(@.a =~ /x/)]',
    '$input.items[?(@.a / 2 > 1)]',
    "$input.items[?(@['constructor'])]",
    '$input.items[?(_$_root)]',
    '$input.items[?(typeof @.a)]',
    '$input.items[?(@.a[?(@.b)])]',
  ];

  for (const path of attacks) {
    it(`refuses ${path}`, () => {
      const input = { items: [{ a: 1, x: {} }, [3]] };
      const strict = compileMapping(path, site());
      expect(strict.errors).toHaveLength(1);
      expect(strict.errors[0]).toContain('step "summarise"');
      expect(strict.errors[0]).toContain(JSON.stringify(path));
      expect(strict.errors[0]).toContain('JSONPath');
      expect(() => strict.accessor(scope({ input }))).not.toThrow();
      // Non-strict: the refused text stays a literal; it is never handed to jsonpath-plus.
      const lax = compileMapping(path, site({ strict: false }));
      expect(lax.errors).toEqual([]);
      expect(lax.accessor(scope({ input }))).toBe(path);
      expect(g.PWNED).toBeUndefined();
      expect(input.items).toEqual([{ a: 1, x: {} }, [3]]);
    });
  }

  it('allowed filters still work: comparisons, logic, grouping, literals, @root', () => {
    const input = { min: 2, items: [{ a: 1, b: 'x' }, { a: 2, b: 'y' }, { a: 3, b: null }] };
    expect(run('$input.items[?(@.a >= 2 && !(@.b == null))].b', { input })).toEqual(['y']);
    expect(run('$input.items[?(@.a > @root.min)].a', { input })).toEqual([3]);
    expect(run("$input.items[?(@['b'] === 'x')].a", { input })).toEqual([1]);
    expect(run('$input.items[?(@.a % 2 == 1 || -@.a < -2)].a', { input })).toEqual([1, 3]);
  });

  it('a throwing getter in the data yields an empty result, not a throw', () => {
    const input = {
      items: [
        {
          get a(): number {
            throw new Error('boom');
          },
        },
      ],
      get bad(): unknown {
        throw new Error('boom');
      },
    };
    expect(run('$input.items[?(@.a > 1)]', { input })).toEqual([]);
    expect(run('$input..a', { input })).toEqual([]);
    expect(run('$input.bad.x', { input })).toBeUndefined();
    expect(run('x${$input.bad}', { input })).toBe('x');
  });

  it('a scope that is not what it should be does not throw', () => {
    const c = compileMapping({ a: '$steps.fetchUser', b: '$steps[0]', c: '$prev..x' }, site());
    const broken = { input: 1, prev: 2 } as unknown as Parameters<typeof c.accessor>[0];
    expect(c.accessor(broken)).toEqual({ a: undefined, b: undefined, c: [] });
  });
});
