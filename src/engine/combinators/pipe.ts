/** pipe: stages in order, each stage's output feeding the next as `$prev` and `{result}`. */
import { runSequence } from '../sequence.js';
import type { NodeOutcome, NodePlan } from '../run-state.js';
import { withPrev } from '../labels.js';

/** Run the stages in order; the output is the last stage's. */
export function pipe(stages: readonly NodePlan[]): NodePlan {
  return (state, scope) =>
    new Promise<NodeOutcome>((resolve) => {
      let current = scope;
      runSequence(
        stages,
        state,
        () => current,
        (_, output, label) => {
          current = withPrev(scope, output, label);
        },
        (failed) => resolve(failed ?? (current.labels === undefined ? { ok: true, output: current.prev } : { ok: true, output: current.prev, label: current.labels.prev })),
      );
    });
}
