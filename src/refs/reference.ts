/**
 * One `$`-expression (`$input.a`, `$prev..id`, `$steps[0].x`, `$steps.name`, `$item`, `$index`):
 * parsed once into a root reader plus a dotted walk or a JSONPath query.
 */
import type { Accessor, CompileSite, RefScope } from './scope.js';
import { TRUSTED } from '../flows/label.js';
import { flatten, type LabelTree } from '../flows/label-tree.js';
import { labelWalk, type LabelAccessor, type LabelRead, type LabelScope } from '../flows/label-scope.js';
import { compileWalk, parseDottedPath, readOwn, type PathWalker } from './path.js';
import { checkJsonPath, compileJsonPath, looksLikeJsonPath } from './jsonpath.js';
import { closestNames } from '../gate/suggest.js';

/** A compiled reference, or the reason it cannot resolve. */
export type ReferenceParse =
  | {
      /** The reference is known; `problem` is set when strict mode must refuse it (e.g. a forward reference). */
      ok: true;
      /** Reads the value; never throws. */
      accessor: Accessor;
      /** Reads the value's labels (see `flows/`). */
      labels: LabelAccessor;
      /** The same labels, as their root and what is found from it. */
      labelRead: LabelRead;
      /** Set when the reference is well formed but cannot resolve here (strict mode refuses it). */
      problem?: string;
      /**
       * A `$steps` reference: its problem, when it has one, is that it cannot point backwards (a
       * later step, or no such step). It can never resolve, so it is refused in every mode, not only
       * in strict mode.
       */
      backwardsOnly: boolean;
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
const ROOT_NAMES = ['input', 'prev', 'steps', 'item', 'index'];

/**
 * Why an unknown root is refused: the closest root when one is near (`$inptu`, `$step`, `$prv` are
 * typos), else the list of roots (`$HOME`, `$5` are more likely meant as text, written `$$HOME`).
 */
function unknownRoot(rootName: string): string {
  // Only the closest: "did you mean $steps, $item?" for `$step` would send the reader two ways.
  const [closest] = closestNames(rootName, ROOT_NAMES);
  return `has an unknown root "$${rootName}" (${closest !== undefined ? `did you mean $${closest}?` : `expected ${ROOTS}`})`;
}

/** Why `$steps[n]` is refused when the spec has no step at that position. */
function noStepAt(n: number, stepCount: number): string {
  const range = stepCount === 1 ? '$steps[0]' : `$steps[0] to $steps[${stepCount - 1}]`;
  return `refers to no step at position ${n} (the spec has ${stepCount} step${stepCount === 1 ? '' : 's'}, ${range})`;
}

/** Why `$steps.<name>` is refused when no node has the name, with the closest names the spec has. */
function unknownStep(name: string, allNames: ReadonlySet<string>): string {
  const close = closestNames(name, allNames);
  return `refers to no step named ${JSON.stringify(name)}${close.length ? ` (did you mean ${close.join(', ')}?)` : ''}`;
}

/**
 * Compile one `$`-expression. `text` starts with a single `$` (the `$$` escape is handled by
 * the caller). The problem strings are completed with the step and expression by the caller.
 */
export function compileReference(text: string, site: CompileSite): ReferenceParse {
  // `text` starts with its `$`: the root is the name up to the first `.` or `[`.
  const rootMatch = /\$([^.[]*)/u.exec(text)!;
  const rootName = rootMatch[1];
  let rest = text.slice(rootMatch[0].length);
  let readRoot: (scope: RefScope) => unknown;
  let walkRoot: (walk: PathWalker) => Accessor;
  let labelRoot: (labels: LabelScope) => LabelTree;
  let problem: string | undefined;
  const steps = rootName === 'steps';

  switch (rootName) {
    case 'input':
      readRoot = (s) => s.input;
      walkRoot = walkInput;
      labelRoot = (l) => l.input;
      break;
    case 'prev':
      readRoot = (s) => s.prev;
      walkRoot = walkPrev;
      labelRoot = (l) => l.prev;
      if (!site.hasPrev) problem = 'has no previous step to read here';
      // In a pipe stage after the first (or a check) $prev is the stage before, not a top-level step.
      else if (!site.inPipeStage) site.onRead?.({ kind: 'prev' });
      break;
    case 'item':
      readRoot = (s) => s.item;
      walkRoot = walkItem;
      labelRoot = (l) => l.item ?? TRUSTED;
      if (!site.inForEach) problem = 'is only available inside a for_each template';
      break;
    case 'index':
      readRoot = (s) => s.index;
      walkRoot = (walk) => walkFrom(readRoot, walk);
      labelRoot = (l) => l.index ?? TRUSTED;
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
        labelRoot = (l) => l.steps[n] ?? TRUSTED;
        if (n >= site.stepsBefore) problem = site.stepCount !== undefined && n >= site.stepCount ? noStepAt(n, site.stepCount) : FORWARD;
        site.onRead?.({ kind: 'position', index: n });
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
        labelRoot = (l) => l.named.get(name) ?? TRUSTED;
        site.onRead?.({ kind: 'name', name });
        if (!site.namesBefore.has(name)) {
          problem = site.allNames.has(name) ? FORWARD : unknownStep(name, site.allNames);
        }
      }
      walkRoot = (walk) => walkFrom(readRoot, walk);
      break;
    }
    default:
      return { ok: false, problem: unknownRoot(rootName) };
  }

  const dotted = parseDottedPath(rest);
  if (dotted.ok) {
    // Only a dotted path names fields; a JSONPath query may match any of them, or none.
    if (rootName === 'input' && site.checkInputPath) problem = site.checkInputPath(dotted.segments);
    return known(walkRoot(compileWalk(dotted.segments)), { root: labelRoot, from: labelWalk(dotted.segments) }, problem, steps);
  }
  if (!looksLikeJsonPath(rest)) return { ok: false, problem: `is not a valid path: ${dotted.problem}` };

  const path = `$${rest}`;
  const refused = checkJsonPath(path);
  if (refused !== undefined) return { ok: false, problem: `is a JSONPath that is refused: ${refused}` };
  const query = compileJsonPath(path);
  const root = readRoot;
  const accessor: Accessor = (s) => {
    // The query never throws; reading the root throws only on a scope the engine did not make.
    try {
      return query(root(s));
    } catch {
      return [];
    }
  };
  // A query selects by data (a filter, `..`): what it answers carries the label of all of its root.
  return known(accessor, { root: labelRoot, from: flatten }, problem, steps);
}

/*
 * The accessors of a reference with a dotted path: the root, then the walk. A host object's getter
 * or a proxy trap can throw during the walk; the accessor never throws, it reads `undefined`. The
 * common roots each have an accessor of their own that reads the root inline rather than through
 * `readRoot`: that call differs from root to root, so V8 cannot inline it, and these run once per step.
 */

function walkInput(walk: PathWalker): Accessor {
  return (s) => {
    try {
      return walk(s.input);
    } catch {
      // A throwing getter reads as missing: undefined.
    }
  };
}

function walkPrev(walk: PathWalker): Accessor {
  return (s) => {
    try {
      return walk(s.prev);
    } catch {
      // As in walkInput.
    }
  };
}

function walkItem(walk: PathWalker): Accessor {
  return (s) => {
    try {
      return walk(s.item);
    } catch {
      // As in walkInput.
    }
  };
}

/** The accessor of a root read through `readRoot` (`$steps`, `$index`). */
function walkFrom(readRoot: (scope: RefScope) => unknown, walk: PathWalker): Accessor {
  return (s) => {
    try {
      return walk(readRoot(s));
    } catch {
      // As in walkInput.
    }
  };
}

function known(accessor: Accessor, labelRead: LabelRead, problem: string | undefined, steps: boolean): ReferenceParse {
  const { root, from } = labelRead;
  return { ok: true, accessor, labels: (l) => from(root(l)), labelRead, problem, backwardsOnly: steps };
}
