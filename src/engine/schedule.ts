/**
 * `schedule: 'auto'`: top-level steps run side by side where their references allow. A step
 * starts once the steps it reads (its `$prev`, `$steps[n]`, `$steps.name`, found when the spec
 * was compiled) have finished. A step that may change something (a side-effecting or undeclared
 * tool, or a composition, as the registry stands now) is a barrier: it starts after every earlier
 * step has ended, and every later step starts after it, so a read after a write sees the write.
 * Each step records into a trace and a ledger of its own, joined in declared order at the end.
 */
import type { RefScope } from '../refs/scope.js';
import type { NodeOutcome, NodePlan, RunState, TraceEntry } from './run-state.js';
import { threwOutcome } from './step-records.js';
import type { EffectRecord } from '../tool.js';
import { TRUSTED } from '../flows/label.js';
import type { LabelTree } from '../flows/label-tree.js';

/** What the schedule needs of one top-level step. */
export interface ScheduledStep {
  /** The step's plan. */
  plan: NodePlan;
  /** The earlier steps whose outputs it reads, by position. */
  reads: readonly number[];
  /** Every tool it may call: whether it is a barrier is decided from them at each run. */
  tools: readonly string[];
}

/** How an automatic run ended: every step's outcome (absent: not started) and output. */
export interface AutoEnd {
  /** Each step's outcome, by position; `undefined` for a step that never started. */
  outcomes: (NodeOutcome | undefined)[];
  /** Each finished step's output, by position (what `$steps[n]` reads). */
  outputs: unknown[];
  /** Each finished step's output's label, by position, when the run follows labels (else empty). */
  labels: LabelTree[];
  /** The first failure in declared order, when the run stopped on one. */
  failed: NodeOutcome | undefined;
}

/**
 * Run `steps` under the automatic schedule. With `stopOnError`, a failure stops every step not
 * yet started (those running finish). Resolves once every started step has ended; never rejects.
 *
 * @param steps - the top-level steps, in declared order
 * @param state - the run's state (its trace and ledger get each step's, in declared order)
 * @param scope - the run's input, its named outputs, and their labels (when the run follows labels)
 * @param stopOnError - stop starting steps after a failure
 */
export function runAuto(steps: readonly ScheduledStep[], state: RunState, scope: RefScope, stopOnError: boolean): Promise<AutoEnd> {
  return new Promise((resolve) => new AutoRun(steps, state, scope, stopOnError, resolve).pump());
}

class AutoRun {
  private readonly n: number;
  private readonly barrier: boolean[];
  private readonly started: boolean[];
  private readonly done: boolean[];
  private readonly outcomes: (NodeOutcome | undefined)[];
  private readonly outputs: unknown[];
  private readonly labels: LabelTree[];
  private readonly traces: TraceEntry[][];
  private readonly ledgers: EffectRecord[][];
  private running = 0;
  private stopped = false;
  private ended = false;

  constructor(
    private readonly steps: readonly ScheduledStep[],
    private readonly state: RunState,
    private readonly refs: RefScope,
    private readonly stopOnError: boolean,
    private readonly resolve: (end: AutoEnd) => void,
  ) {
    this.n = steps.length;
    this.barrier = steps.map((step) => step.tools.some((name) => mayChange(state, name)));
    this.started = new Array<boolean>(this.n).fill(false);
    this.done = new Array<boolean>(this.n).fill(false);
    this.outcomes = new Array<NodeOutcome | undefined>(this.n);
    this.outputs = new Array<unknown>(this.n);
    this.labels = refs.labels === undefined ? [] : new Array<LabelTree>(this.n).fill(TRUSTED);
    this.traces = steps.map(() => []);
    this.ledgers = steps.map(() => []);
  }

  /** Start every step that may start now, in declared order; end once nothing runs and nothing can start. */
  pump(): void {
    for (let i = 0; i < this.n; i++) if (!this.started[i] && this.mayStart(i)) this.start(i);
    if (this.running === 0) this.end();
  }

  private mayStart(i: number): boolean {
    if (this.stopped) return false;
    for (let j = 0; j < i; j++) {
      // Nothing passes a barrier before it ends, and a barrier waits for everything before it.
      if (!this.done[j] && (this.barrier[j] || this.barrier[i])) return false;
    }
    for (const j of this.steps[i].reads) if (!this.done[j]) return false;
    return true;
  }

  private start(i: number): void {
    this.started[i] = true;
    this.running++;
    const refs = this.refs;
    const scope: RefScope = { input: refs.input, prev: i > 0 ? this.outputs[i - 1] : undefined, steps: this.outputs, named: refs.named };
    const labels = refs.labels;
    if (labels !== undefined) scope.labels = { ...labels, prev: i > 0 ? this.labels[i - 1] : labels.prev, steps: this.labels };
    const stepState: RunState = { ...this.state, trace: this.traces[i], effects: this.ledgers[i] };
    let running: Promise<NodeOutcome>;
    try {
      running = this.steps[i].plan(stepState, scope);
    } catch (error) {
      running = Promise.resolve(threwOutcome(error));
    }
    running.then(
      (outcome) => this.finish(i, outcome),
      (error: unknown) => this.finish(i, threwOutcome(error)),
    );
  }

  private finish(i: number, outcome: NodeOutcome): void {
    this.done[i] = true;
    this.running--;
    this.outcomes[i] = outcome;
    if (this.refs.labels !== undefined) this.labels[i] = outcome.label ?? TRUSTED;
    if (outcome.ok) this.outputs[i] = outcome.output;
    else if (this.stopOnError) this.stopped = true;
    this.pump();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    // The trace and the ledger in declared order, whatever order the steps ran in.
    for (let i = 0; i < this.n; i++) {
      for (const entry of this.traces[i]) this.state.trace.push(entry);
      for (const effect of this.ledgers[i]) this.state.effects.push(effect);
    }
    const failed = this.stopOnError ? this.outcomes.find((o) => o !== undefined && !o.ok) : undefined;
    this.resolve({ outcomes: this.outcomes, outputs: this.outputs, labels: this.labels, failed });
  }
}

/** Whether a call of `name` may change something, as the registry stands now: side-effecting, undeclared, missing, or a composition. */
function mayChange(state: RunState, name: string): boolean {
  // Asked once per tool at the start of a run; each step's own check still resolves it as it runs.
  const tool = state.gate.resolve(name);
  return tool === undefined || tool.hasSideEffects !== false || tool.composition === true;
}
