/**
 * The JSONPath filter whitelist rule by rule: each attack here is refused by one rule only, so a
 * rule that stopped holding would let it through. Every refused path must also never reach
 * jsonpath-plus (its "safe" evaluator runs calls), and every allowed form must still work.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { run, scope, site } from './helpers.js';

const g = globalThis as Record<string, unknown>;

afterEach(() => {
  delete g.PWNED;
});

/**
 * A call chain that escapes jsonpath-plus 10.3.0's evaluator, with no string literal of its own:
 * it takes `'__proto__'` and the code to run from the data (a tool's output is data an attacker
 * may shape).
 */
const ESCAPE = '@.__lookupGetter__(@.k).call(@.toString).constructor(@.code)()';
const hostileData = () => ({ items: [{ k: '__proto__', code: 'globalThis.PWNED = 1' }] });

/** Compile `path` strictly and leniently and run both: the strict errors, and what lenient mode answered. */
function refusal(path: string, input: unknown = hostileData()): { errors: string[]; lenient: unknown } {
  const strict = compileMapping(path, site());
  strict.accessor(scope({ input }));
  const lax = compileMapping(path, site({ strict: false }));
  return { errors: strict.errors, lenient: lax.accessor(scope({ input })) };
}

/** The path is refused with `reason`, kept as literal text in lenient mode, and no code ran. */
function expectRefused(path: string, reason: string, input?: unknown): void {
  const { errors, lenient } = refusal(path, input);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain('is a JSONPath that is refused');
  expect(errors[0]).toContain(reason);
  expect(lenient).toBe(path);
  expect(g.PWNED).toBeUndefined();
}

describe('string literals in a filter are read from where they start', () => {
  it('a literal that is not allowed cannot borrow the length of a later, allowed one to hide a call chain', () => {
    // The first literal holds "(", so it is refused; a checker that looked for the next allowed
    // literal anywhere would skip as many characters as that one is long: exactly the call chain.
    const hidden = `'(' + ${ESCAPE}`;
    const path = `$input.items[?(${hidden} == '${'x'.repeat(hidden.length - 2)}')]`;
    expectRefused(path, 'string literals may not hold quotes, backslashes, brackets, parentheses, ? or @');
  });

  it.each([
    ["'a\"b'", 'a double quote in single quotes'],
    ["\"a'b\"", 'a single quote in double quotes'],
    ["'a\\\\b'", 'a backslash'],
    ["'a`b'", 'a backtick'],
    ["'a[b'", 'a bracket'],
    ["'a?b'", 'a question mark'],
    ["'a@b'", 'an @'],
    ["'ab", 'no closing quote'],
  ])('refuses %s (%s)', (literal) => {
    expectRefused(`$input.items[?(@.a == ${literal})]`, 'string literals may not hold');
  });

  it('allows plain literals in either quotes, with spaces and punctuation', () => {
    const input = { items: [{ a: 'x y', b: 1 }, { a: 'x-y.z', b: 2 }, { a: '', b: 3 }] };
    expect(run(`$input.items[?(@.a == 'x y')].b`, { input })).toEqual([1]);
    expect(run('$input.items[?(@.a === "x-y.z")].b', { input })).toEqual([2]);
    expect(run(`$input.items[?(@.a == '')].b`, { input })).toEqual([3]);
  });
});

describe('bracket members in a filter are read from where they start', () => {
  it('a bracket that is not allowed cannot borrow the length of a later, allowed one to hide a call chain', () => {
    const hidden = `[+0] || ${ESCAPE}`;
    const path = `$input.items[?(@${hidden} == 1 || @['${'x'.repeat(hidden.length - 4)}'])]`;
    expectRefused(path, 'a bracket member must be an integer or a plain quoted name');
  });

  it('allows integer and plain quoted names, with spaces inside the brackets', () => {
    const input = { items: [{ 'a b': 1, list: [5, 6] }, { 'a b': 2, list: [7] }] };
    expect(run(`$input.items[?(@['a b'] > 1)].list`, { input })).toEqual([[7]]);
    expect(run('$input.items[?(@["a b"] == 1)].list', { input })).toEqual([[5, 6]]);
    expect(run('$input.items[?(@.list[ 1 ] == 6)]', { input })).toEqual([input.items[0]]);
  });
});

describe('members a filter may not read', () => {
  it.each(['constructor', 'prototype', '__proto__', '__lookupGetter__', '__x'])('refuses %s, after a dot and in brackets', (name) => {
    const input = { items: [{ f: () => 1 }] };
    expectRefused(`$input.items[?(@.f.${name})]`, `member "${name}" is not allowed`, input);
    expectRefused(`$input.items[?(@.f['${name}'])]`, `member "${name}" is not allowed`, input);
  });

  it('allows names that only contain a blocked word', () => {
    const input = { items: [{ my_prototype: 1, constructors: 2, a__: 3, x: 0 }] };
    expect(run('$input.items[?(@.my_prototype == 1 && @.constructors == 2 && @.a__ == 3)].x', { input })).toEqual([0]);
  });
});

describe('@-words', () => {
  it.each(['@constructor', '@foo', '@rootx', '@_$_v'])('refuses the unknown %s', (word) => {
    expectRefused(`$input.items[?(${word})]`, `unknown ${word}`);
  });

  it('allows the words jsonpath-plus substitutes', () => {
    const input = { min: 1, items: { a: { n: 1 }, b: { n: 2 } } };
    expect(run('$input.items[?(@.n > @root.min)].n', { input })).toEqual([2]);
    expect(run("$input.items[?(@property == 'b')].n", { input })).toEqual([2]);
    expect(run('$input.items[?(@parent.min == 1 && @.n == 1)].n', { input })).toEqual([1]);
    expect(run("$input.items[?(@parentProperty == 'items' && @.n == 2)].n", { input })).toEqual([2]);
    expect(run("$input.items[?(@path != '' && @.n == 1)].n", { input })).toEqual([1]);
  });

  it.each(['@==1', '@>1', '@+1 > 2', '!@'])('refuses a bare @ that jsonpath-plus would not substitute: %s', (code) => {
    expectRefused(`$input.items[?(${code})]`, 'a bare @ must be followed by a member, a space or ")"');
  });

  it('allows a bare @ before a member, a bracket, a space or ")"', () => {
    const input = { items: [1, 2, 3], lists: [[4], [5, 6]] };
    expect(run('$input.items[?(@ > 1)]', { input })).toEqual([2, 3]);
    expect(run('$input.items[?((@) > 2)]', { input })).toEqual([3]);
    expect(run('$input.lists[?(@[0] == 4)]', { input })).toEqual([[4]]);
    expect(run('$input.lists[?(@.length == 2)]', { input })).toEqual([[5, 6]]);
  });
});

describe('control characters', () => {
  // A tab is one too: the tokenizer's own tab handling is never reached.
  it.each(['\u0000', '\u0001', '\t', '\u000b', '\u001f', '\u007f'])('refuses %j, even inside an otherwise allowed literal', (ch) => {
    expectRefused(`$input.items[?(@.a == 'x${ch}')]`, 'control characters are not allowed');
  });
});

describe('nested filters', () => {
  it('are refused by name', () => {
    expectRefused('$input.items[?(@.a[?(@.b)])]', 'nested filters are not allowed');
  });
});

describe('the shape of a filter', () => {
  it.each([
    ['$input.items[?()]', 'empty filter'],
    ['$input.items[?(  )]', 'empty filter'],
    ['$input.items[?(@.a ==)]', 'the filter ends in an operator'],
    ['$input.items[?(!)]', 'the filter ends in an operator'],
    ['$input.items[?((@.a == 1)]', 'unbalanced "("'],
    ['$input.items[?(@.a == 1))]', 'unbalanced ")"'],
    ['$input.items[?(@.a(1))]', 'calls are not allowed'],
    ['$input.items[?(@.a ; 1)]', 'unexpected ";"'],
    ['$input.items[?(@.a == foo)]', 'unexpected "foo"'],
    ['$input.items[?(@.a == #)]', 'unexpected "#"'],
    ['$input.items[?(@. == 1)]', 'expected a member name after "."'],
    ['$input.items[?(@.a = 1)]', 'unexpected "="'],
    ['$input.items[(@.length - 1)]', 'script expressions "[(...)]" are not allowed'],
    ['$input.items[1,(@.length - 1)]', 'script expressions "[(...)]" are not allowed'],
    ['$input.items[(1)]', 'script expressions "[(...)]" are not allowed'],
    ['$input.items[?(@.a)x]', 'filter "?(@.a)x" is not allowed: it is malformed'],
    ['$input.items[ ?(@.a == 1)]', '" ?(@.a == 1)" starts with a space: write "[?(" or "[(" with nothing between'],
    ['$input.items[\t(1)]', '"\\t(1)" starts with a space'],
    ['$input.items[  ?(@.a == 1)]', '"  ?(@.a == 1)" starts with a space'],
  ])('refuses %s: %s', (path, reason) => {
    expectRefused(path, reason, { items: [{ a: 1 }] });
  });

  it('allows literals, unary operators, grouping and every binary operator it lists', () => {
    const input = { items: [{ a: 1, b: true }, { a: 2, b: false }, { a: 30, b: null }] };
    const a = (filter: string) => run(`$input.items[?(${filter})].a`, { input });
    expect(a('@.a === 1 || @.a !== 1 && @.a != 2 && @.a == 30')).toEqual([1, 30]);
    expect(a('@.a <= 2 && @.a >= 2')).toEqual([2]);
    expect(a('@.a < 2 || @.a > 29')).toEqual([1, 30]);
    expect(a('@.a + 1 == 3 || @.a - 1 == 0')).toEqual([1, 2]);
    expect(a('@.a * 2 == 60 || @.a % 2 == 1')).toEqual([1, 30]);
    expect(a('@.b == true || @.b === null')).toEqual([1, 30]);
    expect(a('@.b == false && @.c === undefined')).toEqual([2]);
    expect(a('!(@.a > 1) || -@.a < -20 || +@.a == 2')).toEqual([1, 2, 30]);
    expect(a('@.a == 1.5e1 * 2 || @.a == 0.5 + 0.5')).toEqual([1, 30]);
    expect(a('@.a==2')).toEqual([2]);
    expect(a('@.a == 1 || (@.a == 30)')).toEqual([1, 30]);
  });
});

describe('"#" and a digit, the mark jsonpath-plus puts where it lifts a filter out', () => {
  it.each([
    // Read by jsonpath-plus as the place of the first filter: `.c` would be that filter again.
    ['$input.items[?(@.a == 1)].c#0', '"#0"'],
    // A mark with no filter behind it: jsonpath-plus reads the segment as nothing.
    ['$input..a#12', '"#12"'],
    // Inside a filter it would be read right, but one rule for the whole path keeps it simple.
    ["$input.items[?(@.tag == 'v#1')]", '"#1"'],
  ])('refuses %s', (path, mark) => {
    expectRefused(path, `${mark} cannot be read: jsonpath-plus takes "#" and a digit in a path for its own mark`, { items: [{ a: 1, c: 2, tag: 'v#1' }] });
  });

  it('allows a "#" before anything else', () => {
    expect(run("$input.items[?(@.tag == 'v#')].n", { input: { items: [{ tag: 'v#', n: 1 }, { tag: 'v', n: 2 }] } })).toEqual([1]);
  });
});

describe('members only after what can have them', () => {
  it.each([
    ["$input.items[?('abc'.length == 3)]", 'a string literal'],
    ['$input.items[?(1 .toFixed)]', 'a number'],
    ['$input.items[?(true.x)]', 'a literal word'],
    ['$input.items[?((@.a).b)]', 'a group'],
  ])('refuses a member of %s (%s)', (path) => {
    expectRefused(path, 'unexpected "."', { items: [{ a: 1 }] });
  });

  it('numbers of every digit, @-words with no space before an operator', () => {
    const input = { items: [{ a: 0 }, { a: 9 }, { a: 5 }], list: Array.from({ length: 13 }, (_, i) => i), m: { a: { n: 1 }, b: { n: 2 } } };
    expect(run('$input.items[?(@.a == 0 || @.a == 9)].a', { input })).toEqual([0, 9]);
    expect(run('$input.list[?(@ == 12)]', { input })).toEqual([12]);
    expect(run('$input.items[?(@.a == 5)].a', { input })).toEqual([5]);
    expect(run("$input.m[?(@property=='b')].n", { input })).toEqual([2]);
    expect(run('$input.items[?(@.list[12] == 12)].a', { input: { items: [{ list: input.list, a: 0 }, { list: [], a: 5 }] } })).toEqual([0]);
  });
});

describe('slices are JSONPath', () => {
  it('with and without a start, negative, and of several digits', () => {
    const input = { list: Array.from({ length: 13 }, (_, i) => i) };
    expect(run('$input.list[1:3]', { input })).toEqual([1, 2]);
    expect(run('$input.list[-2:]', { input })).toEqual([11, 12]);
    expect(run('$input.list[:2]', { input })).toEqual([0, 1]);
    expect(run('$input.list[10:12]', { input })).toEqual([10, 11]);
  });
});
