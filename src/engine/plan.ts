/**
 * A spec compiled once into a plan: every mapping parsed, every node a closure. Running it
 * enters one level of composition (depth, cycle guard), walks the top-level steps, and turns
 * the outcome into one result with the effects ledger and the trace.
 */
import type { SideEffectingTools } from '../gate/chainable.js';
import { toToolSet } from '../gate/chainable.js';
import { compositionRefusal, nestedContext } from '../gate/depth.js';
import type { ResultReader } from '../shaping/result-reader.js';
import { startCallOf } from '../gate/gate-call.js';
import { messageOf, type StepGate } from '../gate/step-gate.js';
import { failure } from '../codes.js';
import { compileMapping } from '../refs/compile.js';
import type { RefScope } from '../refs/scope.js';
import { collectNames } from '../spec/nodes.js';
import type { ComposableToolSpec } from '../spec/types.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { refSite, type CompileEnv, type NodeSite } from './compile-env.js';
import { compileNode } from './compile-node.js';
import { Sequence, completedSteps, type NodeOutcome, type NodePlan, type RunState } from './run-state.js';
import type { SnapshotProvider } from './snapshot.js';

/** The default per-step timeout: long enough for real tools, short enough that a hung one ends. */
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
}

/** What one run of a plan needs besides its input. */
export interface PlanRunOptions {
  gate: StepGate;
  sideEffectingTools?: SideEffectingTools;
  /** Dry run: side-effecting and composite steps take their outputs from here. */
  dry?: { stepOutputs: Record<string, unknown> };
  signal?: AbortSignal;
  snapshots?: SnapshotProvider;
  /** The id of the composition being run, for the cycle guard. */
  compositionId?: string;
  /** Who reads the steps' results: `code` for a composite or a tree (default: the caller's reader). */
  reader?: ResultReader;
}

/** A compiled spec. */
export interface Plan {
  /** Every problem found while compiling (references); empty when the plan can run. */
  errors: string[];
  /** Every tool name a node or a compensation may call. */
  tools: readonly string[];
  /** Run the plan. Never throws. */
  run(input: unknown, context: ToolExecutionContext, options: PlanRunOptions): Promise<ToolExecutionResult>;
  /** The join of the side-effect grades of every tool it may call, as `resolve` sees them now. */
  hasSideEffects(resolve: (name: string) => ITool | undefined): boolean;
}

/** Compile a structurally valid spec. */
export function compilePlan(spec: ComposableToolSpec, options: PlanOptions = {}): Plan {
  const env = createCompileEnv(spec.steps, options);
  const namesBefore = new Set<string>();
  const steps = spec.steps.map((node, i) => {
    const site: NodeSite = {
      path: options.stepPath ? options.stepPath(i) : `steps[${i}]`,
      stepsBefore: i,
      namesBefore: new Set(namesBefore),
      hasPrev: i > 0,
      inForEach: false,
      inPipeStage: false,
    };
    const plan = compileNode(node, env, site);
    for (const name of collectNames([node])) namesBefore.add(name);
    return plan;
  });
  const outputSite: NodeSite = {
    path: 'output',
    stepsBefore: steps.length,
    namesBefore,
    hasPrev: true,
    inForEach: false,
    inPipeStage: false,
  };
  let shapeOutput: ((scope: RefScope) => unknown) | undefined;
  if (spec.output !== undefined) {
    const mapping = compileMapping(spec.output, refSite(env, outputSite, 'output'));
    env.errors.push(...mapping.errors);
    shapeOutput = mapping.accessor;
  }
  const tools = [...env.tools];
  const annotations = env.annotations;

  return {
    errors: env.errors,
    tools,
    hasSideEffects: (resolve) => tools.some((name) => resolve(name)?.hasSideEffects !== false),
    run(input, context, runOptions) {
      const refusal = compositionRefusal(context, runOptions.compositionId);
      if (refusal) return Promise.resolve(refusal);
      const state = runState(context, runOptions, env.stepTimeoutMs);
      return new Promise<ToolExecutionResult>((resolve) => {
        // Never rejects: callers hand this promise on as their own result, with no try around an await.
        try {
          new PlanRun(steps, state, input, shapeOutput, annotations, resolve).start();
        } catch (error) {
          resolve(failure('step_threw', `The run failed unexpectedly: ${messageOf(error)}`));
        }
      });
    },
  };
}

/** One run of a plan's top-level steps: each sees the outputs so far; the end becomes the run's result. */
class PlanRun extends Sequence {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  /** What the steps' references read: the input and the outputs so far. */
  private declare readonly refs: RefScope;
  private declare readonly shapeOutput: ((scope: RefScope) => unknown) | undefined;
  private declare readonly annotations: CompileEnv['annotations'];
  private declare readonly resolve: (result: ToolExecutionResult) => void;

  constructor(
    steps: readonly NodePlan[],
    state: RunState,
    input: unknown,
    shapeOutput: ((scope: RefScope) => unknown) | undefined,
    annotations: CompileEnv['annotations'],
    resolve: (result: ToolExecutionResult) => void,
  ) {
    super(steps, state);
    this.refs = { input, prev: undefined, steps: [], named: new Map() };
    this.shapeOutput = shapeOutput;
    this.annotations = annotations;
    this.resolve = resolve;
  }

  protected override scopeAt(): RefScope {
    return this.refs;
  }

  protected override output(_index: number, output: unknown): void {
    this.refs.steps.push(output);
    this.refs.prev = output;
  }

  protected override end(failed: NodeOutcome | undefined): void {
    const state = this.runState;
    if (failed && !failed.ok) {
      const f = failed.failure;
      this.resolve({
        success: false,
        error: f.error,
        details: { ...f.details, completed: completedSteps(state.trace), effects: state.effects, trace: state.trace },
        effects: state.effects,
      });
      return;
    }
    const output = this.shapeOutput ? this.shapeOutput(this.refs) : this.refs.prev;
    const details: Record<string, unknown> = { trace: state.trace };
    if (this.annotations.length) details.annotations = this.annotations;
    if (state.continued.length) details.continued = state.continued;
    this.resolve({ success: true, output, effects: state.effects, details });
  }
}

/** The compile settings for a list of top-level nodes. */
export function createCompileEnv(nodes: readonly unknown[], options: PlanOptions): CompileEnv {
  return {
    strict: options.strict ?? false,
    references: options.references ?? true,
    stepTimeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    allNames: collectNames(nodes),
    errors: [],
    tools: new Set(),
    annotations: [],
  };
}

/**
 * Start a run: enter one level of composition (refusing at the depth limit or on a cycle) and
 * make the run's state. Every front door that runs plans starts here.
 */
export function enterRun(
  context: ToolExecutionContext,
  runOptions: PlanRunOptions,
  stepTimeoutMs: number,
): { ok: true; state: RunState } | { ok: false; refusal: ToolExecutionResult } {
  const refusal = compositionRefusal(context, runOptions.compositionId);
  if (refusal) return { ok: false, refusal };
  return { ok: true, state: runState(context, runOptions, stepTimeoutMs) };
}

/** The state of a run that {@link compositionRefusal} has let in. */
function runState(context: ToolExecutionContext, runOptions: PlanRunOptions, stepTimeoutMs: number): RunState {
  const nested = nestedContext(context, runOptions.compositionId, runOptions.signal, runOptions.reader);
  return {
    gate: runOptions.gate,
    startCall: startCallOf(runOptions.gate.call),
    sideEffectingTools: toToolSet(runOptions.sideEffectingTools),
    context: nested,
    signal: runOptions.signal ?? context.signal,
    dry: runOptions.dry,
    stepTimeoutMs,
    snapshots: runOptions.snapshots,
    compositionPath: nested.sessionData!.compositionPath as string[],
    effects: [],
    trace: [],
    recording: true,
    continued: [],
    undo: undefined,
    annotations: NO_ANNOTATIONS,
  };
}

/** The annotations around a top-level node: none. Shared: annotate makes a new list, never writes one. */
const NO_ANNOTATIONS: RunState['annotations'] = Object.freeze([]);
