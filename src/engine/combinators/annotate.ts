/** annotate: intent and hypothesis travel with the inner node into its trace and any error; what runs is unchanged. */
import type { NodePlan } from '../run-state.js';

/** Compile an annotate node around `inner`. */
export function annotate(inner: NodePlan, intent: string, hypothesis: string | undefined): NodePlan {
  const note = hypothesis === undefined ? { intent } : { intent, hypothesis };
  return async (state, scope) => {
    const outcome = await inner({ ...state, annotations: [...state.annotations, note] }, scope);
    if (outcome.ok) return outcome;
    const details = outcome.failure.details;
    // An inner annotate already named its own intent; the outermost words do not overwrite it.
    if (details && 'intent' in details && details.intent !== undefined) return outcome;
    return { ok: false, failure: { ...outcome.failure, details: { ...details, ...note } } };
  };
}
