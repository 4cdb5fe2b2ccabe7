/**
 * The shape of a {@link ComposableToolSpec}: data a host writes (or a model sends), compiled
 * once into a plan. Every node may nest inside every combinator.
 */
import type { JSONSchemaObject } from '../tool.js';

/**
 * Fields every node may carry.
 *
 * @category Build composites
 */
export interface NodeCommon {
  /** A name, unique in the spec: `$steps.<name>` reads its output, dry runs key outputs by it. */
  name?: string;
  /** A reference (or mapping) read before the node runs; falsy skips it (output `null`, recorded as skipped). */
  when?: unknown;
  /** Retry a failed node (never a refusal): at most `attempts` tries in all, waiting `backoffMs` doubling. */
  retry?: { attempts: number; backoffMs?: number };
  /** `stop` (default) ends the run on failure; `continue` records the failure, sets output `null` and goes on. */
  onError?: 'stop' | 'continue';
}

/**
 * A call that undoes a step inside a rolled-back scope; in its args `$prev` is the step's own output.
 *
 * @category Build composites
 */
export interface CompensationSpec {
  /** The tool that undoes the step. */
  tool: string;
  /** Its arguments: a mapping resolved like any step's. */
  args?: unknown;
}

/**
 * A leaf: one tool call.
 *
 * @category Build composites
 */
export interface StepNode extends NodeCommon {
  /** The tool to call, by the name the gate resolves. */
  tool: string;
  /** The tool's arguments: a mapping of references and literals. */
  inputMapping?: unknown;
  /** The same as `inputMapping` (the compose tool's spelling); give one or the other. */
  args?: unknown;
  /** Fail with `step_timeout` past this many milliseconds (default: the builder's `stepTimeoutMs`). */
  timeoutMs?: number;
  /** The call that undoes this step when a scope around it rolls back. */
  compensate?: CompensationSpec;
  /** Not a combinator. */
  combinator?: undefined;
}

/**
 * Named calls run concurrently; the output is an object of their outputs by name.
 *
 * @category Build composites
 */
export interface GatherNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'gather';
  /** The calls, by the name their output takes. */
  calls: Record<string, SpecNode>;
}

/**
 * A template run once per item, at most `concurrency` at a time; the output is the results in item order.
 *
 * @category Build composites
 */
export interface ForEachNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'for_each';
  /** A reference to an array (`"$input.files"`), or a node whose output is the array. */
  items: string | SpecNode;
  /** Run once per item, with `$item`, `$index` and the `{item}` hole. */
  template: SpecNode;
  /** How many items run at once (default 4, at most 64). */
  concurrency?: number;
  /** Refuse more items than this (default 1000) before any item runs. */
  maxItems?: number;
}

/**
 * Stages in order, each stage's output feeding the next (`$prev`, the `{result}` hole).
 *
 * @category Build composites
 */
export interface PipeNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'pipe';
  /** The stages. */
  stages: SpecNode[];
}

/**
 * Run `do`, then `check`; fail with the check's result when the check fails.
 *
 * @category Build composites
 */
export interface TryAndCheckNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'try_and_check';
  /** The work. */
  do: SpecNode;
  /** The verification; it fails when its call fails or its output is `false` or has `ok`/`passed`/`success` false. */
  check: SpecNode;
  /** Tries of do-then-check in all (default 1, at most 5). */
  attempts?: number;
}

/**
 * Run `do`; on failure undo everything done inside, in reverse order.
 *
 * @category Build composites
 */
export interface ScopeNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'scope';
  /** The work. */
  do: SpecNode;
  /** `rollback` (default): compensate each step and restore the host snapshot on failure; `keep`: leave it. */
  on_failure?: 'rollback' | 'keep';
}

/**
 * Intent and hypothesis travel with the inner node into its trace, result details and any error.
 *
 * @category Build composites
 */
export interface AnnotateNode extends NodeCommon {
  /** Which combinator. */
  combinator: 'annotate';
  /** Why this is done. */
  intent: string;
  /** What is expected to be found. */
  hypothesis?: string;
  /** The work. */
  do: SpecNode;
}

/**
 * Any node of a spec.
 *
 * @category Build composites
 */
export type SpecNode = StepNode | GatherNode | ForEachNode | PipeNode | TryAndCheckNode | ScopeNode | AnnotateNode;

/**
 * The combinators, by name.
 *
 * @category Build composites
 */
export type CombinatorName = Exclude<SpecNode['combinator'], undefined>;

/**
 * A composite tool's definition: steps run in order, then an optional output mapping shapes the answer.
 *
 * @category Build composites
 */
export interface ComposableToolSpec {
  /** The only mode so far. */
  mode?: 'compose';
  /** The steps, in order. */
  steps: SpecNode[];
  /** Shapes the final output from the run (e.g. `{ "count": "$steps.count", "first": "$steps[0][0]" }`); default: the last step's output. */
  output?: unknown;
  /** When given, the final output is checked against it (`output_invalid`). */
  outputSchema?: JSONSchemaObject;
  /**
   * How the top-level steps run: `sequential` (the default), one after another; `auto`, each as
   * soon as the steps its references read have finished, side by side where they read nothing of
   * each other. A step that may have side effects (or is undeclared, or is itself a composition)
   * is a barrier either way: it starts after every earlier step, and every later one after it.
   * The trace and the effects ledger keep the declared order.
   */
  schedule?: 'sequential' | 'auto';
}
