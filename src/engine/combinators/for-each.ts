/** for_each: a template run once per item, at most `concurrency` at a time, results in item order. */
import { failure } from '../../codes.js';
import type { Accessor, RefScope } from '../../refs/scope.js';
import { failed } from '../leaf.js';
import { startPlan, type NodeOutcome, type NodePlan, type TraceEntry } from '../run-state.js';

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
    const values = list;
    const n = values.length;
    const results = new Array<unknown>(n);
    const itemState = state.recording ? { ...state, recording: false } : state;
    const finish = (outcome: NodeOutcome, started: number): NodeOutcome => {
      if (state.recording) {
        const entry: TraceEntry = { step: label, ok: outcome.ok, items: started };
        if (!outcome.ok && outcome.failure.details?.code) entry.code = outcome.failure.details.code;
        state.trace.push(entry);
        if (outcome.ok) state.completed.push(label);
      }
      return outcome;
    };
    return new Promise<NodeOutcome>((resolve) => {
      let next = 0;
      let active = 0;
      let stopped: NodeOutcome | undefined;
      const record = (index: number, outcome: NodeOutcome): void => {
        if (outcome.ok) results[index] = outcome.output;
        else stopped ??= { ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, index } } };
      };
      // Keep at most `bound` items in flight; an item that finishes at once frees its place at once.
      const launch = (): void => {
        while (stopped === undefined && next < n && active < bound) {
          const index = next++;
          active++;
          const itemScope: RefScope = { input: scope.input, prev: scope.prev, steps: scope.steps, named: scope.named, item: values[index], index };
          const now = startPlan(template, itemState, itemScope, (outcome) => {
            active--;
            record(index, outcome);
            launch();
          });
          if (now) {
            active--;
            record(index, now);
          }
        }
        if (active === 0 && (stopped !== undefined || next >= n)) resolve(finish(stopped ?? { ok: true, output: results }, next));
      };
      launch();
    });
  };
}
