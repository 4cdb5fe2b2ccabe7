/**
 * How many tool calls a node will make on its normal path, counted before it starts, so a plan
 * that can only run past its budget is refused before its first call rather than stopped midway.
 * The count is a floor, never a guess: a node guarded by `when` counts nothing, retries and extra
 * attempts count once, and a list whose length is not known yet (items a tool will return, or
 * that depend on the item) counts nothing until it is known. A for_each counts again at its
 * start, once its items are in hand.
 */
import { budgetRefusal } from '../gate/budget.js';
import type { RefScope } from '../refs/scope.js';
import type { ToolExecutionResult } from '../tool.js';
import type { NodePlan, RunState } from './run-state.js';

/** A node's floor of planned calls: a number when it does not depend on the run, else read from the scope. */
export type Planned = number | ((scope: RefScope) => number);

/** The count for `scope`. */
export function plannedCount(planned: Planned, scope: RefScope): number {
  return typeof planned === 'number' ? planned : planned(scope);
}

/** The count of nodes that all run: their sum (a number when every part is one). */
export function sumPlanned(parts: readonly Planned[]): Planned {
  if (parts.every((p) => typeof p === 'number')) return (parts as number[]).reduce((a, b) => a + b, 0);
  return (scope) => {
    let total = 0;
    for (const p of parts) total += plannedCount(p, scope);
    return total;
  };
}

/** The count of a for_each whose items a reference reads: the items times the template's count. */
export function forEachPlanned(readItems: (scope: RefScope) => unknown, template: Planned): Planned {
  return (scope) => {
    let items: unknown;
    try {
      items = readItems(scope);
    } catch {
      return 0;
    }
    return Array.isArray(items) ? items.length * plannedCount(template, scope) : 0;
  };
}

/** The count of `times` runs of a node. */
export function timesPlanned(times: number, planned: Planned): Planned {
  if (typeof planned === 'number') return times * planned;
  return (scope) => times * planned(scope);
}

/** A compiled node's floor of planned calls. */
export function plannedOf(plan: NodePlan): Planned {
  return plan.planned ?? 0;
}

/**
 * The refusal of a plan that can only run past its budget: its floor of planned calls (see
 * `planned-calls.ts`) is more than the calls left. `undefined` when it may start.
 */
export function plannedRefusal(state: RunState, planned: Planned, scope: RefScope): ToolExecutionResult | undefined {
  const budget = state.budget;
  const left = budget.callsLeft();
  const count = plannedCount(planned, scope);
  if (count <= left) return undefined;
  return budgetRefusal('calls', budget, `The plan would make at least ${count} tool calls, with ${left} left, so none was started`);
}

