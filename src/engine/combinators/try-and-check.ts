/** try_and_check: run `do`, then `check`; the node fails with the check's result when the check fails. */
import { failure } from '../../codes.js';
import { failed } from '../step-records.js';
import type { NodeOutcome, NodePlan } from '../run-state.js';
import { flatten } from '../../flows/label-tree.js';
import { outcomeLabel, underControl, withPrev } from '../labels.js';

/**
 * The most tries a try_and_check may ask for.
 *
 * @category Build composites
 */
export const TRY_AND_CHECK_MAX_ATTEMPTS = 5;

/**
 * Whether a `try_and_check` check passed.
 *
 * A check passes unless its call fails or its output says no: `false`, or an object whose
 * `ok`, `passed` or `success` is `false` (how test runners and linters report).
 *
 * @example
 * ```ts
 * checkPassed({ passed: false }); // false
 * checkPassed('3 tests passed'); // true
 * ```
 *
 * @category Build composites
 */
export function checkPassed(output: unknown): boolean {
  if (output === false) return false;
  if (typeof output === 'object' && output !== null) {
    const o = output as Record<string, unknown>;
    if (o.ok === false || o.passed === false || o.success === false) return false;
  }
  return true;
}

/** Compile a try_and_check: the output is `{ do, check }`, the two outputs. */
export function tryAndCheck(label: string, doPlan: NodePlan, checkPlan: NodePlan, attempts: number): NodePlan {
  const tries = Math.max(1, Math.min(TRY_AND_CHECK_MAX_ATTEMPTS, Math.floor(attempts)));
  return async (state, scope) => {
    let last: NodeOutcome | undefined;
    let attemptState = state;
    for (let attempt = 1; attempt <= tries; attempt++) {
      const work = await doPlan(attemptState, scope);
      if (!work.ok) return work;
      const check = await checkPlan(attemptState, withPrev(scope, work.output, work.label));
      const checked = outcomeLabel(check);
      if (check.ok && checkPassed(check.output)) {
        const output = { do: work.output, check: check.output };
        // The answer exists because the check passed: what it read is in both parts.
        return scope.labels === undefined ? { ok: true, output } : { ok: true, output, label: { own: flatten(checked), fields: { do: outcomeLabel(work), check: checked } } };
      }
      last = check;
      // Another attempt is made because the check failed: what it read decides the calls after.
      attemptState = underControl(attemptState, flatten(checked));
    }
    const checkResult = last && (last.ok ? { success: true, output: last.output } : last.failure);
    return failed(state, label, undefined, failure('check_failed', `try_and_check "${label}": the check failed after ${tries} attempt${tries > 1 ? 's' : ''}.`, {
      check: checkResult,
      attempts: tries,
    }));
  };
}
