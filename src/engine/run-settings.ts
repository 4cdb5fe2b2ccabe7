/**
 * What one run of a plan takes from the door that runs it: the gate and its settings, the host's
 * list of chainable tools, a dry run, the door itself; and how a run starts (one level of
 * composition deeper, with its frame and its state) and ends (its door's span ends with it).
 */
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../gate/budget.js';
import type { ResolvedTools } from '../gate/call-record.js';
import { compositionRefusal, nestedContext, type DoorEntry } from '../gate/depth.js';
import type { StepGate } from '../gate/options.js';
import { frameOf } from '../gate/run-frame.js';
import { gateSettings, type GateSettings } from '../gate/settings.js';
import { toToolSet, type SideEffectingTools } from '../gate/stages/chainable.js';
import type { ResultReader } from '../shaping/result-reader.js';
import type { DryRun, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { DoorInfo } from '../tool-events.js';
import type { RunState } from './run-state.js';
import { TRUSTED } from '../flows/label.js';
import type { SnapshotProvider } from './snapshot.js';

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
  /** Read a call's text result that is a JSON object or array as that value (compose, like run_js's `tools.<name>`). */
  readsJsonText?: boolean;
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
  /** The settings of the gate, when `createStepGate` made it; absent for a host-made gate (driven through its `run`). */
  readonly gateSettings: GateSettings | undefined;
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
  /** See {@link PlanRunOptions.readsJsonText}. */
  readonly readsJsonText: boolean;
}

const COMPOSITE_DOOR: DoorInfo = Object.freeze({ kind: 'composite' });

/** Make the settings of {@link RunSettings} from a run's options (their `signal` is not kept). */
export function runSettings(options: PlanRunOptions): RunSettings {
  const gate = options.gate;
  const internals = gateSettings(gate);
  return {
    gate,
    gateSettings: internals,
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
    readsJsonText: options.readsJsonText ?? false,
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
  settings: RunSettings,
  signal: AbortSignal | undefined,
  stepTimeoutMs: number,
): { ok: true; state: RunState } | { ok: false; refusal: ToolExecutionResult } {
  const refusal = compositionRefusal(context, settings.compositionId);
  if (refusal) return { ok: false, refusal };
  return { ok: true, state: runState(context, settings, signal, stepTimeoutMs) };
}

/** The settings of a dry run of `settings`' door: its own, made for that run. */
export function withDryRun(settings: RunSettings, dry: { stepOutputs: Record<string, unknown> } | undefined): RunSettings {
  return dry === undefined ? settings : { ...settings, dry, dryRun: true };
}

/** The state of a run that {@link compositionRefusal} has let in. */
export function runState(context: ToolExecutionContext, settings: RunSettings, signal: AbortSignal | undefined, stepTimeoutMs: number): RunState {
  const nested = nestedContext(context, settings, signal);
  const frame = frameOf(nested)!;
  return {
    gate: settings.gate,
    gateSettings: settings.gateSettings,
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
    readsJsonText: settings.readsJsonText,
    flows: settings.gateSettings?.flows,
    control: TRUSTED,
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

/** A run's result, once its door's span (when tracing) has ended with it. */
export function ended(state: RunState, result: ToolExecutionResult): ToolExecutionResult {
  state.frame.end(result);
  return result;
}
