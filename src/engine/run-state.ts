/**
 * What one run of a plan carries: the gate and the host's rule, the context the steps see,
 * the effects ledger, the trace, and the undo log of the innermost rolling-back scope.
 */
import type { SnapshotProvider } from './snapshot.js';
import type { RefScope } from '../refs/scope.js';
import type { StepGate } from '../gate/step-gate.js';
import type { Leaf } from './leaf.js';
import type { Planned } from './planned-calls.js';
import type { CallBudget } from '../gate/budget.js';
import type { RunFrame } from '../gate/run-frame.js';
import { GateCall, type StartCall } from '../gate/gate-call.js';
import { release } from '../gate/watchdog.js';
import type { EffectRecord, ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';

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

/** The state of one run. Combinators share it; a scope swaps in its own undo log. */
export interface RunState {
  gate: StepGate;
  /** The gate's record form, when `createStepGate` made the gate; absent for a host-made gate (driven through its `run`). */
  startCall: StartCall | undefined;
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
}

/** Tools resolved by name at a registry version. */
export interface ResolvedTools {
  /** The host's registry version when they were resolved. */
  version: unknown;
  /** Each tool by its place among the plan's tools (a leaf's `slot`): one array read a step. */
  bySlot: readonly (ITool | undefined)[];
}

/** What a node's run comes to: its output, or the failure that ended it. */
export type NodeOutcome = { ok: true; output: unknown } | { ok: false; failure: ToolExecutionResult };

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
  leaf?: Leaf;
  /** The floor of calls it will make on its normal path (see `planned-calls.ts`); set by `compileNode`. */
  planned?: Planned;
};

/** The lane form of a plan: the outcome when known at once, else `undefined` and the lane's owner takes it once. */
export type DrivePlan = (state: RunState, scope: RefScope, lane: Lane) => NodeOutcome | undefined;

/** What a leaf records its result with, once its call through the gate has delivered. */
export interface LeafRecorder {
  /** Turn the call's result into the leaf's outcome: the ledger, the trace, the undo log. */
  finish(tool: ITool, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome;
}

/** Who waits on a lane: a sequence, a for_each run, a gather run. */
export interface LaneOwner {
  /** The plan started in `lane` finished with `outcome`; called once per plan started. */
  take(outcome: NodeOutcome, lane: Lane): void;
}

/**
 * Where plans run one at a time for an owner: a sequence, one for_each worker, one gather call.
 * The lane is also the gate's record for the leaf call it runs, so a run of leaves reuses one
 * record (and the gate's two promise callbacks) instead of making a record and closures per
 * call; the one-at-a-time rule is what makes the reuse safe. Every lane is this one class, so the
 * gate's hot path sees one shape.
 */
export class Lane extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall (a gather makes one per call).
  /** Who takes the outcomes of the plans run in this lane. */
  declare readonly owner: LaneOwner;
  /** The leaf whose call is in flight. */
  declare leaf: LeafRecorder | undefined;
  /** That leaf's run state. */
  declare state: RunState | undefined;
  /** That leaf's scope. */
  declare scope: RefScope | undefined;
  /** The owner's own note of what runs here (a for_each worker's number, a gather call's position). */
  declare position: number;

  /** @param owner - who takes the outcomes of the plans run in this lane */
  constructor(owner: LaneOwner) {
    super();
    this.owner = owner;
    this.leaf = undefined;
    this.state = undefined;
    this.scope = undefined;
    this.position = 0;
  }

  /** The leaf's call delivered: record it as the leaf does, and hand the outcome to the owner. */
  override deliver(result: ToolExecutionResult): void {
    this.owner.take(this.leaf!.finish(this.tool, this.state!, this.scope!, result), this);
  }
}

/** An owner that settles a promise, for running a driven plan as a promise. */
class ResolveOwner implements LaneOwner {
  private declare readonly resolve: (outcome: NodeOutcome) => void;

  constructor(resolve: (outcome: NodeOutcome) => void) {
    this.resolve = resolve;
  }

  take(outcome: NodeOutcome): void {
    this.resolve(outcome);
  }
}

/** A plan from its callback form; the plan keeps `drive` so sequences can use it directly. */
export function fromDrive(drive: DrivePlan): NodePlan {
  const plan: NodePlan = (state, scope) =>
    new Promise((resolve) => {
      const now = drive(state, scope, new Lane(new ResolveOwner(resolve)));
      if (now) resolve(now);
    });
  plan.drive = drive;
  return plan;
}

/**
 * Start a plan in `lane`: the outcome when known at once, else `undefined` and the lane's owner
 * takes it once. A driven plan (a leaf) is driven directly; any other plan through its promise.
 */
export function startPlan(plan: NodePlan, state: RunState, scope: RefScope, lane: Lane): NodeOutcome | undefined {
  if (plan.drive) return plan.drive(state, scope, lane);
  plan(state, scope).then(
    (outcome) => lane.owner.take(outcome, lane),
    (error: unknown) => lane.owner.take(threwOutcome(error), lane),
  );
  return undefined;
}

/**
 * Plans run one after another, in one lane. A step that completes at once is handled in the loop,
 * so a long run of refusals or dry outputs does not grow the stack; a step in flight calls back
 * into {@link Sequence.take}. A subclass says which scope each step sees, what an output does, and
 * how the sequence ends ({@link Sequence.end} is called exactly once). One object per sequence
 * run (and one lane), and no closure per step.
 */
export abstract class Sequence implements LaneOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  /** The steps, in order. */
  protected declare readonly plans: readonly NodePlan[];
  /** The run's state, shared by every step. */
  protected declare readonly runState: RunState;
  /** The step now running (or next to run). */
  private declare at: number;
  private declare finished: boolean;
  /** Where the steps run, one after another. */
  private declare readonly lane: Lane;

  /**
   * @param plans - the steps, in order
   * @param runState - the run's state, shared by every step
   */
  constructor(plans: readonly NodePlan[], runState: RunState) {
    this.plans = plans;
    this.runState = runState;
    this.at = 0;
    this.finished = false;
    this.lane = new Lane(this);
    this.lane.reused = true;
  }

  /** The scope step `index` sees. */
  protected abstract scopeAt(index: number): RefScope;
  /** Step `index` succeeded with `output`. */
  protected abstract output(index: number, output: unknown): void;
  /** The sequence is over: `undefined` when every step succeeded, else the failure that stopped it. */
  protected abstract end(failed: NodeOutcome | undefined): void;

  /** Start the sequence. */
  start(): void {
    this.go(undefined);
  }

  /** The step in flight finished. */
  take(outcome: NodeOutcome): void {
    this.go(outcome);
  }

  /** Record `outcome` (the last step's, if any), then run steps until one is in flight or the sequence ends. */
  private go(outcome: NodeOutcome | undefined): void {
    // Plans do not throw by design; if a host object's getter does, the run still ends with a result.
    try {
      const plans = this.plans;
      for (;;) {
        if (outcome) {
          if (!outcome.ok) return this.finish(outcome);
          this.output(this.at, outcome.output);
          this.at++;
        }
        if (this.at >= plans.length) return this.finish(undefined);
        outcome = startPlan(plans[this.at], this.runState, this.scopeAt(this.at), this.lane);
        if (!outcome) return;
      }
    } catch (error) {
      this.finish(threwOutcome(error));
    }
  }

  private finish(outcome: NodeOutcome | undefined): void {
    if (this.finished) return;
    this.finished = true;
    release(this.lane);
    this.end(outcome);
  }
}

/** A sequence whose hooks are callbacks: {@link runSequence}. */
class CallbackSequence extends Sequence {
  private declare readonly scopeFor: (index: number) => RefScope;
  private declare readonly onOutput: (index: number, output: unknown) => void;
  private declare readonly onEnd: (outcome: NodeOutcome | undefined) => void;

  constructor(
    plans: readonly NodePlan[],
    state: RunState,
    scopeFor: (index: number) => RefScope,
    onOutput: (index: number, output: unknown) => void,
    onEnd: (outcome: NodeOutcome | undefined) => void,
  ) {
    super(plans, state);
    this.scopeFor = scopeFor;
    this.onOutput = onOutput;
    this.onEnd = onEnd;
  }

  protected override scopeAt(index: number): RefScope {
    return this.scopeFor(index);
  }

  protected override output(index: number, output: unknown): void {
    this.onOutput(index, output);
  }

  protected override end(failed: NodeOutcome | undefined): void {
    this.onEnd(failed);
  }
}

/**
 * Run plans one after another, each seeing the previous one's output through `onOutput`.
 * `finish` is called exactly once, with `undefined` when every step succeeded.
 */
export function runSequence(
  plans: readonly NodePlan[],
  state: RunState,
  scopeFor: (index: number) => RefScope,
  onOutput: (index: number, output: unknown) => void,
  finish: (outcome: NodeOutcome | undefined) => void,
): void {
  new CallbackSequence(plans, state, scopeFor, onOutput, finish).start();
}

/**
 * The labels of the nodes that completed, in order: the trace's entries that succeeded and were
 * not skipped (leaves, dry outputs, whole for_each nodes). Derived when a run fails rather than
 * kept beside the trace on every step.
 */
export function completedSteps(trace: readonly TraceEntry[]): string[] {
  const completed: string[] = [];
  for (const e of trace) if (e.ok && !e.skipped) completed.push(e.step);
  return completed;
}

/**
 * The `steps` list of a run whose spec reads no output by position (`$steps[n]`): nothing reads
 * it, so its runs share this one instead of filling one each (see {@link recordOutput}). Frozen,
 * so a write could never leak one run's output into another.
 */
export const NO_STEPS = Object.freeze([]) as unknown as unknown[];

/** A top-level step's output, as the steps after it read it: `$prev`, and `$steps[n]` when kept. */
export function recordOutput(refs: RefScope, output: unknown): void {
  if (refs.steps !== NO_STEPS) refs.steps.push(output);
  refs.prev = output;
}

/** The outcome of a plan that threw, which plans never do by design. */
export function threwOutcome(error: unknown): NodeOutcome {
  return {
    ok: false,
    failure: {
      success: false,
      error: `The run failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
      details: { code: 'step_threw' },
    },
  };
}

/** A successful outcome. */
export function done(output: unknown): NodeOutcome {
  return { ok: true, output };
}

/** The code of a failure result. */
export function codeOf(result: ToolExecutionResult): string | undefined {
  return result.details?.code;
}
