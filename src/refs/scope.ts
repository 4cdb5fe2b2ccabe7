import type { LabelAccessor, LabelScope } from '../flows/label-scope.js';
import type { PathSegment } from './path.js';

/**
 * What a reference can see while a plan runs. The engine fills one of these as steps complete;
 * compiled accessors only read it.
 */
export interface RefScope {
  /** The composite's whole input (`$input`). */
  input: unknown;
  /** The previous step's (or pipe stage's) whole output (`$prev`, and the `{result}` hole). */
  prev: unknown;
  /** The outputs of the top-level steps so far, by position (`$steps[0]`). */
  steps: unknown[];
  /** The outputs of the named steps so far, by name (`$steps.fetchUser`). */
  named: Map<string, unknown>;
  /** The current item inside a for_each template (`$item`, the `{item}` hole). */
  item?: unknown;
  /** The current index inside a for_each template (`$index`, the `{index}` hole). */
  index?: number;
  /** The labels of all of the above, when the run follows where data came from (its gate has `flows`). */
  labels?: LabelScope;
}

/** A compiled mapping: walks precompiled closures over a scope, never parses at run time. */
export type Accessor = (scope: RefScope) => unknown;

/** A hole a string may hold (`{item}`, run_pipeline's `${step_1.output}`): what it reads, and that value's labels. */
export interface Hole {
  read: Accessor;
  labels: LabelAccessor;
}

/**
 * What the compiler knows about where an expression sits, so strict mode can refuse an
 * unresolvable reference at build time.
 */
export interface CompileSite {
  /** The step (or node) the mapping belongs to, for error messages. */
  step: string;
  /** How many top-level steps complete before this one (a `$steps[n]` must have n below it). */
  stepsBefore: number;
  /** The names of the top-level steps that complete before this one. */
  namesBefore: ReadonlySet<string>;
  /** The names of every top-level step in the spec (to tell a forward reference from an unknown name). */
  allNames: ReadonlySet<string>;
  /** How many top-level steps the spec has (to tell a forward `$steps[n]` from a position no step has). */
  stepCount?: number;
  /** Whether a `$prev` exists here (false for the first step). */
  hasPrev: boolean;
  /** Inside a for_each template: `$item`, `$index` and the `{item}`/`{index}` holes resolve. */
  inForEach: boolean;
  /** In a pipe stage after the first: the `{result}` hole resolves to `$prev`. */
  inPipeStage: boolean;
  /** Refuse unresolvable `$`-expressions instead of passing them through as literals. */
  strict: boolean;
  /**
   * `false` for text a model sends (the compose and run_pipeline tools): `$`-expressions and
   * `${$...}` templates are plain text there, and only holes are filled. Default `true`.
   */
  references?: boolean;
  /** More holes allowed here, by their exact text (run_pipeline's `${step_1.output}`). */
  extraHoles?: ReadonlyMap<string, Hole>;
  /**
   * What the composite's inputSchema says of a `$input` path (its segments): why it cannot be
   * meant (a field the schema does not declare), or `undefined`. Without it, no path is checked.
   */
  checkInputPath?: (segments: readonly PathSegment[]) => string | undefined;
  /**
   * Told each earlier output a compiled reference reads: the previous top-level step's (`$prev`
   * where it means that), a step's by position, a named node's. What a `schedule: 'auto'` plan
   * orders its steps by.
   */
  onRead?: (read: StepRead) => void;
}

/** An earlier output a reference reads (see {@link CompileSite.onRead}). */
export type StepRead = { kind: 'prev' } | { kind: 'position'; index: number } | { kind: 'name'; name: string };

/** The compiler's answer: the accessor, and every problem it found (strict mode). */
export interface CompiledMapping {
  /** Resolve the mapping against a scope. Never throws. */
  accessor: Accessor;
  /** The labels of what it resolves to, against the scope's labels (see `flows/`). */
  labels: LabelAccessor;
  /** One message per unresolvable expression, naming the step and the expression. */
  errors: string[];
  /** What lenient mode kept as written or lets read `undefined`, one message each. */
  warnings: string[];
  /** Whether the mapping reads anything from the scope (false: a pure literal). */
  dynamic: boolean;
  /**
   * Whether every value it resolves to is a fresh plain object: it is written as an object and
   * compiled without errors. A caller that needs an object then need not check each value.
   */
  buildsObject: boolean;
  /**
   * The keys of the object it builds, when it builds one (`buildsObject`) and none is `__proto__`:
   * the own fields of what it resolves to are exactly these, so a check of them need not list them.
   */
  keys: readonly string[] | undefined;
}
