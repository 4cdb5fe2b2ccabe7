/**
 * One `$`-expression (`$input.a`, `$prev..id`, `$steps[0].x`, `$steps.name`, `$item`, `$index`):
 * parsed once into a root reader plus a dotted walk or a JSONPath query.
 */
import type { Accessor, CompileSite, RefScope } from './scope.js';
import { compileWalk, parseDottedPath, readOwn, type PathWalker } from './path.js';
import { checkJsonPath, compileJsonPath, looksLikeJsonPath } from './jsonpath.js';

/** A compiled reference, or the reason it cannot resolve. */
export type ReferenceParse =
  | {
      /** The reference is known; `problem` is set when strict mode must refuse it (e.g. a forward reference). */
      ok: true;
      /** Reads the value; never throws. */
      accessor: Accessor;
      /** Set when the reference is well formed but cannot resolve here (strict mode refuses it). */
      problem?: string;
      /**
       * The problem is a `$steps` reference that cannot point backwards (a later step, or no such
       * step): it can never resolve, so it is refused in every mode, not only in strict mode.
       */
      backwardsOnly?: true;
    }
  | {
      /** Unknown root or malformed path: non-strict mode keeps the text as a literal. */
      ok: false;
      /** Why, for the strict-mode error. */
      problem: string;
    };

const FORWARD = 'refers to a step that has not run yet';

/** The roots a reference may start from. */
const ROOTS = '$input, $prev, $steps, $item or $index';

/**
 * Compile one `$`-expression. `text` starts with a single `$` (the `$$` escape is handled by
 * the caller). The problem strings are completed with the step and expression by the caller.
 */
export function compileReference(text: string, site: CompileSite): ReferenceParse {
  const rootMatch = /^\$([^.[]*)/u.exec(text)!;
  const rootName = rootMatch[1];
  let rest = text.slice(rootMatch[0].length);
  let readRoot: (scope: RefScope) => unknown;
  let problem: string | undefined;
  const steps = rootName === 'steps';

  switch (rootName) {
    case 'input':
      readRoot = (s) => s.input;
      break;
    case 'prev':
      readRoot = (s) => s.prev;
      if (!site.hasPrev) problem = 'has no previous step to read here';
      break;
    case 'item':
      readRoot = (s) => s.item;
      if (!site.inForEach) problem = 'is only available inside a for_each template';
      break;
    case 'index':
      readRoot = (s) => s.index;
      if (!site.inForEach) problem = 'is only available inside a for_each template';
      break;
    case 'steps': {
      const first = /^(?:\[(\d+)\]|\.([^.[]+)|\[(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\])/u.exec(rest);
      if (!first) return { ok: false, problem: 'must be followed by [n] (a step position) or .name (a step name)' };
      rest = rest.slice(first[0].length);
      if (first[1] !== undefined) {
        const n = Number(first[1]);
        if (!Number.isSafeInteger(n)) return { ok: false, problem: `step position ${first[1]} is too large` };
        readRoot = (s) => readOwn(s.steps, n);
        if (n >= site.stepsBefore) problem = FORWARD;
      } else {
        let name: string;
        if (first[2] !== undefined) {
          name = first[2];
          // A dotted step name stops where a bare path name would (JSONPath operators included).
          if (looksLikeJsonPath(name) || /[\]'"`\s{}()?:]/u.test(name)) {
            return { ok: false, problem: `${JSON.stringify(name)} is not a valid step name` };
          }
        } else if (first[3] !== undefined) {
          try {
            name = JSON.parse(`"${first[3]}"`) as string;
          } catch {
            return { ok: false, problem: 'has a bad escape in its step name' };
          }
        } else {
          name = first[4];
        }
        readRoot = (s) => s.named.get(name);
        if (!site.namesBefore.has(name)) {
          problem = site.allNames.has(name) ? FORWARD : `refers to no step named ${JSON.stringify(name)}`;
        }
      }
      break;
    }
    default:
      return { ok: false, problem: `has an unknown root "$${rootName}" (expected ${ROOTS})` };
  }

  const dotted = parseDottedPath(rest);
  if (dotted.ok) {
    const walk: PathWalker = compileWalk(dotted.segments);
    const root = readRoot;
    const accessor: Accessor =
      dotted.segments.length === 0
        ? (s) => {
            try {
              return root(s);
            } catch {
              return undefined;
            }
          }
        : (s) => {
            try {
              return walk(root(s));
            } catch {
              // A host object's getter or a proxy trap threw: the accessor never throws.
              return undefined;
            }
          };
    return known(accessor, problem, steps);
  }
  if (!looksLikeJsonPath(rest)) return { ok: false, problem: `is not a valid path: ${dotted.problem}` };

  const path = `$${rest}`;
  const refused = checkJsonPath(path);
  if (refused !== undefined) return { ok: false, problem: `is a JSONPath that is refused: ${refused}` };
  const query = compileJsonPath(path);
  const root = readRoot;
  const accessor: Accessor = (s) => {
    let json: unknown;
    try {
      json = root(s);
    } catch {
      return [];
    }
    return query(json);
  };
  return known(accessor, problem, steps);
}

function known(accessor: Accessor, problem: string | undefined, steps: boolean): ReferenceParse {
  return problem !== undefined && steps ? { ok: true, accessor, problem, backwardsOnly: true } : { ok: true, accessor, problem };
}
