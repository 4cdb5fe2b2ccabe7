/**
 * The fast path for the most common plan: a top-level sequence of plain leaves, run with one
 * record for every step.
 */
import { GateCall } from '../gate/call-record.js';
import { release } from '../gate/watchdog.js';
import type { RefScope } from '../refs/scope.js';
import type { ToolExecutionResult } from '../tool.js';
import type { NodeOutcome, PlainLeaf, RunState, TraceEntry } from './run-state.js';
import { failed, recordOutput, threwOutcome } from './step-records.js';
import { recordNamedLabel } from './labels.js';

/**
 * The fast path for the most common plan: a top-level sequence of plain leaves (no `when`,
 * `retry`, `onError`, compensation or combinator; names are fine), run through a gate
 * `createStepGate` made, not a dry run. The same rules as a leaf
 * driven by a sequence, through the same helpers, without the layers between: one object is the
 * run's sequence, its lane and the gate's record, and a step's result goes straight from the gate
 * to the next step with no outcome object or plan closure in between.
 *
 * A subclass says how the run ends ({@link LeafChain.end} is called exactly once).
 */
export abstract class LeafChain extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  /** The steps, in order. */
  private declare readonly leaves: readonly PlainLeaf[];
  /** Each step's entry for a success, in order (see {@link chainTrace}). */
  private declare readonly okTrace: readonly TraceEntry[];
  /** The run's state: the ledger, the trace, the context. */
  protected declare readonly runState: RunState;
  /** What the steps' references read: the input and the outputs so far. */
  protected declare readonly refs: RefScope;
  /** The step now running (or next to run). */
  private declare at: number;
  private declare finished: boolean;
  /** Whether the trace of the steps that succeeded has been written (see {@link LeafChain.writeTrace}). */
  private declare traced: boolean;

  /**
   * @param leaves - the steps, in order
   * @param okTrace - their entries for a success, made once per plan by {@link chainTrace}
   * @param runState - the run's state
   * @param refs - the scope every step reads
   */
  constructor(leaves: readonly PlainLeaf[], okTrace: readonly TraceEntry[], runState: RunState, refs: RefScope) {
    super();
    this.leaves = leaves;
    this.okTrace = okTrace;
    this.runState = runState;
    this.refs = refs;
    this.at = 0;
    this.finished = false;
    this.traced = false;
    // One record for every step: it stays on the watchdog's list until the run ends.
    this.reused = true;
    this.frame = runState.frame;
  }

  /** The run is over: `undefined` when every step succeeded, else the failure that stopped it. */
  protected abstract end(failed: NodeOutcome | undefined): void;

  /** Start the run. */
  start(): void {
    this.go(undefined);
  }

  /** The gate delivered the result of the step in flight. */
  override deliver(result: ToolExecutionResult): void {
    this.go(result);
  }

  /** Record `result` (the last step's, if any), then run steps until one is in flight or the run ends. */
  private go(result: ToolExecutionResult | undefined): void {
    // Nothing here throws by design; if a host object's getter does, the run still ends with a result.
    try {
      const { leaves, runState: state, refs } = this;
      for (;;) {
        if (result) {
          const done = leaves[this.at];
          if (!result.success) return this.fail(done, result);
          done.recordEffect(this.tool!, state);
          const output = result.output;
          if (done.name !== undefined) {
            refs.named.set(done.name, output);
            if (refs.labels !== undefined) recordNamedLabel(refs, done.name, this.outputLabel);
          }
          recordOutput(refs, output, this.outputLabel);
          this.at++;
        }
        if (this.at >= leaves.length) {
          this.writeTrace();
          return this.finish(undefined);
        }
        // A result known at once (a refusal too) is recorded at the top of the loop.
        result = leaves[this.at].start(this, state, refs);
        if (!result) return;
      }
    } catch (error) {
      this.writeTrace();
      this.finish(threwOutcome(error));
    }
  }

  /** Step `done` failed with `result`: the run ends with its failure. */
  private fail(done: PlainLeaf, result: ToolExecutionResult): void {
    this.writeTrace();
    this.finish(failed(this.runState, done.label, done.toolName, result, this.tool));
  }

  /**
   * Write the trace entries of the steps that succeeded, once, when the run ends: a chain's are
   * each leaf's own frozen entry (no annotation is around a top-level leaf), so they are copied
   * in one go rather than pushed one per step. The chain owns its run's state, so the trace holds
   * nothing before them; a failure's entry follows them.
   */
  private writeTrace(): void {
    if (this.traced) return;
    this.traced = true;
    this.runState.trace = this.okTrace.slice(0, this.at);
  }

  private finish(outcome: NodeOutcome | undefined): void {
    if (this.finished) return;
    this.finished = true;
    release(this);
    this.end(outcome);
  }
}

/**
 * The trace entries of a chain's steps for a success, in order: made once per plan, copied by each
 * run that ends, never handed out itself. Not frozen: V8 gives a slice of a frozen array an
 * elements kind that made every later use of the run's trace several times slower (measured).
 */
export function chainTrace(leaves: readonly PlainLeaf[]): readonly TraceEntry[] {
  return leaves.map((leaf) => leaf.okEntry);
}

