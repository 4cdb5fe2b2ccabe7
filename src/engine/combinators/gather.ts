/** gather: named calls run concurrently; the output is an object of their outputs by name. */
import type { RefScope } from '../../refs/scope.js';
import type { ToolExecutionResult } from '../../tool.js';
import { TRUSTED } from '../../flows/label.js';
import type { LabelTree } from '../../flows/label-tree.js';
import { failed } from '../step-records.js';
import { LanePool, type DirectLane, type DirectOwner } from '../lanes.js';
import type { PlainLeaf } from '../run-state.js';
import { Lane, startPlan } from '../lanes.js';
import type { LaneOwner, NodeOutcome, NodePlan, RunState } from '../run-state.js';

/** Run every call at once; fail with the first failure (in key order) once all have settled. */
export function gather(calls: readonly (readonly [string, NodePlan])[]): NodePlan {
  const names = calls.map(([name]) => name);
  const plans = calls.map(([, plan]) => plan);
  const shape = outputShape(names);
  // Calls that are all plain leaves' own plans (no common field, not even a name) may run on the fast path.
  const leaves = plans.every((plan) => plan.drive && plan.leaf) ? plans.map((plan) => plan.leaf!) : undefined;
  const pool = new LanePool(names.length);
  return (state, scope) =>
    new Promise<NodeOutcome>((resolve) => {
      // Plain leaves run on the fast path, unless this is a dry run or the gate is a host's own.
      if (leaves !== undefined && state.dry === undefined && state.gateSettings !== undefined) new GatherDirect(names, leaves, shape, state, scope, resolve, pool).start();
      else new GatherRun(names, plans, shape, state, scope, resolve).start();
    });
}

/**
 * An object with every call's name as an own data property, in call order, made once. A run
 * copies it and fills it in: far cheaper than defining a hundred properties one by one. The copy
 * (a spread) defines its properties, so a call named `__proto__` is an own field there too, and
 * storing into an own data property never reaches `Object.prototype`'s setter.
 */
function outputShape(names: readonly string[]): Record<string, unknown> {
  const shape: Record<string, unknown> = {};
  for (const name of names) Object.defineProperty(shape, name, { value: undefined, enumerable: true, writable: true, configurable: true });
  return shape;
}

/**
 * What every gather run shares: the calls' outputs, the first failure in key order, how many are
 * still in flight, and the answer once all have settled.
 */
abstract class GatherBase {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly names: readonly string[];
  private declare readonly shape: Record<string, unknown>;
  protected declare readonly runState: RunState;
  protected declare readonly refs: RefScope;
  private declare readonly resolve: (outcome: NodeOutcome) => void;
  private declare readonly outputs: unknown[];
  /** Each call's output's label, when the run follows labels. */
  private declare readonly labels: LabelTree[] | undefined;
  /** The failure of the first call in key order that failed, and its position (-1: none). */
  private declare failure: NodeOutcome | undefined;
  private declare failedAt: number;
  /** Calls still in flight. */
  private declare pending: number;

  constructor(names: readonly string[], shape: Record<string, unknown>, runState: RunState, refs: RefScope, resolve: (outcome: NodeOutcome) => void) {
    this.names = names;
    this.shape = shape;
    this.runState = runState;
    this.refs = refs;
    this.resolve = resolve;
    this.outputs = new Array<unknown>(names.length);
    this.labels = refs.labels === undefined ? undefined : new Array<LabelTree>(names.length).fill(TRUSTED);
    this.failure = undefined;
    this.failedAt = -1;
    this.pending = names.length;
  }

  /** Call `index` finished with `outcome`. */
  protected settled(index: number, outcome: NodeOutcome): void {
    if (outcome.ok) return this.succeeded(index, outcome.output, outcome.label);
    if (this.failedAt < 0 || index < this.failedAt) {
      this.failure = outcome;
      this.failedAt = index;
    }
    this.answerIfDone();
  }

  /** Call `index` succeeded with `output`. */
  protected succeeded(index: number, output: unknown, label: LabelTree | undefined): void {
    this.outputs[index] = output;
    if (this.labels !== undefined && label !== undefined) this.labels[index] = label;
    this.answerIfDone();
  }

  /** Every call has settled: what the run holds may be let go of before it answers. */
  protected allSettled(): void {}

  /** A call has settled; once every call has, the gather answers. */
  private answerIfDone(): void {
    // Every call settles before the gather answers, so the effects ledger is complete.
    if (--this.pending > 0) return;
    this.allSettled();
    const { names, failure } = this;
    if (failure && !failure.ok) {
      this.resolve({ ok: false, failure: { ...failure.failure, details: { ...failure.failure.details, call: names[this.failedAt] } } });
      return;
    }
    const outputs = this.outputs;
    const output: Record<string, unknown> = { ...this.shape };
    for (let i = 0; i < outputs.length; i++) output[names[i]] = outputs[i];
    const labels = this.labels;
    if (labels === undefined) return this.resolve({ ok: true, output });
    // The keys are written by the tree: the object's own label is the tree's text's; each call's output its own.
    const fields = { ...this.shape } as Record<string, LabelTree>;
    for (let i = 0; i < labels.length; i++) fields[names[i]] = labels[i];
    this.resolve({ ok: true, output, label: { own: this.refs.labels!.literal, fields } });
  }
}

/** One gather run: every call in a lane of its own. */
class GatherRun extends GatherBase implements LaneOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly plans: readonly NodePlan[];

  constructor(
    names: readonly string[],
    plans: readonly NodePlan[],
    shape: Record<string, unknown>,
    runState: RunState,
    refs: RefScope,
    resolve: (outcome: NodeOutcome) => void,
  ) {
    super(names, shape, runState, refs, resolve);
    this.plans = plans;
  }

  start(): void {
    const plans = this.plans;
    for (let i = 0; i < plans.length; i++) {
      const lane = new Lane(this);
      lane.position = i;
      const now = startPlan(plans[i], this.runState, this.refs, lane);
      if (now) this.settled(i, now);
    }
  }

  /** A call in flight finished. */
  take(outcome: NodeOutcome, lane: Lane): void {
    this.settled(lane.position, outcome);
  }
}

/**
 * A gather run whose calls are all plain leaves, through a gate with no host checks: the fast
 * path. The same rules and records as {@link GatherRun}, through the leaves' own checks
 * ({@link Leaf.start}) and recorders, with each call's record the gate's, and no outcome
 * object or plan between a call's result and its place.
 */
class GatherDirect extends GatherBase implements DirectOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly leaves: readonly PlainLeaf[];
  /** Where the calls' records come from, and go back to once every call has settled. */
  private declare readonly pool: LanePool;
  /** The records of this run's calls, by position. */
  private declare readonly lanes: DirectLane[];

  constructor(
    names: readonly string[],
    leaves: readonly PlainLeaf[],
    shape: Record<string, unknown>,
    runState: RunState,
    refs: RefScope,
    resolve: (outcome: NodeOutcome) => void,
    pool: LanePool,
  ) {
    super(names, shape, runState, refs, resolve);
    this.leaves = leaves;
    this.pool = pool;
    this.lanes = new Array<DirectLane>(leaves.length);
  }

  start(): void {
    const { leaves, runState, refs, pool, lanes } = this;
    const frame = runState.frame;
    for (let i = 0; i < leaves.length; i++) {
      const lane = pool.take(this, i, refs, frame);
      lanes[i] = lane;
      const now = leaves[i].start(lane, runState, refs);
      // A result known at once (a refusal too) is recorded as a delivered one.
      if (now) this.delivered(lane, now);
    }
  }

  /** Every call has delivered: their records go back to the pool. */
  protected override allSettled(): void {
    this.pool.keep(this.lanes);
  }

  /** Record the result of call `lane.position`, as the leaf records it ({@link Leaf.finish}). */
  delivered(lane: DirectLane, result: ToolExecutionResult): void {
    const index = lane.position;
    const leaf = this.leaves[index];
    if (!result.success) return this.settled(index, failed(this.runState, leaf.label, leaf.toolName, result, lane.tool));
    leaf.recordSuccess(lane.tool!, this.runState);
    this.succeeded(index, result.output, lane.outputLabel);
  }
}
