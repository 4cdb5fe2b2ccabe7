/**
 * String templates (`"Hello ${$input.name}"`) and the compose tool's holes (`{item}`, `{index}`,
 * `{result}`): split once into literal text and accessors, joined per run.
 */
import type { Accessor, CompileSite, Hole, RefScope } from './scope.js';
import { compileReference } from './reference.js';
import { compileWalk, parseDottedPath, type PathSegment } from './path.js';
import { joinLabels, TRUSTED } from '../flows/label.js';
import { flatten } from '../flows/label-tree.js';
import { labelWalk, type LabelAccessor } from '../flows/label-scope.js';

/**
 * Reports an unresolvable expression found at compile time (the caller decides whether it is an
 * error or a warning). `always`: it can never resolve, in any mode. `literal`: lenient mode keeps
 * the text as written (default), rather than letting it read `undefined`.
 */
export type ProblemReporter = (expression: string, problem: string, always?: boolean, literal?: boolean) => void;

/** A compiled string: its accessor, and whether it reads the scope at all. */
export interface CompiledString {
  /** Produces the string (or, for a whole-string hole, the value as-is). */
  accessor: Accessor;
  /** Its labels: a whole-string hole's value's own, else every part's and the text's joined. */
  labels: LabelAccessor;
  /** False when the text is a literal. */
  dynamic: boolean;
}

/**
 * How a value reads inside a string: strings as-is, numbers and booleans via `String`,
 * objects and arrays as JSON, `undefined`/`null` (and what JSON cannot say) as empty.
 * Never throws: a cyclic value or a throwing `toJSON` also reads as empty.
 */
export function stringifyPart(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
      return String(value);
    case 'undefined':
    case 'function':
      return '';
    default:
      if (value === null) return '';
      try {
        return JSON.stringify(value) ?? '';
      } catch {
        return '';
      }
  }
}

/** The holes of a for_each template and of a pipe stage (or a check). */
const ITEM: Hole = { read: (s) => s.item, labels: (l) => l.item ?? TRUSTED };
const INDEX: Hole = { read: (s) => s.index, labels: (l) => l.index ?? TRUSTED };
const RESULT: Hole = { read: (s: RefScope) => s.prev, labels: (l) => l.prev };

/** The holes allowed at this site, by their text. */
export function holesAt(site: CompileSite): ReadonlyMap<string, Hole> {
  const holes = new Map<string, Hole>();
  if (site.inForEach) {
    holes.set('{item}', ITEM);
    holes.set('{index}', INDEX);
  }
  if (site.inPipeStage) holes.set('{result}', RESULT);
  if (site.extraHoles) for (const [text, hole] of site.extraHoles) holes.set(text, hole);
  return holes;
}

/** A `${` opening a reference part (`${$input.x}`, `${ $prev }`). */
const TEMPLATE_PART = /\$\{\s*\$/u;

/** Whether `text` needs template compilation here: a `${$...}` part or an allowed hole. */
export function isTemplate(text: string, holes: ReadonlyMap<string, Hole>, references = true): boolean {
  if (references && TEMPLATE_PART.test(text)) return true;
  for (const hole of holes.keys()) {
    if (text.includes(hole)) return true;
    // A hole with a path into its value: `{result.0.id}`, `{item[1]}`.
    const open = hole.slice(0, -1);
    if (text.includes(`${open}.`) || text.includes(`${open}[`)) return true;
  }
  return false;
}

/**
 * Compile a string holding `${$...}` parts and/or holes. A whole-string hole keeps the value
 * as-is (a list stays a list); everything else is interpolated with {@link stringifyPart}.
 * An unresolvable `${...}` part is reported and kept as literal text.
 */
export function compileTemplate(
  text: string,
  site: CompileSite,
  holes: ReadonlyMap<string, Hole>,
  report: ProblemReporter,
): CompiledString {
  const whole = holes.get(text);
  if (whole) return { accessor: whole.read, labels: whole.labels, dynamic: true };
  const wholePath = pathHole(text, 0, holes);
  if (wholePath !== undefined && wholePath.end === text.length) return { accessor: wholePath.hole.read, labels: wholePath.hole.labels, dynamic: true };

  const literals: string[] = [];
  const accessors: Accessor[] = [];
  const parts: LabelAccessor[] = [];
  let lit = '';
  let i = 0;
  const references = site.references !== false;
  // The next `}` at or after a position: found once and kept until passed, so the text is walked
  // once for them however many `${` or `{` wait for one (a search per opening was quadratic).
  let nextClose = -1;
  const closeFrom = (from: number): number => {
    if (nextClose !== text.length && nextClose < from) {
      const found = text.indexOf('}', from);
      nextClose = found < 0 ? text.length : found;
    }
    return nextClose === text.length ? -1 : nextClose;
  };
  outer: while (i < text.length) {
    // Only `${$...}` is a reference; `${HOME}` stays literal text.
    const opensReference = references && text.startsWith('${', i) && opensWithDollar(text, i + 2);
    const close = opensReference ? closeFrom(i + 2) : -1;
    if (opensReference && close < 0) {
      // A reference part that never closes was meant as one: say so, and keep the rest as text.
      report(text.slice(i), 'has no closing "}"');
      lit += text.slice(i);
      break;
    }
    if (close >= 0) {
      const inner = text.slice(i + 2, close).trim();
      const ref = compileReference(inner, site);
      if (ref.ok) {
        if (ref.problem !== undefined) report(inner, ref.problem, ref.backwardsOnly, false);
        literals.push(lit);
        accessors.push(ref.accessor);
        parts.push(ref.labels);
        lit = '';
      } else {
        report(inner, ref.problem);
        lit += text.slice(i, close + 1);
      }
      i = close + 1;
      continue;
    }
    if (text[i] === '{' || text[i] === '$') {
      const path = pathHole(text, i, holes, closeFrom(i + 1));
      if (path !== undefined) {
        literals.push(lit);
        accessors.push(path.hole.read);
        parts.push(path.hole.labels);
        lit = '';
        i = path.end;
        continue;
      }
      for (const [written, hole] of holes) {
        if (text.startsWith(written, i)) {
          literals.push(lit);
          accessors.push(hole.read);
          parts.push(hole.labels);
          lit = '';
          i += written.length;
          continue outer;
        }
      }
    }
    lit += text[i];
    i++;
  }
  literals.push(lit);
  return { ...join(literals, accessors), labels: joinedLabels(parts) };
}

/** Blanks then a `$` (`${ $prev }`), read where `lastIndex` is set: only the blanks are walked. */
const BLANKS_THEN_DOLLAR = /\s*\$/uy;

/** Whether the text at `at` is blanks then a `$`. */
function opensWithDollar(text: string, at: number): boolean {
  BLANKS_THEN_DOLLAR.lastIndex = at;
  return BLANKS_THEN_DOLLAR.test(text);
}

/** A hole's name and the path into its value (`{result.0.id}`, `{item[2].name}`): at most this long. */
const MAX_PATH_HOLE = 200;

/**
 * A hole with a path into its value at `at` (`{result.1.sender}`, `{item[0]}`), as the hole the
 * path reads: its value's part, and that part's label (its container's joined in), so a field
 * chosen from a list is labelled as that field, not as the whole list.
 */
function pathHole(text: string, at: number, holes: ReadonlyMap<string, Hole>, close = text.indexOf('}', at + 1)): { hole: Hole; end: number } | undefined {
  if (text[at] !== '{') return undefined;
  if (close < 0 || close - at > MAX_PATH_HOLE) return undefined;
  const inner = text.slice(at + 1, close);
  const split = inner.search(/[.[]/u);
  if (split <= 0) return undefined;
  const base = holes.get(`{${inner.slice(0, split)}}`);
  if (base === undefined) return undefined;
  const parsed = parseDottedPath(inner.slice(split));
  if (!parsed.ok || parsed.segments.length === 0) return undefined;
  // A position written as a name (`.0`) reads an item: the same key for the value and its label.
  const segments: PathSegment[] = parsed.segments.map((s) => (typeof s === 'string' && /^\d+$/u.test(s) ? Number(s) : s));
  const walk = compileWalk(segments);
  const labelsAt = labelWalk(segments);
  return { hole: { read: (scope) => walk(base.read(scope)), labels: (l) => labelsAt(base.labels(l)) }, end: close + 1 };
}

/** A string made of the text and of `parts`: its label is the text's and every part's, each all joined. */
function joinedLabels(parts: readonly LabelAccessor[]): LabelAccessor {
  return (l) => {
    let label = l.literal;
    for (const part of parts) label = joinLabels(label, flatten(part(l)));
    return label;
  };
}

/** Build the joining closure; one and two parts are straight-line because they are the common case. */
function join(literals: readonly string[], accessors: readonly Accessor[]): Omit<CompiledString, 'labels'> {
  const n = accessors.length;
  if (n === 0) {
    const only = literals[0];
    return { accessor: () => only, dynamic: false };
  }
  if (n === 1) {
    const [l0, l1] = literals;
    const [a0] = accessors;
    return { accessor: (s) => l0 + stringifyPart(a0(s)) + l1, dynamic: true };
  }
  if (n === 2) {
    const [l0, l1, l2] = literals;
    const [a0, a1] = accessors;
    return { accessor: (s) => l0 + stringifyPart(a0(s)) + l1 + stringifyPart(a1(s)) + l2, dynamic: true };
  }
  const lits = literals.slice();
  const accs = accessors.slice();
  return {
    accessor: (s) => {
      let out = lits[0];
      for (let k = 0; k < n; k++) out += stringifyPart(accs[k](s)) + lits[k + 1];
      return out;
    },
    dynamic: true,
  };
}
