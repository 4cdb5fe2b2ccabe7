/** for_each: a template run once per item, at most `concurrency` at a time, results in item order. */
import { failure } from '../../codes.js';
import type { Accessor, RefScope } from '../../refs/scope.js';
import { failed } from '../leaf.js';
import { Lane, startPlan, type LaneOwner, type NodeOutcome, type NodePlan, type RunState, type TraceEntry } from '../run-state.js';

/** The default and the ceiling of a for_each's concurrency: bounded, always. */
export const FOR_EACH_DEFAULT_CONCURRENCY = 4;
/** The most items run at once, whatever a spec asks for. */
export const FOR_EACH_MAX_CONCURRENCY = 64;
/** The default bound on the number of items. */
export const FOR_EACH_DEFAULT_MAX_ITEMS = 1000;

/** Where the items come from: a reference read from the scope, or a node whose output they are. */
export type ItemsSource = { from: 'reference'; read: Accessor } | { from: 'node'; plan: NodePlan };

/** Compile a for_each from its parts. */
export function forEach(label: string, items: ItemsSource, template: NodePlan, concurrency: number, maxItems: number): NodePlan {
  const bound = Math.max(1, Math.min(FOR_EACH_MAX_CONCURRENCY, Math.floor(concurrency)));
  return async (state, scope) => {
    let list: unknown;
    if (items.from === 'reference') list = items.read(scope);
    else {
      const outcome = await items.plan(state, scope);
      if (!outcome.ok) return outcome;
      list = outcome.output;
    }
    if (!Array.isArray(list)) {
      return failed(state, label, undefined, failure('items_not_array', `for_each "${label}": the items are not an array.`));
    }
    if (list.length > maxItems) {
      return failed(state, label, undefined, failure('too_many_items', `for_each "${label}": ${list.length} items, more than the bound of ${maxItems}.`, {
        items: list.length,
        maxItems,
      }));
    }
    const itemState = state.recording ? { ...state, recording: false } : state;
    const { outcome, started } = await new Promise<ForEachEnd>((resolve) => new ForEachRun(list, bound, template, itemState, scope, resolve).start());
    if (state.recording) {
      const entry: TraceEntry = { step: label, ok: outcome.ok, items: started };
      if (!outcome.ok && outcome.failure.details?.code) entry.code = outcome.failure.details.code;
      state.trace.push(entry);
    }
    return outcome;
  };
}

/** How a for_each run ended, and how many items it started. */
interface ForEachEnd {
  outcome: NodeOutcome;
  started: number;
}

/**
 * One for_each run: `bound` workers (lanes), each taking the next item when its last one finishes
 * (as a hand-written bounded loop would), results in item order, stopped by the first failure.
 * An item that finishes at once is handled in the worker's loop, so the stack does not grow.
 */
class ForEachRun implements LaneOwner {
  private next = 0;
  private active = 0;
  private stopped: NodeOutcome | undefined;
  private ended = false;
  private readonly results: unknown[];

  constructor(
    private readonly values: readonly unknown[],
    private readonly bound: number,
    private readonly template: NodePlan,
    private readonly runState: RunState,
    private readonly refs: RefScope,
    private readonly resolve: (end: ForEachEnd) => void,
  ) {
    this.results = new Array<unknown>(values.length);
  }

  start(): void {
    const workers = Math.min(this.bound, this.values.length);
    for (let w = 0; w < workers && this.claim(); w++) this.work(new Lane(this));
    this.endIfDone();
  }

  /** A worker's item finished: record it, and give the worker the next one. */
  take(outcome: NodeOutcome, lane: Lane): void {
    this.record(lane.position, outcome);
    if (this.claim()) this.work(lane);
    else this.endIfDone();
  }

  /** Run items in `lane` (which holds a claimed place) until one is in flight, or none is left. */
  private work(lane: Lane): void {
    const { values, refs } = this;
    do {
      const index = this.next++;
      lane.position = index;
      const itemScope: RefScope = { input: refs.input, prev: refs.prev, steps: refs.steps, named: refs.named, item: values[index], index };
      const now = startPlan(this.template, this.runState, itemScope, lane);
      if (!now) return;
      this.record(index, now);
    } while (this.claim());
    this.endIfDone();
  }

  /** Take a place for one more item: false once the items are all started or one has failed. */
  private claim(): boolean {
    if (this.stopped !== undefined || this.next >= this.values.length) return false;
    this.active++;
    return true;
  }

  /** Item `index` finished; its place is free. */
  private record(index: number, outcome: NodeOutcome): void {
    this.active--;
    if (outcome.ok) this.results[index] = outcome.output;
    else this.stopped ??= { ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, index } } };
  }

  /** Answer once no item is in flight and none will start. */
  private endIfDone(): void {
    if (this.active > 0 || this.ended || (this.stopped === undefined && this.next < this.values.length)) return;
    this.ended = true;
    this.resolve({ outcome: this.stopped ?? { ok: true, output: this.results }, started: this.next });
  }
}
