/**
 * A spec compiled once into a plan: every mapping parsed, every node a closure. Running it
 * enters one level of composition (depth, cycle guard), walks the top-level steps, and turns
 * the outcome into one result with the effects ledger and the trace.
 */
import { failure } from '../codes.js';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../gate/budget.js';
import { chainRefusal, isChainable, namesOf, toToolSet, type SideEffectingTools } from '../gate/chainable.js';
import { compositionRefusal, nestedContext, type DoorEntry } from '../gate/depth.js';
import { observeRefusal } from '../gate/events.js';
import { gateInternals, type StartCall } from '../gate/gate-call.js';
import { frameOf, type DoorInfo } from '../gate/run-frame.js';
import { messageOf, type StepGate } from '../gate/step-gate.js';
import type { RefScope, StepRead } from '../refs/scope.js';
import type { ResultReader } from '../shaping/result-reader.js';
import { inputPathCheck } from '../spec/input-paths.js';
import { collectNames } from '../spec/nodes.js';
import type { ComposableToolSpec, SpecNode } from '../spec/types.js';
import type { DryRun, ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { compileAt, type CompileEnv, type NodeSite, type PlanCall } from './compile-env.js';
import { compileNode } from './compile-node.js';
import { LeafChain, chainTrace, failed, type Leaf } from './leaf.js';
import { plannedOf, plannedRefusal, sumPlanned } from './planned-calls.js';
import { runAuto, type ScheduledStep } from './schedule.js';
import { NO_STEPS, Sequence, completedSteps, recordOutput, type NodeOutcome, type NodePlan, type ResolvedTools, type RunState, type TraceEntry } from './run-state.js';
import type { SnapshotProvider } from './snapshot.js';

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
  /** Check every call the plan may make against the chainability rule before the first runs. */
  precheck?: boolean;
  /** Check each call's arguments against its tool's `inputSchema` (`args_invalid`). */
  validateArgs?: boolean;
  /** Which door runs the plan, for approvals and traces (default: a composite). */
  door?: DoorInfo;
}

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
  if (spec.output !== undefined) {
    const mapping = compileAt(env, spec.output, outputSite, 'output');
    shapeOutput = mapping.accessor;
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
    const state = runState(context, settings, signal, env.stepTimeoutMs);
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
      const ending: RunEnding = { shapeOutput, annotations, resolve };
      if (schedule !== undefined) runScheduled(schedule, state, input, named, ending);
      else {
        // What the steps' references read: the input and the outputs so far.
        const refs: RefScope = { input, prev: undefined, steps: keepSteps ? [] : NO_STEPS, named };
        // A dry run, and a gate a host made, take the general path.
        if (chain !== undefined && settings.dry === undefined && settings.startCall !== undefined) new ChainRun(chain, okTrace, state, refs, ending).start();
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
    run: (input, context, runOptions) => runWith(input, context, runSettings(runOptions), runOptions.signal),
    runWith,
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

/**
 * The `named` map of a run whose spec names no node: no node can write it (only a named node
 * does), and a `$steps.<name>` reference reads nothing from it. Shared, and refuses writes so a
 * mistake could never leak one run's output into another.
 */
class NoNames extends Map<string, unknown> {
  override set(): this {
    throw new Error('This spec names no node: there is nothing to record by name.');
  }
}
const NO_NAMES: Map<string, unknown> = new NoNames();

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

  protected override output(_index: number, output: unknown): void {
    recordOutput(this.refs, output);
  }

  protected override end(failed: NodeOutcome | undefined): void {
    endRun(this.ending, this.runState, this.refs, failed);
  }
}

/** One run of a plan that is a top-level sequence of plain leaves, on the fast path: see {@link LeafChain}. */
class ChainRun extends LeafChain {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly ending: RunEnding;

  constructor(leaves: readonly Leaf[], okTrace: readonly TraceEntry[], state: RunState, refs: RefScope, ending: RunEnding) {
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
function runScheduled(schedule: readonly ScheduledStep[], state: RunState, input: unknown, named: Map<string, unknown>, ending: RunEnding): void {
  runAuto(schedule, state, input, named, true).then(
    ({ outputs, failed }) => endRun(ending, state, { input, prev: outputs[outputs.length - 1], steps: outputs, named }, failed),
    (error: unknown) => ending.resolve(ended(state, failure('step_threw', `The run failed unexpectedly: ${messageOf(error)}`))),
  );
}

/** The first call of each tool among `calls`: the rule is the tool's, so one check per tool is enough. */
function firstCallPerTool(calls: readonly PlanCall[]): PlanCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.tool) && seen.add(call.tool));
}

/**
 * The refusal of the first call (in spec order) the chainability rule refuses as the registry
 * stands now, or `undefined`. A call to the composition being run is left to the cycle guard.
 * When the host's registry version is the one the last check saw, that check stands and its
 * tools are reused by the run's steps; otherwise every tool is resolved and checked again.
 */
function precheckCalls(state: RunState, settings: RunSettings, calls: readonly PlanCall[]): NodeOutcome | undefined {
  const version = settings.version;
  const seen = version ? version() : undefined;
  const last = settings.checked;
  if (last !== undefined && seen === last.version) {
    state.resolved = last;
    return undefined;
  }
  const { gate, sideEffectingTools } = state;
  const compositionId = settings.compositionId;
  // Kept only when a version can say later that they still stand: without one, nothing reads them.
  const bySlot: (ITool | undefined)[] | undefined = version ? [] : undefined;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const tool = gate.resolve(call.tool);
    if (bySlot) bySlot[call.slot] = tool;
    // A call to the composition being run is the cycle guard's to refuse, at run time.
    if (!isChainable(call.tool, tool, sideEffectingTools) && !isComposition(tool, compositionId)) {
      const refusal = chainRefusal(call.tool, tool, namesOf(gate), gate.advice);
      observeRefusal(state.context, state.frame, call.tool, tool, call.label, refusal);
      return failed(state, call.label, call.tool, refusal);
    }
  }
  if (bySlot) {
    settings.checked = { version: seen, bySlot };
    state.resolved = settings.checked;
  }
  return undefined;
}

/** Whether `tool` is the composition `compositionId` (the one being run). */
function isComposition(tool: ITool | undefined, compositionId: string | undefined): boolean {
  return tool !== undefined && compositionId !== undefined && tool.id === compositionId;
}

/** What both kinds of run need at their end: the plan's output mapping and annotations, and where the result goes. */
interface RunEnding {
  shapeOutput: ((scope: RefScope) => unknown) | undefined;
  annotations: CompileEnv['annotations'];
  resolve: (result: ToolExecutionResult) => void;
}

/** Hand a finished run's result on. */
function endRun(ending: RunEnding, state: RunState, refs: RefScope, failed: NodeOutcome | undefined): void {
  ending.resolve(ended(state, runResult(state, refs, failed, ending.shapeOutput, ending.annotations)));
}

/** A run's result, once its door's span (when tracing) has ended with it. */
export function ended(state: RunState, result: ToolExecutionResult): ToolExecutionResult {
  state.frame.end(result);
  return result;
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

/** The compile settings for a list of top-level nodes. */
export function createCompileEnv(nodes: readonly unknown[], options: PlanOptions): CompileEnv {
  return {
    strict: options.strict ?? false,
    references: options.references ?? true,
    stepTimeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    allNames: collectNames(nodes),
    checkInputPath: options.inputSchema !== undefined ? inputPathCheck(options.inputSchema) : undefined,
    errors: [],
    warnings: [],
    tools: new Set(),
    leaves: [],
    toolSlots: new Map(),
    annotations: [],
  };
}

/**
 * What a run takes from its caller that does not change from one run to the next: everything in
 * {@link PlanRunOptions} but the signal, with the gate's internals looked up and the host's list
 * made a set. A front door that runs the same plan again and again (a built composite) makes it
 * once and makes it again only when {@link settingsFit} says it no longer fits.
 */
export interface RunSettings extends DoorEntry {
  /** The gate every step passes. */
  readonly gate: StepGate;
  /** The gate's record form, when `createStepGate` made it; absent for a host-made gate (driven through its `run`). */
  readonly startCall: StartCall | undefined;
  /** The host's registry version, when its gate has one. */
  readonly version: (() => unknown) | undefined;
  /**
   * The tools the last check of every call resolved, at the registry version it saw: a run that
   * sees the same version reuses them (see `StepGateOptions.version`). Written by the runs.
   */
  checked: ResolvedTools | undefined;
  /** The host's list of side-effecting tools that may be chained, as a set. */
  readonly sideEffectingTools: ReadonlySet<string>;
  /** Dry run: side-effecting and composite steps take their outputs from here. */
  readonly dry: { stepOutputs: Record<string, unknown> } | undefined;
  /** The host's snapshot/restore pair. */
  readonly snapshots: SnapshotProvider | undefined;
  /** The budget limits of a call from outside that starts with this run. */
  readonly limits: Readonly<BudgetLimits>;
  /** See {@link PlanRunOptions.precheck}. */
  readonly precheck: boolean;
  /** See {@link PlanRunOptions.validateArgs}. */
  readonly validateArgs: boolean;
}

const COMPOSITE_DOOR: DoorInfo = Object.freeze({ kind: 'composite' });

/** Make the settings of {@link RunSettings} from a run's options (their `signal` is not kept). */
export function runSettings(options: PlanRunOptions): RunSettings {
  const gate = options.gate;
  const internals = gateInternals(gate);
  return {
    gate,
    startCall: internals?.start,
    version: internals?.version,
    checked: undefined,
    // A door hands over the set it made once (a copy of the host's list); a list is made a set here.
    sideEffectingTools: options.sideEffectingTools instanceof Set ? options.sideEffectingTools : toToolSet(options.sideEffectingTools),
    dry: options.dry,
    snapshots: options.snapshots,
    compositionId: options.compositionId,
    reader: options.reader,
    limits: internals?.limits ?? DEFAULT_BUDGET_LIMITS,
    door: options.door ?? COMPOSITE_DOOR,
    precheck: options.precheck ?? false,
    validateArgs: options.validateArgs ?? false,
    tracer: internals?.tracer,
    traceMessages: internals?.traceMessages,
    dryRun: options.dry !== undefined,
  };
}

/**
 * Whether settings made earlier still describe a run through `gate` with `sideEffectingTools`:
 * the same gate (a gate `createStepGate` made is frozen) and the same set of chainable tools.
 */
export function settingsFit(settings: RunSettings, gate: StepGate, sideEffectingTools: ReadonlySet<string>): boolean {
  return settings.gate === gate && settings.sideEffectingTools === sideEffectingTools;
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
  return { ok: true, state: runState(context, runSettings(runOptions), runOptions.signal, stepTimeoutMs) };
}

/** The state of a run that {@link compositionRefusal} has let in. */
function runState(context: ToolExecutionContext, settings: RunSettings, signal: AbortSignal | undefined, stepTimeoutMs: number): RunState {
  const nested = nestedContext(context, settings, signal);
  const frame = frameOf(nested)!;
  return {
    gate: settings.gate,
    startCall: settings.startCall,
    sideEffectingTools: settings.sideEffectingTools,
    context: nested,
    signal: signal ?? context.signal,
    dry: settings.dry,
    stepTimeoutMs,
    snapshots: settings.snapshots,
    compositionPath: frame.path,
    frame,
    budget: frame.budget,
    version: settings.version,
    resolved: undefined,
    validateArgs: settings.validateArgs,
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

/** The dry run a host asked for in `context.dryRun`, in the engine's form; `undefined` for a real run. */
export function dryRunOf(context: ToolExecutionContext): { stepOutputs: Record<string, unknown> } | undefined {
  const dry = context.dryRun;
  if (dry === undefined || dry === null || typeof dry !== 'object') return undefined;
  const outputs = (dry as DryRun).stepOutputs;
  return { stepOutputs: typeof outputs === 'object' && outputs !== null ? outputs : {} };
}
