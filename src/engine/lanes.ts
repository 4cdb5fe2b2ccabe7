/**
 * Lanes: the records plans run in. A lane is also the gate's record for the leaf call it runs
 * (see `GateCall`), so a run of leaves reuses one record, and the gate's two promise callbacks,
 * call after call. A sequence, a for_each worker and a gather call each run in one; the fast
 * paths (a for_each or gather of plain leaves) use a direct lane, whose owner records the result
 * itself.
 */
import { GateCall } from '../gate/call-record.js';
import type { RunFrame } from '../gate/run-frame.js';
import type { RefScope } from '../refs/scope.js';
import type { ToolExecutionResult } from '../tool.js';
import type { DrivePlan, LaneOwner, LaneRecord, LeafRecorder, NodeOutcome, NodePlan, RunState } from './run-state.js';
import { threwOutcome } from './step-records.js';

/**
 * Where plans run one at a time for an owner: a sequence, one for_each worker, one gather call.
 * The lane is also the gate's record for the leaf call it runs, so a run of leaves reuses one
 * record (and the gate's two promise callbacks) instead of making a record and closures per
 * call; the one-at-a-time rule is what makes the reuse safe. Every lane is this one class, so the
 * gate's hot path sees one shape.
 */
export class Lane extends GateCall implements LaneRecord {
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
    this.owner.take(this.leaf!.finish(this, this.state!, this.scope!, result), this);
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
export function startPlan(plan: NodePlan, state: RunState, scope: RefScope, lane: LaneRecord): NodeOutcome | undefined {
  if (plan.drive) return plan.drive(state, scope, lane);
  plan(state, scope).then(
    (outcome) => lane.owner.take(outcome, lane),
    (error: unknown) => lane.owner.take(threwOutcome(error), lane),
  );
  return undefined;
}


/** Who takes the results of the calls it started in {@link DirectLane}s: a for_each or gather fast path. */
export interface DirectOwner {
  /** The call in flight in `lane` delivered `result` (not yet recorded); called once per call in flight. */
  delivered(lane: DirectLane, result: ToolExecutionResult): void;
}

/**
 * The gate's record for a leaf call started with `Leaf.start` by a fast path other
 * than a chain: a for_each worker (reused item after item) or one gather call (a gather's
 * records are kept from run to run, see {@link LanePool}). One class for both, so the gate's
 * hot path sees as few shapes as possible.
 */
export class DirectLane extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall.
  /** Who takes the results. */
  declare owner: DirectOwner;
  /** The owner's own note of what runs here (a gather call's position). */
  declare position: number;
  /** What the call's arguments read (a for_each worker's item scope, reused item after item). */
  declare scope: RefScope;

  /**
   * @param owner - who takes the results
   * @param position - the owner's note of what runs here
   * @param scope - what the call's arguments read
   * @param frame - the frame of the run its calls belong to
   */
  constructor(owner: DirectOwner, position: number, scope: RefScope, frame: RunFrame) {
    super();
    this.owner = owner;
    this.position = position;
    this.scope = scope;
    this.frame = frame;
  }

  override deliver(result: ToolExecutionResult): void {
    this.owner.delivered(this, result);
  }
}

/**
 * The records of a gather's calls, kept from one run to the next: a run of a hundred calls
 * would otherwise make a hundred records and two hundred callbacks (each compiled on its first
 * call) only to drop them. A record is taken back only once its call has delivered; a call that
 * timed out has had its callbacks retired, so a late settle never reaches the record's next call.
 * Holds at most `size` records.
 */
export class LanePool {
  private readonly free: DirectLane[] = [];

  /** @param size - the most records kept: one run's worth */
  constructor(private readonly size: number) {}

  /** A record for call `position` of `owner`, reading `scope`, in the run of `frame`. */
  take(owner: DirectOwner, position: number, scope: RefScope, frame: RunFrame): DirectLane {
    const lane = this.free.pop();
    if (lane === undefined) return new DirectLane(owner, position, scope, frame);
    lane.owner = owner;
    lane.position = position;
    lane.scope = scope;
    lane.frame = frame;
    return lane;
  }

  /**
   * Keep `lanes` for a later run: each has delivered, and none is on the watchdog's list. Kept
   * last first, so the next run's calls get them back in the same order.
   */
  keep(lanes: readonly DirectLane[]): void {
    const free = this.free;
    for (let i = lanes.length - 1; i >= 0 && free.length < this.size; i--) free.push(lanes[i]);
  }
}
