/** for_each: a template run once per item, at most `concurrency` at a time, results in item order. */
import { failure } from '../../codes.js';
import type { Accessor } from '../../refs/scope.js';
import { failed } from '../leaf.js';
import type { NodeOutcome, NodePlan } from '../run-state.js';

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
    const results = new Array<unknown>(list.length);
    let next = 0;
    let stopped: NodeOutcome | undefined;
    // A fixed pool of workers pulling the next index: never more than `bound` in flight.
    const worker = async (): Promise<void> => {
      while (stopped === undefined && next < list.length) {
        const index = next++;
        const outcome = await template(state, { ...scope, item: list[index], index });
        if (!outcome.ok) {
          stopped ??= { ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, index } } };
          return;
        }
        results[index] = outcome.output;
      }
    };
    const workers: Promise<void>[] = [];
    for (let w = Math.min(bound, list.length); w > 0; w--) workers.push(worker());
    await Promise.all(workers);
    return stopped ?? { ok: true, output: results };
  };
}
