/**
 * What one run of a plan carries: the gate and the host's rule, the context the steps see,
 * the effects ledger, the trace, and the undo log of the innermost rolling-back scope.
 */
import type { CallBudget } from '../gate/budget.js';
import type { CallDoor, GateCall, ResolvedTools } from '../gate/call-record.js';
import type { StepGate } from '../gate/options.js';
import type { RunFrame } from '../gate/run-frame.js';
import type { GateSettings } from '../gate/settings.js';
import type { RefScope } from '../refs/scope.js';
import type { EffectRecord, ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { SnapshotProvider } from './snapshot.js';
import type { GateFlows } from '../flows/gate-flows.js';
import type { Label } from '../flows/label.js';
import type { LabelTree } from '../flows/label-tree.js';

/**
 * One entry of a run's trace: a node that ran, failed or was skipped.
 *
 * @category Build composites
 */
export interface TraceEntry {
  /** The node's label: its name, or its place in the spec (`steps[1].calls.source`). */
  step: string;
  /** The tool, for a leaf. */
  tool?: string;
  /** Whether it succeeded. */
  ok: boolean;
  /** It was skipped by its `when`. */
  skipped?: true;
  /** The failure code, when it failed. */
  code?: string;
  /** Its output came from `dry.stepOutputs`. */
  dry?: true;
  /** How many tries it took, when more than one. */
  attempts?: number;
  /** The intent of the annotate node around it. */
  intent?: string;
  /** The hypothesis of the annotate node around it. */
  hypothesis?: string;
  /** For a for_each: how many items ran (its items are not listed one by one). */
  items?: number;
}

/** An action that undoes a step: run in reverse order when a scope rolls back. */
export interface UndoAction {
  /** The step it undoes. */
  step: string;
  /** The compensating tool (absent for a snapshot restore). */
  tool?: string;
  /** Do it; resolves to the undo's own result. */
  run(): Promise<ToolExecutionResult>;
}

/**
 * The state of one run. Combinators share it; a scope swaps in its own undo log. It is the door
 * every call of the run comes through (see `CallDoor`).
 */
export interface RunState extends CallDoor {
  gate: StepGate;
  /** The settings of the gate, when `createStepGate` made it; absent for a host-made gate (driven through its `run`). */
  gateSettings: GateSettings | undefined;
  sideEffectingTools: ReadonlySet<string>;
  /** The context the steps get (depth one more than the caller's, the run's signal). */
  context: ToolExecutionContext;
  signal: AbortSignal | undefined;
  dry: { stepOutputs: Record<string, unknown> } | undefined;
  stepTimeoutMs: number;
  snapshots: SnapshotProvider | undefined;
  /** The ids of compositions on the call path, for the cycle guard. */
  compositionPath: readonly string[];
  effects: EffectRecord[];
  trace: TraceEntry[];
  /**
   * Whether leaves add themselves to the trace. A for_each turns it off
   * for its items and records one entry for them all: ten thousand identical entries help no one.
   * The effects ledger is always kept in full.
   */
  recording: boolean;
  /** The failures of nodes with `onError: 'continue'`, in order. */
  continued: ToolExecutionResult[];
  /** Where undo actions go: the innermost rolling-back scope's log, if any. */
  undo: UndoAction[] | undefined;
  /** The annotations around the node now running, innermost last. */
  annotations: readonly { intent: string; hypothesis?: string }[];
  /** The frame the run's calls carry (the budget, the door), handed to the gate with each call. */
  frame: RunFrame;
  /** The budget of the call from outside this run belongs to (shared with every nested door). */
  budget: CallBudget;
  /** The host's registry version (`StepGateOptions.version`), when it gave one. */
  version: (() => unknown) | undefined;
  /** The tools the run's check resolved, and the registry version they were resolved at: reused while it stays the same. */
  resolved: ResolvedTools | undefined;
  /** Check each call's arguments against its tool's `inputSchema` before it runs. */
  validateArgs: boolean;
  /** Read a call's text result that is a JSON object or array as that value. */
  readsJsonText: boolean;
  /** The gate's rules for untrusted data, when it has `flows`: then the run follows labels. */
  flows: GateFlows | undefined;
  /** What decided that the calls now made are made (the conditions and lists on their way), when the run follows labels. */
  control: Label;
}

/**
 * What a node's run comes to: its output, or the failure that ended it; with the label of what it
 * answered when the run follows labels (see `labels.ts`).
 */
export type NodeOutcome = { ok: true; output: unknown; label?: LabelTree } | { ok: false; failure: ToolExecutionResult; label?: LabelTree };

/**
 * A compiled node: runs against the run's state and the references' scope. Never throws.
 * A leaf also carries `drive`, its lane form, so a sequence of quick steps runs without a
 * promise and an async frame per step.
 */
export type NodePlan = ((state: RunState, scope: RefScope) => Promise<NodeOutcome>) & {
  drive?: DrivePlan;
  /**
   * The compiled leaf, when the node is a plain leaf: no compensation and no common field but a
   * name. A top-level sequence of them runs on the fast path (see `LeafChain`).
   */
  leaf?: PlainLeaf;
  /** The floor of calls it will make on its normal path (see `planned-calls.ts`); set by `compileNode`. */
  planned?: Planned;
};

/** The lane form of a plan: the outcome when known at once, else `undefined` and the lane's owner takes it once. */
export type DrivePlan = (state: RunState, scope: RefScope, lane: LaneRecord) => NodeOutcome | undefined;

/** What a leaf records its result with, once its call through the gate has delivered. */
export interface LeafRecorder {
  /** Turn the result of `call` into the leaf's outcome: the ledger, the trace, the undo log. */
  finish(call: GateCall, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome;
}

/** Who waits on a lane: a sequence, a for_each run, a gather run. */
export interface LaneOwner {
  /** The plan started in `lane` finished with `outcome`; called once per plan started. */
  take(outcome: NodeOutcome, lane: LaneRecord): void;
}

/** A lane (see `lanes.ts`): the record of the leaf call it runs, and what that leaf needs when it delivers. */
export interface LaneRecord extends GateCall {
  /** Who takes the outcomes of the plans run in this lane. */
  readonly owner: LaneOwner;
  /** The leaf whose call is in flight. */
  leaf: LeafRecorder | undefined;
  /** That leaf's run state. */
  state: RunState | undefined;
  /** That leaf's scope. */
  scope: RefScope | undefined;
  /** The owner's own note of what runs here (a for_each worker's number, a gather call's position). */
  position: number;
}

/**
 * A compiled plain leaf (`leaf.ts`), as the fast paths drive it: a top-level chain, a for_each
 * whose template is one, a gather of them.
 */
export interface PlainLeaf {
  /** The step's label: its name, or its place in the spec. */
  readonly label: string;
  /** The tool it calls. */
  readonly toolName: string;
  /** The node's name, under which its output is recorded (`$steps.<name>`). */
  readonly name: string | undefined;
  /** Its trace entry for a success with no annotation around it. */
  readonly okEntry: TraceEntry;
  /** Send its call through the pipeline in `call`: the result at once, else `call.deliver` gets it. */
  start(call: GateCall, state: RunState, scope: RefScope): ToolExecutionResult | undefined;
  /** Record a successful call in the effects ledger, when its tool has side effects. */
  recordEffect(tool: ITool, state: RunState): void;
  /** Record a successful call: the effects ledger, then the trace. */
  recordSuccess(tool: ITool, state: RunState): void;
}

/** A node's floor of planned calls: a number when it does not depend on the run, else read from the scope (see `planned-calls.ts`). */
export type Planned = number | ((scope: RefScope) => number);

