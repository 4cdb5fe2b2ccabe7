/**
 * Plans run one after another in one lane: a run's top-level steps, a pipe's stages, a
 * pipeline's steps.
 */
import type { LabelTree } from '../flows/label-tree.js';
import { release } from '../gate/watchdog.js';
import type { RefScope } from '../refs/scope.js';
import { Lane, startPlan } from './lanes.js';
import type { LaneOwner, NodeOutcome, NodePlan, RunState } from './run-state.js';
import { threwOutcome } from './step-records.js';

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
  protected abstract output(index: number, output: unknown, label: LabelTree | undefined): void;
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
          this.output(this.at, outcome.output, outcome.label);
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
  private declare readonly onOutput: (index: number, output: unknown, label: LabelTree | undefined) => void;
  private declare readonly onEnd: (outcome: NodeOutcome | undefined) => void;

  constructor(
    plans: readonly NodePlan[],
    state: RunState,
    scopeFor: (index: number) => RefScope,
    onOutput: (index: number, output: unknown, label: LabelTree | undefined) => void,
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

  protected override output(index: number, output: unknown, label: LabelTree | undefined): void {
    this.onOutput(index, output, label);
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
  onOutput: (index: number, output: unknown, label: LabelTree | undefined) => void,
  finish: (outcome: NodeOutcome | undefined) => void,
): void {
  new CallbackSequence(plans, state, scopeFor, onOutput, finish).start();
}

