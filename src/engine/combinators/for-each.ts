/** for_each: a template run once per item, at most `concurrency` at a time, results in item order. */
import { failure } from '../../codes.js';
import { release } from '../../gate/watchdog.js';
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
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly values: readonly unknown[];
  private declare readonly bound: number;
  private declare readonly template: NodePlan;
  private declare readonly runState: RunState;
  private declare readonly refs: RefScope;
  private declare readonly resolve: (end: ForEachEnd) => void;
  private declare readonly results: unknown[];
  /** The next item to start. */
  private declare next: number;
  /** Items in flight (or claimed by a worker about to start one). */
  private declare active: number;
  /** The first failure, which stops the run. */
  private declare stopped: NodeOutcome | undefined;
  private declare ended: boolean;
  /**
   * Each worker's item scope, by worker (a lane's `position`), reused from item to item: a worker
   * runs one item at a time, and whatever keeps a scope past its step (an undo, a pipe stage, a
   * check) keeps a copy, so only `item` and `index` change between items.
   */
  private declare readonly scopes: RefScope[];

  constructor(values: readonly unknown[], bound: number, template: NodePlan, runState: RunState, refs: RefScope, resolve: (end: ForEachEnd) => void) {
    this.values = values;
    this.bound = bound;
    this.template = template;
    this.runState = runState;
    this.refs = refs;
    this.resolve = resolve;
    this.results = new Array<unknown>(values.length);
    this.next = 0;
    this.active = 0;
    this.stopped = undefined;
    this.ended = false;
    this.scopes = [];
  }

  start(): void {
    const workers = Math.min(this.bound, this.values.length);
    const refs = this.refs;
    for (let w = 0; w < workers && this.claim(); w++) {
      const lane = new Lane(this);
      lane.reused = true;
      lane.position = w;
      this.scopes.push({ input: refs.input, prev: refs.prev, steps: refs.steps, named: refs.named, item: undefined, index: -1 });
      this.work(lane);
    }
    this.endIfDone();
  }

  /** A worker's item finished: record it, and give the worker the next one. */
  take(outcome: NodeOutcome, lane: Lane): void {
    this.record(this.scopes[lane.position].index!, outcome);
    if (this.claim()) this.work(lane);
    else this.retire(lane);
  }

  /** Run items in `lane` (which holds a claimed place) until one is in flight, or none is left. */
  private work(lane: Lane): void {
    const values = this.values;
    const itemScope = this.scopes[lane.position];
    do {
      const index = this.next++;
      itemScope.item = values[index];
      itemScope.index = index;
      const now = startPlan(this.template, this.runState, itemScope, lane);
      if (!now) return;
      this.record(index, now);
    } while (this.claim());
    this.retire(lane);
  }

  /** A worker has nothing left to run: its lane leaves the watchdog, and the run may be over. */
  private retire(lane: Lane): void {
    release(lane);
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
