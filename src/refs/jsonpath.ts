/**
 * JSONPath for what a dotted path cannot say (`..`, `*`, filters, slices), through jsonpath-plus.
 *
 * jsonpath-plus runs filter scripts (`[?(...)]`) in its "safe" evaluator, and that evaluator
 * is not a sandbox: in 10.3.0 a filter can call methods on the data and climb to `Function`
 * (e.g. through `__lookupGetter__('__proto__').call(...)`), which runs arbitrary code. So every
 * script segment is checked at compile time against a small whitelist grammar: comparisons,
 * arithmetic and logic over `@`-paths and literals, with no calls, no assignment, no regex
 * literals and no nested paths. A path that fails the check is refused and never reaches
 * jsonpath-plus.
 */
import { JSONPath } from 'jsonpath-plus';
import { createBoundedCache } from './bounded-cache.js';

/**
 * How many parsed paths and filter scripts jsonpath-plus keeps (it shares one cache across the
 * process, and would keep every distinct path ever run); past it the oldest go first.
 */
export const JSONPATH_CACHE_LIMIT = 1000;

JSONPath.cache = createBoundedCache(JSONPATH_CACHE_LIMIT);

/** A compiled JSONPath query: the array of matches (empty when nothing matches or anything fails). */
export type JsonPathQuery = (json: unknown) => unknown[];

/**
 * Whether the text after a root needs JSONPath: recursive descent, wildcards, filters, script
 * or slice brackets, unions, and jsonpath-plus's `^`, `~` and `@type()` operators.
 */
export function looksLikeJsonPath(rest: string): boolean {
  return /\.\.|\*|\[\s*\??\(|\[-?\d*:|,|\^|~|@/u.test(rest);
}

/** The `@`-words jsonpath-plus substitutes inside a filter. */
const AT_WORDS = new Set(['', 'root', 'parent', 'parentProperty', 'property', 'path']);

/** What a bare `@` may stand before: jsonpath-plus substitutes it only there (a tab is refused as a control). */
const BARE_AT_BEFORE = new Set(['.', '[', ' ', ')']);

/** The only bare words a filter may use (jsep literals). */
const LITERAL_WORDS = new Set(['true', 'false', 'null', 'undefined']);

/** Binary operators, longest first so `===` is not read as `==` then `=`. No `/` (jsep reads regex literals). */
const BINARY_OPS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '%'];

/** Member names a filter may not read, whether or not they would reach a prototype. */
function blockedMember(name: string): boolean {
  return name === 'constructor' || name === 'prototype' || name.startsWith('__');
}

/** A string literal the filter may hold: no escapes, no quotes, nothing jsonpath-plus rewrites or re-parses. */
const STRING_LITERAL = /^(?:'[^'"\\`()[\]?@\n\r]*'|"[^'"\\`()[\]?@\n\r]*")/u;
const NUMBER_LITERAL = /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/u;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*/u;

/** jsonpath-plus's own test for a nested filter inside a filter; such a filter is refused. */
const NESTED_FILTER = /@.?([^?]*)[['](\??\(.*?\))(?!.\)\])[\]']/u;

/**
 * Check a filter's code (the text inside `?(...)`) against the whitelist grammar.
 * Returns a problem, or `undefined` when the code is allowed.
 */
export function checkFilterCode(code: string): string | undefined {
  // Tabs are controls too: after this check the only blank a filter can hold is the space.
  if (/[\u0000-\u001f\u007f]/u.test(code)) return 'control characters are not allowed';
  if (NESTED_FILTER.test(code)) return 'nested filters are not allowed';
  if (/^ *$/u.test(code)) return 'empty filter';
  let i = 0;
  let expectOperand = true;
  let memberable = false;
  let depth = 0;
  while (i < code.length) {
    const ch = code[i];
    if (ch === ' ') {
      i++;
      continue;
    }
    const rest = code.slice(i);
    if (expectOperand) {
      if (ch === '@') {
        const word = IDENT.exec(rest.slice(1))?.[0] ?? '';
        if (!AT_WORDS.has(word)) return `unknown @${word}`;
        if (word === '' && !BARE_AT_BEFORE.has(code[i + 1])) return 'a bare @ must be followed by a member, a space or ")"';
        i += 1 + word.length;
        expectOperand = false;
        memberable = true;
      } else if (ch === "'" || ch === '"') {
        const m = STRING_LITERAL.exec(rest);
        if (!m) return 'string literals may not hold quotes, backslashes, brackets, parentheses, ? or @';
        i += m[0].length;
        expectOperand = false;
        memberable = false;
      } else if (ch >= '0' && ch <= '9') {
        const m = NUMBER_LITERAL.exec(rest)!;
        i += m[0].length;
        expectOperand = false;
        memberable = false;
      } else if (ch === '(') {
        depth++;
        i++;
      } else if (ch === '!' || ch === '-' || ch === '+') {
        i++;
      } else {
        const m = IDENT.exec(rest);
        if (!m || !LITERAL_WORDS.has(m[0])) return `unexpected ${JSON.stringify(m ? m[0] : ch)}`;
        i += m[0].length;
        expectOperand = false;
        memberable = false;
      }
      continue;
    }
    if (ch === '.' && memberable) {
      const m = IDENT.exec(rest.slice(1));
      if (!m) return 'expected a member name after "."';
      if (blockedMember(m[0])) return `member ${JSON.stringify(m[0])} is not allowed`;
      i += 1 + m[0].length;
      continue;
    }
    if (ch === '[' && memberable) {
      const m = /^\[\s*(?:(\d+)|'([A-Za-z0-9_$ -]*)'|"([A-Za-z0-9_$ -]*)")\s*\]/u.exec(rest);
      if (!m) return 'a bracket member must be an integer or a plain quoted name';
      const name = m[2] ?? m[3];
      if (name !== undefined && blockedMember(name)) return `member ${JSON.stringify(name)} is not allowed`;
      i += m[0].length;
      continue;
    }
    if (ch === ')') {
      if (depth === 0) return 'unbalanced ")"';
      depth--;
      i++;
      memberable = false;
      continue;
    }
    const op = BINARY_OPS.find((o) => rest.startsWith(o));
    if (!op) return ch === '(' ? 'calls are not allowed' : `unexpected ${JSON.stringify(ch)}`;
    i += op.length;
    // `memberable` is left as it is: an operand comes next, and every operand sets it.
    expectOperand = true;
  }
  if (expectOperand) return 'the filter ends in an operator';
  if (depth !== 0) return 'unbalanced "("';
  return undefined;
}

/**
 * Check a whole JSONPath (starting `$`) the way jsonpath-plus will split it: every segment, and
 * every comma-separated part of a segment, that it would run as a script.
 */
export function checkJsonPath(path: string): string | undefined {
  // jsonpath-plus lifts each filter out of the path and marks its place `#0`, `#1`, ...; any other
  // `#` and digit would be read as such a mark and swapped for a filter, or for nothing.
  const mark = /#\d+/u.exec(path);
  if (mark) return `${JSON.stringify(mark[0])} cannot be read: jsonpath-plus takes "#" and a digit in a path for its own mark`;
  // With no such mark, jsonpath-plus 10.3 splits any `$` path into strings without throwing; the
  // two guards below keep a refusal (not a throw, not a silent `[]`) if a later version does not.
  let segments: string[];
  try {
    segments = JSONPath.toPathArray(path);
  } catch (err) {
    return `cannot be parsed (${err instanceof Error ? err.message : String(err)})`;
  }
  for (const seg of segments) {
    if (typeof seg !== 'string') return 'cannot be parsed';
    for (const part of [seg, ...seg.split(',')]) {
      // jsonpath-plus reads `[ ?(...)]` as a name, so the filter would silently match nothing.
      if (/^\s+\??\(/u.test(part)) return `${JSON.stringify(part)} starts with a space: write "[?(" or "[(" with nothing between`;
      if (part.startsWith('(')) return 'script expressions "[(...)]" are not allowed';
      if (part.startsWith('?(')) {
        // Mirrors jsonpath-plus: the code is what lies between "?(" and the last ")".
        const m = /^\?\((.*?)\)$/u.exec(part);
        if (!m) return `filter ${JSON.stringify(part)} is not allowed: it is malformed`;
        const problem = checkFilterCode(m[1]);
        if (problem !== undefined) return `filter ${JSON.stringify(part)} is not allowed: ${problem}`;
      }
    }
  }
  return undefined;
}

/**
 * Compile a checked JSONPath into a query. The path string is fixed here; each run only calls
 * jsonpath-plus. Errors (a throwing getter in the data, a filter failing on a value) become an
 * empty result, since an accessor never throws.
 */
export function compileJsonPath(path: string): JsonPathQuery {
  return (json) => {
    try {
      const out: unknown = JSONPath({
        path,
        json: json as null | boolean | number | string | object,
        wrap: true,
        eval: 'safe',
        // One item failing the filter (e.g. `@.price` on null) drops that item, not the query.
        ignoreEvalErrors: true,
      });
      return Array.isArray(out) ? out : [];
    } catch {
      return [];
    }
  };
}
