/** pipe: stages in order, each stage's output feeding the next as `$prev` and `{result}`. */
import type { NodePlan } from '../run-state.js';

/** Run the stages in order; the output is the last stage's. */
export function pipe(stages: readonly NodePlan[]): NodePlan {
  return async (state, scope) => {
    let prev = scope.prev;
    for (const stage of stages) {
      const outcome = await stage(state, prev === scope.prev ? scope : { ...scope, prev });
      if (!outcome.ok) return outcome;
      prev = outcome.output;
    }
    return { ok: true, output: prev };
  };
}
