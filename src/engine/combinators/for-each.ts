/** for_each: a template run once per item, at most `concurrency` at a time, results in item order. */
import { failure } from '../../codes.js';
import { preview } from '../../spec/ajv.js';
import { release } from '../../gate/watchdog.js';
import type { Accessor, RefScope } from '../../refs/scope.js';
import { TRUSTED } from '../../flows/label.js';
import { ownLabel, partOf, type LabelTree } from '../../flows/label-tree.js';
import type { LabelAccessor } from '../../flows/label-scope.js';
import { outcomeLabel, underControl } from '../labels.js';
import type { ToolExecutionResult } from '../../tool.js';
import { DirectLane, type DirectOwner } from '../lanes.js';
import { failed } from '../step-records.js';
import type { PlainLeaf } from '../run-state.js';
import { plannedOf, plannedRefusal, timesPlanned } from '../planned-calls.js';
import { Lane, startPlan } from '../lanes.js';
import type { LaneOwner, NodeOutcome, NodePlan, RunState, TraceEntry } from '../run-state.js';

/**
 * The default and the ceiling of a for_each's concurrency: bounded, always.
 *
 * @category Build composites
 */
export const FOR_EACH_DEFAULT_CONCURRENCY = 4;
/**
 * The most items run at once, whatever a spec asks for.
 *
 * @category Build composites
 */
export const FOR_EACH_MAX_CONCURRENCY = 64;
/**
 * The default bound on the number of items.
 *
 * @category Build composites
 */
export const FOR_EACH_DEFAULT_MAX_ITEMS = 1000;

/** Where the items come from: a reference read from the scope, or a node whose output they are. */
export type ItemsSource = { from: 'reference'; read: Accessor; labels: LabelAccessor } | { from: 'node'; plan: NodePlan };

/** Compile a for_each from its parts. */
export function forEach(label: string, items: ItemsSource, template: NodePlan, concurrency: number, maxItems: number): NodePlan {
  const bound = Math.max(1, Math.min(FOR_EACH_MAX_CONCURRENCY, Math.floor(concurrency)));
  // A template that is the plain leaf's own plan (no common field, not even a name) may run on the fast path.
  const leaf = template.drive ? template.leaf : undefined;
  return async (state, scope) => {
    let list: unknown;
    // The list's labels, when the run follows them: each item's, and the list's own (which items there are).
    let listLabels: LabelTree | undefined;
    if (items.from === 'reference') {
      list = items.read(scope);
      if (scope.labels !== undefined) listLabels = items.labels(scope.labels);
    } else {
      const outcome = await items.plan(state, scope);
      if (!outcome.ok) return outcome;
      list = outcome.output;
      if (scope.labels !== undefined) listLabels = outcomeLabel(outcome);
    }
    if (!Array.isArray(list)) {
      return failed(state, label, undefined, failure('items_not_array', `for_each "${label}": the items are not an array: ${describeItems(list)}.`, { got: typeName(list) }));
    }
    if (list.length > maxItems) {
      return failed(state, label, undefined, failure('too_many_items', `for_each "${label}": ${list.length} items, more than the bound of ${maxItems}.`, {
        items: list.length,
        maxItems,
      }));
    }
    // Every item's calls are known now: a list the budget cannot cover is refused before its first item.
    const over = plannedRefusal(state, timesPlanned(list.length, plannedOf(template)), scope);
    if (over) return failed(state, label, undefined, over);
    // Which items there are decides which calls are made: every item's calls carry the list's own label.
    const itemState = underControl(state.recording ? { ...state, recording: false } : state, listLabels === undefined ? TRUSTED : ownLabel(listLabels));
    // Only through a gate with no host checks, and never in a dry run: those take the general path.
    // A plain leaf's template runs on the fast path, unless this is a dry run or the gate is a host's own.
    const fast = leaf !== undefined && state.dry === undefined && state.gateSettings !== undefined;
    const { outcome, started } = await new Promise<ForEachEnd>((resolve) =>
      fast ? new ForEachDirect(list, bound, leaf!, itemState, scope, listLabels, resolve).start() : new ForEachRun(list, bound, template, itemState, scope, listLabels, resolve).start(),
    );
    if (state.recording) {
      const entry: TraceEntry = { step: label, ok: outcome.ok, items: started };
      if (!outcome.ok && outcome.failure.details?.code) entry.code = outcome.failure.details.code;
      state.trace.push(entry);
    }
    return outcome;
  };
}

/** What a for_each got instead of a list: its type and a short preview, and whether it is a list written as JSON text. */
function describeItems(value: unknown): string {
  const got = `they are ${typeName(value)} (${preview(value, 80)})`;
  if (typeof value === 'string' && /^\s*\[/.test(value)) {
    try {
      if (Array.isArray(JSON.parse(value))) return `${got}, a string holding a JSON array: the step that made them returned text (as run_js does); parse it, or return the list itself`;
    } catch {
      // Not JSON after all: the plain description stands.
    }
  }
  return got;
}

/** `null`, `an array`, `a string`, `an object`, ... */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** How a for_each run ended, and how many items it started. */
interface ForEachEnd {
  outcome: NodeOutcome;
  started: number;
}

/**
 * What every for_each run shares: the items, the bound, the results in item order, and the rules
 * for claiming a place (at most `bound` in flight, none once one has failed) and for answering.
 */
abstract class ForEachBase {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  protected declare readonly values: readonly unknown[];
  protected declare readonly bound: number;
  protected declare readonly runState: RunState;
  protected declare readonly refs: RefScope;
  /** The list's labels, when the run follows them. */
  private declare readonly listLabels: LabelTree | undefined;
  /** Each item's output's label, when the run follows them. */
  private declare readonly resultLabels: LabelTree[] | undefined;
  private declare readonly resolve: (end: ForEachEnd) => void;
  private declare readonly results: unknown[];
  /** The next item to start. */
  protected declare next: number;
  /** Items in flight (or claimed by a worker about to start one). */
  private declare active: number;
  /** The first failure, which stops the run. */
  private declare stopped: NodeOutcome | undefined;
  private declare ended: boolean;

  constructor(values: readonly unknown[], bound: number, runState: RunState, refs: RefScope, listLabels: LabelTree | undefined, resolve: (end: ForEachEnd) => void) {
    this.values = values;
    this.bound = bound;
    this.runState = runState;
    this.refs = refs;
    this.listLabels = listLabels;
    this.resultLabels = listLabels === undefined ? undefined : new Array<LabelTree>(values.length).fill(TRUSTED);
    this.resolve = resolve;
    this.results = new Array<unknown>(values.length);
    this.next = 0;
    this.active = 0;
    this.stopped = undefined;
    this.ended = false;
  }

  /**
   * A new worker's item scope, reused from item to item: a worker runs one item at a time, and
   * whatever keeps a scope past its step (an undo, a pipe stage, a check) keeps a copy, so only
   * `item` and `index` change between items.
   */
  protected itemScope(): RefScope {
    const refs = this.refs;
    const scope: RefScope = { input: refs.input, prev: refs.prev, steps: refs.steps, named: refs.named, item: undefined, index: -1 };
    const list = this.listLabels;
    // An item's position says which items there are before it: `$index` carries the list's own label.
    if (list !== undefined && refs.labels !== undefined) scope.labels = { ...refs.labels, item: TRUSTED, index: ownLabel(list) };
    return scope;
  }

  /** Point `scope` (a worker's) at item `index`. */
  protected atItem(scope: RefScope, index: number): void {
    scope.item = this.values[index];
    scope.index = index;
    const list = this.listLabels;
    if (list !== undefined && scope.labels !== undefined) scope.labels.item = partOf(list, index);
  }

  /** Take a place for one more item: false once the items are all started or one has failed. */
  protected claim(): boolean {
    if (this.stopped !== undefined || this.next >= this.values.length) return false;
    this.active++;
    return true;
  }

  /** Item `index` finished; its place is free. */
  protected record(index: number, outcome: NodeOutcome): void {
    if (outcome.ok) this.succeeded(index, outcome.output, outcome.label);
    else {
      this.active--;
      this.stopped ??= { ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, index } } };
    }
  }

  /** Item `index` succeeded with `output`; its place is free. */
  protected succeeded(index: number, output: unknown, label: LabelTree | undefined): void {
    this.active--;
    this.results[index] = output;
    if (this.resultLabels !== undefined && label !== undefined) this.resultLabels[index] = label;
  }

  /** Answer once no item is in flight and none will start. */
  protected endIfDone(): void {
    if (this.active > 0 || this.ended || (this.stopped === undefined && this.next < this.values.length)) return;
    this.ended = true;
    const list = this.listLabels;
    const labels = this.resultLabels;
    // The results are the list's items, in its order: the list's own label is theirs too.
    const done: NodeOutcome = list === undefined || labels === undefined ? { ok: true, output: this.results } : { ok: true, output: this.results, label: { own: ownLabel(list), items: labels } };
    this.resolve({ outcome: this.stopped ?? done, started: this.next });
  }
}

/**
 * One for_each run: `bound` workers (lanes), each taking the next item when its last one finishes
 * (as a hand-written bounded loop would), results in item order, stopped by the first failure.
 * An item that finishes at once is handled in the worker's loop, so the stack does not grow.
 */
class ForEachRun extends ForEachBase implements LaneOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly template: NodePlan;
  /** Each worker's item scope ({@link ForEachBase.itemScope}), by worker (a lane's `position`). */
  private declare readonly scopes: RefScope[];

  constructor(values: readonly unknown[], bound: number, template: NodePlan, runState: RunState, refs: RefScope, listLabels: LabelTree | undefined, resolve: (end: ForEachEnd) => void) {
    super(values, bound, runState, refs, listLabels, resolve);
    this.template = template;
    this.scopes = [];
  }

  start(): void {
    const workers = Math.min(this.bound, this.values.length);
    for (let w = 0; w < workers && this.claim(); w++) {
      const lane = new Lane(this);
      lane.reused = true;
      lane.position = w;
      this.scopes.push(this.itemScope());
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
    const itemScope = this.scopes[lane.position];
    do {
      const index = this.next++;
      this.atItem(itemScope, index);
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
}

/**
 * A for_each run whose template is a plain leaf, through a gate with no host checks: the fast
 * path. The same workers, rules and records as {@link ForEachRun}, through the leaf's own checks
 * ({@link Leaf.start}) and recorders, without the layers between: each worker is the gate's
 * record for its calls, and a result goes from the gate to the item's place with no outcome
 * object or plan in between.
 */
class ForEachDirect extends ForEachBase implements DirectOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly leaf: PlainLeaf;

  constructor(values: readonly unknown[], bound: number, leaf: PlainLeaf, runState: RunState, refs: RefScope, listLabels: LabelTree | undefined, resolve: (end: ForEachEnd) => void) {
    super(values, bound, runState, refs, listLabels, resolve);
    this.leaf = leaf;
  }

  start(): void {
    const workers = Math.min(this.bound, this.values.length);
    for (let w = 0; w < workers && this.claim(); w++) {
      const lane = new DirectLane(this, w, this.itemScope(), this.runState.frame);
      lane.reused = true;
      this.work(lane);
    }
    this.endIfDone();
  }

  /** A worker's item finished: record it, and give the worker the next one. */
  delivered(lane: DirectLane, result: ToolExecutionResult): void {
    this.settle(lane, result);
    if (this.claim()) this.work(lane);
    else this.retire(lane);
  }

  /** Run items in `lane` (which holds a claimed place) until one is in flight, or none is left. */
  private work(lane: DirectLane): void {
    const { leaf, runState } = this;
    const itemScope = lane.scope;
    do {
      const index = this.next++;
      this.atItem(itemScope, index);
      const now = leaf.start(lane, runState, itemScope);
      if (!now) return;
      // A result known at once (a refusal too) is recorded as a delivered one.
      this.settle(lane, now);
    } while (this.claim());
    this.retire(lane);
  }

  /** Record the result of the item that ran in `lane`, as the leaf records it ({@link Leaf.finish}). */
  private settle(lane: DirectLane, result: ToolExecutionResult): void {
    const leaf = this.leaf;
    const index = lane.scope.index!;
    if (!result.success) return this.record(index, failed(this.runState, leaf.label, leaf.toolName, result, lane.tool));
    // Only the ledger: items are never traced one by one (the for_each's own entry counts them).
    leaf.recordEffect(lane.tool!, this.runState);
    this.succeeded(index, result.output, lane.outputLabel);
  }

  /** A worker has nothing left to run: its lane leaves the watchdog, and the run may be over. */
  private retire(lane: DirectLane): void {
    release(lane);
    this.endIfDone();
  }
}
