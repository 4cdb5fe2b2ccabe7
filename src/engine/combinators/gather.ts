/** gather: named calls run concurrently; the output is an object of their outputs by name. */
import { startPlan, type NodeOutcome, type NodePlan } from '../run-state.js';

/** Run every call at once; fail with the first failure (in key order) once all have settled. */
export function gather(calls: readonly (readonly [string, NodePlan])[]): NodePlan {
  const n = calls.length;
  return (state, scope) =>
    new Promise<NodeOutcome>((resolve) => {
      const outcomes = new Array<NodeOutcome>(n);
      let pending = n;
      // Every call settles before the gather answers, so the effects ledger is complete.
      const settle = (): void => {
        if (--pending > 0) return;
        const output: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const outcome = outcomes[i];
          if (!outcome.ok) {
            resolve({ ok: false, failure: { ...outcome.failure, details: { ...outcome.failure.details, call: calls[i][0] } } });
            return;
          }
          // defineProperty: a call named "__proto__" stays an own field and touches no prototype.
          Object.defineProperty(output, calls[i][0], { value: outcome.output, enumerable: true, writable: true, configurable: true });
        }
        resolve({ ok: true, output });
      };
      for (let i = 0; i < n; i++) {
        const now = startPlan(calls[i][1], state, scope, (outcome) => {
          outcomes[i] = outcome;
          settle();
        });
        if (now) {
          outcomes[i] = now;
          settle();
        }
      }
    });
}
