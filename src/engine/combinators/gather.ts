/** gather: named calls run concurrently; the output is an object of their outputs by name. */
import type { NodeOutcome, NodePlan } from '../run-state.js';

/** Run every call at once; fail with the first failure (in key order) once all have settled. */
export function gather(calls: readonly (readonly [string, NodePlan])[]): NodePlan {
  return async (state, scope) => {
    // Every call settles before the gather answers, so the effects ledger is complete.
    const outcomes: NodeOutcome[] = await Promise.all(calls.map(([, plan]) => plan(state, scope)));
    const output: Record<string, unknown> = {};
    for (let i = 0; i < calls.length; i++) {
      const outcome = outcomes[i];
      if (!outcome.ok) {
        return { ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, call: calls[i][0] } } };
      }
      // defineProperty: a call named "__proto__" stays an own field and touches no prototype.
      Object.defineProperty(output, calls[i][0], { value: outcome.output, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, output };
  };
}
