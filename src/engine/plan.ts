/**
 * A spec compiled once into a plan: every mapping parsed, every node a closure. Running it
 * enters one level of composition (depth, cycle guard), walks the top-level steps, and turns
 * the outcome into one result with the effects ledger and the trace.
 */
import { failure } from '../codes.js';
import { compositionRefusal } from '../gate/depth.js';
import { messageOf } from '../gate/message-of.js';
import { NO_NAMES } from '../refs/no-names.js';
import type { RefScope, StepRead } from '../refs/scope.js';
import { collectNames } from '../spec/nodes.js';
import type { ComposableToolSpec, SpecNode } from '../spec/types.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { compileAt, createCompileEnv, type CompileEnv, type NodeSite, type PlanCall, type PlanOptions } from './compile-env.js';
import { compileNode } from './compile-node.js';
import { chainTrace, LeafChain } from './leaf-chain.js';
import { firstCallPerTool, precheckCalls } from './plan-precheck.js';
import { plannedOf, plannedRefusal, sumPlanned } from './planned-calls.js';
import { ended, runSettings, runState, type PlanRunOptions, type RunSettings } from './run-settings.js';
import type { NodeOutcome, NodePlan, PlainLeaf, RunState, TraceEntry } from './run-state.js';
import { runAuto, type ScheduledStep } from './schedule.js';
import { Sequence } from './sequence.js';
import { completedSteps, NO_STEPS, recordOutput } from './step-records.js';
import { labelDoorResult, withLabels } from './labels.js';
import type { LabelTree } from '../flows/label-tree.js';
import type { LabelAccessor } from '../flows/label-scope.js';

/** A compiled spec. */
export interface Plan {
  /** Every problem found while compiling (references); empty when the plan can run. */
  errors: string[];
  /** What lenient mode kept as written, one message each. */
  warnings: string[];
  /** Every tool name a node or a compensation may call. */
  tools: readonly string[];
  /** Every call it may make, in spec order: leaves, and compensations marked `undo`. */
  leaves: readonly PlanCall[];
  /** Run the plan. Never throws. */
  run(input: unknown, context: ToolExecutionContext, options: PlanRunOptions): Promise<ToolExecutionResult>;
  /**
   * Run the plan with settings made once ({@link runSettings}) by a front door that runs it again
   * and again: the same run as {@link Plan.run} with `options.signal` as `signal`. Never throws.
   */
  runWith(input: unknown, context: ToolExecutionContext, settings: RunSettings, signal: AbortSignal | undefined): Promise<ToolExecutionResult>;
  /**
   * Run the plan in a run its door has entered already (`enterRun`, with the plan's
   * `stepTimeoutMs`): for a door that checks something in the run before its first call. Never throws.
   */
  runEntered(input: unknown, context: ToolExecutionContext, settings: RunSettings, state: RunState): Promise<ToolExecutionResult>;
  /** Each step's timeout, as compiled: what a door that enters the run itself gives `enterRun`. */
  stepTimeoutMs: number;
  /** The join of the side-effect grades of every tool it may call, as `resolve` sees them now. */
  hasSideEffects(resolve: (name: string) => ITool | undefined): boolean;
}

/** Compile a structurally valid spec. */
export function compilePlan(spec: ComposableToolSpec, options: PlanOptions = {}): Plan {
  const env = createCompileEnv(spec.steps, options);
  const namesBefore = new Set<string>();
  // Under schedule 'auto', what each top-level step reads of the others, and every tool it may call.
  const auto = spec.schedule === 'auto';
  const stepOfName = new Map<string, number>();
  const scheduled: { reads: Set<number>; tools: string[] }[] = [];
  // Whether any reference reads an output by position (`$steps[n]`): only then do runs keep every output.
  let readsPositions = false;
  const notePosition = (read: StepRead): void => {
    if (read.kind === 'position') readsPositions = true;
  };
  const steps = spec.steps.map((node, i) => {
    const reads = new Set<number>();
    const site: NodeSite = {
      path: options.stepPath ? options.stepPath(i) : `steps[${i}]`,
      stepsBefore: i,
      namesBefore: new Set(namesBefore),
      hasPrev: i > 0,
      inForEach: false,
      inPipeStage: false,
      onRead: auto
        ? (read) => {
            notePosition(read);
            noteRead(read, i, reads, stepOfName);
          }
        : notePosition,
    };
    const leavesBefore = env.leaves.length;
    const plan = compileTolerant(node, env, site);
    for (const name of collectNames([node])) {
      namesBefore.add(name);
      stepOfName.set(name, i);
    }
    if (auto) scheduled.push({ reads, tools: [...new Set(env.leaves.slice(leavesBefore).map((call) => call.tool))] });
    return plan;
  });
  const schedule: ScheduledStep[] | undefined = auto ? steps.map((plan, i) => ({ plan, reads: [...scheduled[i].reads], tools: scheduled[i].tools })) : undefined;
  const outputSite: NodeSite = {
    path: 'output',
    stepsBefore: steps.length,
    namesBefore,
    hasPrev: true,
    inForEach: false,
    inPipeStage: false,
    onRead: notePosition,
  };
  let shapeOutput: ((scope: RefScope) => unknown) | undefined;
  let shapeLabels: LabelAccessor | undefined;
  if (spec.output !== undefined) {
    const mapping = compileAt(env, spec.output, outputSite, 'output');
    shapeOutput = mapping.accessor;
    shapeLabels = mapping.labels;
  }
  const tools = [...env.tools];
  const annotations = env.annotations;

  // Compile-time knowledge: a spec with no named node never writes `$steps.<name>`, so its runs
  // share one empty map instead of making one each.
  const hasNames = env.allNames.size > 0;
  // Likewise, a spec that reads no output by position (`$steps[n]`) needs only the last output.
  const keepSteps = readsPositions;
  // The most common shape, a top-level sequence of plain leaves, may run on the fast path.
  const chain = steps.every((step) => step.leaf !== undefined) ? steps.map((step) => step.leaf!) : undefined;
  const okTrace = chain ? chainTrace(chain) : [];

  // The floor of calls the steps will make, known before the first one starts.
  const planned = sumPlanned(steps.map(plannedOf));
  // Every call it may make, each tool once (the first step that calls it names the refusal).
  const calls = firstCallPerTool(env.leaves);

  const runWith: Plan['runWith'] = (input, context, settings, signal) => {
    const refusal = compositionRefusal(context, settings.compositionId);
    if (refusal) return Promise.resolve(refusal);
    return runEntered(input, context, settings, runState(context, settings, signal, env.stepTimeoutMs));
  };

  const runEntered: Plan['runEntered'] = (input, context, settings, state) => {
    const over = plannedRefusal(state, planned, { input, prev: undefined, steps: [], named: NO_NAMES });
    if (over) return Promise.resolve(ended(state, over));
    if (settings.precheck) {
      // Every call the plan may make is checked before the first runs, so a refusal comes before any effect.
      const refused = precheckCalls(state, settings, calls);
      if (refused) return Promise.resolve(ended(state, runResult(state, { input, prev: undefined, steps: [], named: NO_NAMES }, refused, undefined, annotations)));
    }
    // The executor is one shared function, not a closure made per run (see `capture`).
    const promise = new Promise<ToolExecutionResult>(capture);
    const resolve = captured!;
    captured = undefined;
    // Never rejects: callers hand this promise on as their own result, with no try around an await.
    try {
      const named = hasNames ? new Map() : NO_NAMES;
      const ending: RunEnding = { shapeOutput, shapeLabels, annotations, resolve };
      if (schedule !== undefined) runScheduled(schedule, state, withLabels({ input, prev: undefined, steps: [], named }, state, context, !env.references), ending);
      else {
        // What the steps' references read: the input and the outputs so far (and their labels, when followed).
        const refs = withLabels({ input, prev: undefined, steps: keepSteps ? [] : NO_STEPS, named }, state, context, !env.references);
        // A dry run, and a gate a host made, take the general path.
        if (chain !== undefined && settings.dry === undefined && settings.gateSettings !== undefined) new ChainRun(chain, okTrace, state, refs, ending).start();
        else new PlanRun(steps, state, refs, ending).start();
      }
    } catch (error) {
      resolve(failure('step_threw', `The run failed unexpectedly: ${messageOf(error)}`));
    }
    return promise;
  };

  return {
    errors: env.errors,
    warnings: env.warnings,
    tools,
    leaves: env.leaves,
    hasSideEffects: (resolve) => tools.some((name) => resolve(name)?.hasSideEffects !== false),
    stepTimeoutMs: env.stepTimeoutMs,
    run: (input, context, runOptions) => runWith(input, context, runSettings(runOptions), runOptions.signal),
    runWith,
    runEntered,
  };
}

/**
 * Compile a node that may be malformed (validation compiles every step it can, so a structural
 * problem in one step does not hide a reference problem in another): a node the compiler cannot
 * read becomes a plan that refuses to run. Its problem is the structure check's to report.
 */
function compileTolerant(node: SpecNode, env: CompileEnv, site: NodeSite): NodePlan {
  try {
    return compileNode(node, env, site);
  } catch (error) {
    const refuse: NodePlan = () =>
      Promise.resolve({ ok: false, failure: failure('spec_invalid', `${site.path} cannot be compiled: ${messageOf(error)}`) });
    refuse.planned = 0;
    return refuse;
  }
}

/**
 * Where {@link capture} leaves the resolve function of the promise being made. A promise's
 * executor runs synchronously inside its constructor, so the slot is read (and cleared) right
 * after `new Promise(capture)`, before anything else can run.
 */
let captured: ((result: ToolExecutionResult) => void) | undefined;
/** The executor every run's promise shares: it only hands its resolve function to {@link captured}. */
function capture(resolve: (result: ToolExecutionResult) => void): void {
  captured = resolve;
}

/** One run of a plan's top-level steps: each sees the outputs so far; the end becomes the run's result. */
class PlanRun extends Sequence {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  /** What the steps' references read: the input and the outputs so far. */
  private declare readonly refs: RefScope;
  private declare readonly ending: RunEnding;

  constructor(steps: readonly NodePlan[], state: RunState, refs: RefScope, ending: RunEnding) {
    super(steps, state);
    this.refs = refs;
    this.ending = ending;
  }

  protected override scopeAt(): RefScope {
    return this.refs;
  }

  protected override output(_index: number, output: unknown, label: LabelTree | undefined): void {
    recordOutput(this.refs, output, label);
  }

  protected override end(failed: NodeOutcome | undefined): void {
    endRun(this.ending, this.runState, this.refs, failed);
  }
}

/** One run of a plan that is a top-level sequence of plain leaves, on the fast path: see {@link LeafChain}. */
class ChainRun extends LeafChain {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly ending: RunEnding;

  constructor(leaves: readonly PlainLeaf[], okTrace: readonly TraceEntry[], state: RunState, refs: RefScope, ending: RunEnding) {
    super(leaves, okTrace, state, refs);
    this.ending = ending;
  }

  protected override end(failed: NodeOutcome | undefined): void {
    endRun(this.ending, this.runState, this.refs, failed);
  }
}

/** Note an earlier output step `i` reads; a read of its own inner nodes is not a dependency. */
function noteRead(read: StepRead, i: number, reads: Set<number>, stepOfName: ReadonlyMap<string, number>): void {
  const from = read.kind === 'prev' ? i - 1 : read.kind === 'position' ? read.index : stepOfName.get(read.name) ?? -1;
  if (from >= 0 && from < i) reads.add(from);
}

/** Run the top-level steps under `schedule: 'auto'`, then end the run as a sequence would. */
function runScheduled(schedule: readonly ScheduledStep[], state: RunState, refs: RefScope, ending: RunEnding): void {
  runAuto(schedule, state, refs, true).then(
    ({ outputs, labels, failed }) => {
      refs.steps = outputs;
      refs.prev = outputs[outputs.length - 1];
      if (refs.labels !== undefined) {
        refs.labels.steps = labels;
        refs.labels.prev = labels[labels.length - 1] ?? refs.labels.prev;
      }
      endRun(ending, state, refs, failed);
    },
    (error: unknown) => ending.resolve(ended(state, failure('step_threw', `The run failed unexpectedly: ${messageOf(error)}`))),
  );
}

/** What both kinds of run need at their end: the plan's output mapping and annotations, and where the result goes. */
interface RunEnding {
  shapeOutput: ((scope: RefScope) => unknown) | undefined;
  /** The labels of what the output mapping resolves to. */
  shapeLabels: LabelAccessor | undefined;
  annotations: CompileEnv['annotations'];
  resolve: (result: ToolExecutionResult) => void;
}

/** Hand a finished run's result on. */
function endRun(ending: RunEnding, state: RunState, refs: RefScope, failed: NodeOutcome | undefined): void {
  const result = runResult(state, refs, failed, ending.shapeOutput, ending.annotations);
  // What the output is labelled, when the run follows labels (a failure: all the run read, by default).
  const labels = refs.labels;
  if (labels !== undefined && result.success) labelDoorResult(state, result, ending.shapeLabels ? ending.shapeLabels(labels) : labels.prev);
  ending.resolve(ended(state, result));
}

/** The result of a run of top-level steps: the failure that stopped it with its details, or the (mapped) output. */
function runResult(
  state: RunState,
  refs: RefScope,
  failed: NodeOutcome | undefined,
  shapeOutput: ((scope: RefScope) => unknown) | undefined,
  annotations: CompileEnv['annotations'],
): ToolExecutionResult {
  if (failed && !failed.ok) {
    const f = failed.failure;
    return {
      success: false,
      error: f.error,
      details: { ...f.details, completed: completedSteps(state.trace), effects: state.effects, trace: state.trace },
      effects: state.effects,
    };
  }
  const output = shapeOutput ? shapeOutput(refs) : refs.prev;
  const details: Record<string, unknown> = { trace: state.trace };
  if (annotations.length) details.annotations = annotations;
  if (state.continued.length) details.continued = state.continued;
  return { success: true, output, effects: state.effects, details };
}

