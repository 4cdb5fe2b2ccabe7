/** What compiling one node needs to know about where it sits, and where its problems go. */
import { compileMapping } from '../refs/compile.js';
import type { CompileSite, CompiledMapping, Hole, StepRead } from '../refs/scope.js';
import { inputPathCheck } from '../spec/input-paths.js';
import { collectNames } from '../spec/nodes.js';

/**
 * The default per-step timeout: long enough for real tools, short enough that a hung one ends.
 *
 * @category Build composites
 */
export const DEFAULT_STEP_TIMEOUT_MS = 120_000;

/** How a plan is compiled. */
export interface PlanOptions {
  /** Refuse unresolvable references at compile time. */
  strict?: boolean;
  /** The default per-step timeout. */
  stepTimeoutMs?: number;
  /** `false` for a tree a model sent: its strings are text, only holes are filled (default true). */
  references?: boolean;
  /** What the top-level steps are called in labels (default `steps[i]`), e.g. `tree` for a single tree. */
  stepPath?: (index: number) => string;
  /** The composite's inputSchema: a `$input` path to a field it does not declare is a problem. */
  inputSchema?: unknown;
}

/** The compile settings for a list of top-level nodes. */
export function createCompileEnv(nodes: readonly unknown[], options: PlanOptions): CompileEnv {
  return {
    strict: options.strict ?? false,
    references: options.references ?? true,
    stepTimeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    allNames: collectNames(nodes),
    stepCount: nodes.length,
    checkInputPath: options.inputSchema !== undefined ? inputPathCheck(options.inputSchema) : undefined,
    errors: [],
    warnings: [],
    tools: new Set(),
    leaves: [],
    toolSlots: new Map(),
    annotations: [],
  };
}

/** Per-spec compile settings and the problems found so far. */
export interface CompileEnv {
  /** Refuse unresolvable references. */
  strict: boolean;
  /** `false` when the spec came from a model: its strings are text, only holes are filled. */
  references: boolean;
  /** The default per-step timeout. */
  stepTimeoutMs: number;
  /** The names of every node in the spec. */
  allNames: ReadonlySet<string>;
  /** How many top-level steps the spec has. */
  stepCount: number;
  /** Checks each `$input` path against the composite's inputSchema, when it is known (see `CompileSite`). */
  checkInputPath: CompileSite['checkInputPath'];
  /** Every problem found while compiling, one message each. */
  errors: string[];
  /** What lenient mode kept as written, one message each (see `compileMapping`). */
  warnings: string[];
  /** Every tool a node (or a compensation) may call: the grade is their join. */
  tools: Set<string>;
  /** Every call a node or a compensation may make, in spec order: its label and its tool. */
  leaves: PlanCall[];
  /** Each tool the spec names, by its place among them (what a run's resolved tools are indexed by). */
  toolSlots: Map<string, number>;
  /** Every annotate node's intent and hypothesis, in spec order. */
  annotations: { step: string; intent: string; hypothesis?: string }[];
}

/** Where a node sits: its place in the spec, and what its references may see. */
export interface NodeSite {
  /** Its place in the spec (`steps[1].calls.source`). */
  path: string;
  /** How many top-level steps complete before it. */
  stepsBefore: number;
  /** The names that have completed before it. */
  namesBefore: ReadonlySet<string>;
  /** Whether `$prev` exists here. */
  hasPrev: boolean;
  /** Inside a for_each template. */
  inForEach: boolean;
  /** In a pipe stage after the first, or a try_and_check check: `{result}` is `$prev`. */
  inPipeStage: boolean;
  /** More holes allowed here (run_pipeline's `${step_1.output}`). */
  extraHoles?: ReadonlyMap<string, Hole>;
  /** Told each earlier output a reference here reads (see `CompileSite.onRead`). */
  onRead?: (read: StepRead) => void;
}

/** The reference compiler's view of a site. */
export function refSite(env: CompileEnv, site: NodeSite, step: string): CompileSite {
  return {
    step,
    stepsBefore: site.stepsBefore,
    namesBefore: site.namesBefore,
    allNames: env.allNames,
    stepCount: env.stepCount,
    hasPrev: site.hasPrev,
    inForEach: site.inForEach,
    inPipeStage: site.inPipeStage,
    strict: env.strict,
    references: env.references,
    ...(site.extraHoles ? { extraHoles: site.extraHoles } : {}),
    ...(site.onRead ? { onRead: site.onRead } : {}),
    ...(env.checkInputPath ? { checkInputPath: env.checkInputPath } : {}),
  };
}

/** Compile a mapping at a site, its errors and warnings going to the spec's lists. */
export function compileAt(env: CompileEnv, value: unknown, site: NodeSite, step: string, changes: Partial<CompileSite> = {}): CompiledMapping {
  const mapping = compileMapping(value, { ...refSite(env, site, step), ...changes });
  env.errors.push(...mapping.errors);
  env.warnings.push(...mapping.warnings);
  return mapping;
}

/** A call a plan may make: a leaf, or the compensating call that undoes one. */
export interface PlanCall {
  /** Its label: the leaf's name or place (the key of its dry-run output); `<label> (undo)` for a compensation. */
  label: string;
  /** The tool it calls. */
  tool: string;
  /** The tool's place among the spec's tools (see `CompileEnv.toolSlots`). */
  slot: number;
  /** It is a compensation, run only when a scope rolls back. */
  undo?: true;
  /** Its arguments, when the mapping reads nothing at run time (so they can be checked at build). */
  staticArgs?: unknown;
}

/** The place of `tool` among the spec's tools, given one the first time it is named. */
export function toolSlot(env: CompileEnv, tool: string): number {
  let slot = env.toolSlots.get(tool);
  if (slot === undefined) env.toolSlots.set(tool, (slot = env.toolSlots.size));
  return slot;
}
