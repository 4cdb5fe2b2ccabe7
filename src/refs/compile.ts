/**
 * The reference compiler: a spec mapping (any JSON value) becomes one accessor built from
 * precompiled closures. Every expression is parsed here, once; a run only walks closures and
 * builds the output.
 *
 * Strings, in the order they are tried:
 * - `$$...`: the literal escape. The string with ONE leading `$` removed, nothing else parsed
 *   (`"$$input.x"` is the text `"$input.x"`, `"$${$input.x}"` the text `"${$input.x}"`).
 * - a whole-string hole (`"{item}"`, `"{index}"` in a for_each template, `"{result}"` in a pipe
 *   stage): the value as-is.
 * - a template: a `${$...}` part or an allowed hole anywhere in the text; interpolated.
 * - a `$`-expression (the string starts with `$`): a reference.
 * - anything else: a literal.
 *
 * Only the spec is compiled: a value read from the scope is data and is never resolved again.
 */
import type { Accessor, CompileSite, CompiledMapping } from './scope.js';
import type { LabelAccessor, LabelRead } from '../flows/label-scope.js';
import { objectLabels } from './object-labels.js';
import { compileReference } from './reference.js';
import { compileTemplate, holesAt, isTemplate, type CompiledString, type ProblemReporter } from './template.js';

/** What compiling one node of the mapping gives: its accessor, its labels' and whether it reads the scope. */
interface Compiled {
  accessor: Accessor;
  labels: LabelAccessor;
  /** Its labels as a root and what is found from it, for a plain reference or a literal (see `LabelRead`). */
  read?: LabelRead;
  dynamic: boolean;
}

/** What a literal is labelled: what the mapping itself writes (the spec's, or the model's text). */
const literalLabels: LabelAccessor = (l) => l.literal;
const literalRead: LabelRead = { root: literalLabels, from: (tree) => tree };

/** A literal's compiled node: `value` as it is, labelled as the mapping. */
function literal(value: unknown): Compiled {
  return { accessor: () => value, labels: literalLabels, read: literalRead, dynamic: false };
}

/** Shared by every node of one mapping. */
interface Context {
  site: CompileSite;
  holes: ReturnType<typeof holesAt>;
  errors: string[];
  /** What lenient mode kept as written (or lets read `undefined`) instead of refusing. */
  warnings: string[];
  /** Objects and arrays being compiled, to refuse a cyclic mapping instead of overflowing the stack. */
  active: Set<object>;
}

/**
 * Compile a mapping (any JSON value: strings, objects, arrays, nested) into an accessor.
 *
 * Objects and arrays build a fresh object/array on every run (so a tool mutating its args can
 * never corrupt the spec); other literals are returned as they are. A mapping key `__proto__`
 * becomes an own data property of the output (never the prototype setter), so the output keeps
 * `Object.prototype` and nothing is polluted. A key whose value reads `undefined` is kept (as
 * hand-written `{ a: x.missing }` would). In strict mode every unresolvable expression is
 * listed in `errors`, naming the step and the expression; otherwise an unknown or malformed
 * `$`-expression stays a literal string, and a known reference that cannot resolve yet (a
 * forward `$steps` reference, `$prev` on the first step) reads `undefined` at run time.
 */
export function compileMapping(value: unknown, site: CompileSite): CompiledMapping {
  const ctx: Context = { site, holes: holesAt(site), errors: [], warnings: [], active: new Set() };
  const { accessor, labels, dynamic } = compileNode(value, ctx);
  // An object mapping builds a fresh object every time; one that did not compile cleanly is not relied on.
  const buildsObject = isPlainObject(value) && ctx.errors.length === 0;
  const written = buildsObject ? Object.keys(value) : undefined;
  const keys = written?.includes('__proto__') === false ? written : undefined;
  return { accessor, labels, errors: ctx.errors, warnings: ctx.warnings, dynamic, buildsObject, keys };
}

function compileNode(value: unknown, ctx: Context): Compiled {
  if (typeof value === 'string') return compileString(value, ctx);
  if (Array.isArray(value)) return guarded(value, ctx, () => compileArray(value, ctx));
  if (isPlainObject(value)) return guarded(value, ctx, () => compileObject(value, ctx));
  // Numbers, booleans, null, and anything that is not JSON: returned as they are.
  return literal(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function guarded(node: object, ctx: Context, build: () => Compiled): Compiled {
  if (ctx.active.has(node)) {
    ctx.errors.push(`step ${JSON.stringify(ctx.site.step)}: the mapping refers to itself (a cycle)`);
    return { accessor: () => undefined, labels: literalLabels, dynamic: false };
  }
  ctx.active.add(node);
  try {
    return build();
  } finally {
    ctx.active.delete(node);
  }
}

function compileString(text: string, ctx: Context): Compiled {
  if (ctx.site.references === false) {
    // Model-sent text: only holes are read; a `$` is just a character.
    if (isTemplate(text, ctx.holes, false)) return compileTemplate(text, ctx.site, ctx.holes, () => {});
    return literal(text);
  }
  if (text.startsWith('$$')) return literal(text.slice(1));
  const report = reporter(text, ctx);
  // A whole-string hole is a template too: compileTemplate gives its value as it is.
  if (isTemplate(text, ctx.holes)) {
    const compiled: CompiledString = compileTemplate(text, ctx.site, ctx.holes, report);
    return compiled;
  }
  if (text.startsWith('$')) {
    const ref = compileReference(text, ctx.site);
    if (ref.ok) {
      if (ref.problem !== undefined) report(text, ref.problem, ref.backwardsOnly, false);
      return { accessor: ref.accessor, labels: ref.labels, read: ref.labelRead, dynamic: true };
    }
    report(text, ref.problem);
  }
  return literal(text);
}

/**
 * Records a problem naming the step, the expression and, for a template part, the template:
 * an error in strict mode (or when it can never resolve), else a warning saying what lenient mode
 * does with it (keeps the text as written, or lets it read `undefined`). Never silent.
 */
function reporter(text: string, ctx: Context): ProblemReporter {
  return (expression, problem, always, literal = true) => {
    const where = expression === text ? '' : ` (in ${JSON.stringify(text)})`;
    const message = `step ${JSON.stringify(ctx.site.step)}: ${JSON.stringify(expression)}${where} ${problem}`;
    if (ctx.site.strict || always) ctx.errors.push(message);
    else ctx.warnings.push(`${message}; ${literal ? 'kept as the literal text' : 'it reads undefined when the step runs'} (strict mode refuses it)`);
  };
}

/** The accessors of `values`, in order, their labels', and whether any of them reads the scope. */
function compileChildren(values: ArrayLike<unknown>, ctx: Context): { children: Compiled[]; accessors: Accessor[]; labels: LabelAccessor[]; dynamic: boolean } {
  // Array.from, not map: a hole in a sparse array is compiled as `undefined`, not skipped.
  const children = Array.from(values, (value) => compileNode(value, ctx));
  return { children, accessors: children.map((child) => child.accessor), labels: children.map((child) => child.labels), dynamic: children.some((child) => child.dynamic) };
}

function compileArray(items: readonly unknown[], ctx: Context): Compiled {
  const { accessors, labels, dynamic } = compileChildren(items, ctx);
  const n = accessors.length;
  return {
    accessor: (s) => {
      const out: unknown[] = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = accessors[i](s);
      return out;
    },
    // The list is written by the mapping: its own label is the mapping's, each item its own.
    labels: (l) => ({ own: l.literal, items: labels.map((item) => item(l)) }),
    dynamic,
  };
}

function compileObject(obj: Record<string, unknown>, ctx: Context): Compiled {
  const keys = Object.keys(obj);
  const { children, accessors, dynamic } = compileChildren(keys.map((key) => obj[key]), ctx);
  const labels = objectLabels(keys, children);
  const n = keys.length;
  const protoKey = keys.indexOf('__proto__');
  if (protoKey < 0) return { accessor: buildObject(keys, accessors), labels, dynamic };
  // Assigning `out.__proto__` would call Object.prototype's setter and swap the prototype;
  // defining it makes an ordinary own property, as JSON.parse does.
  return {
    accessor: (s) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const v = accessors[i](s);
        if (i === protoKey) {
          Object.defineProperty(out, '__proto__', { value: v, writable: true, enumerable: true, configurable: true });
        } else {
          out[keys[i]] = v;
        }
      }
      return out;
    },
    labels,
    dynamic,
  };
}

/**
 * The builder for an object without a `__proto__` key. Objects of up to eight keys (the usual tool
 * args) get straight-line stores: each store site then sees one key, which V8 handles far faster
 * than one loop site seeing every key (that site goes megamorphic past four).
 */
function buildObject(keys: readonly string[], accessors: readonly Accessor[]): Accessor {
  const [k0, k1, k2, k3, k4, k5, k6, k7] = keys;
  const [a0, a1, a2, a3, a4, a5, a6, a7] = accessors;
  switch (keys.length) {
    case 0:
      return () => ({});
    case 1:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        return out;
      };
    case 2:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        return out;
      };
    case 3:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        return out;
      };
    case 4:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        out[k3] = a3(s);
        return out;
      };
    case 5:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        out[k3] = a3(s);
        out[k4] = a4(s);
        return out;
      };
    case 6:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        out[k3] = a3(s);
        out[k4] = a4(s);
        out[k5] = a5(s);
        return out;
      };
    case 7:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        out[k3] = a3(s);
        out[k4] = a4(s);
        out[k5] = a5(s);
        out[k6] = a6(s);
        return out;
      };
    case 8:
      return (s) => {
        const out: Record<string, unknown> = {};
        out[k0] = a0(s);
        out[k1] = a1(s);
        out[k2] = a2(s);
        out[k3] = a3(s);
        out[k4] = a4(s);
        out[k5] = a5(s);
        out[k6] = a6(s);
        out[k7] = a7(s);
        return out;
      };
    default: {
      const n = keys.length;
      return (s) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) out[keys[i]] = accessors[i](s);
        return out;
      };
    }
  }
}
