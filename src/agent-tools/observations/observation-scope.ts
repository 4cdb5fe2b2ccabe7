/**
 * Scopes: an observation is readable only where it was made. The scope is a key the host derives
 * from the context of a call (a session, a user); the wrapper stores under the scope of the call
 * that produced the result, and get_observation reads under the scope of its own call. An id
 * from another scope reads exactly like one never issued.
 */
import type { ToolExecutionContext } from '../../tool.js';

/**
 * Derives the scope key from a call's context. Must not depend on anything the model writes.
 *
 * @category Observations
 */
export type ObservationScope = (context: ToolExecutionContext) => string;

/**
 * The scope of a call, or `undefined` when the host's function throws or returns something that
 * is not a string (then nothing is stored or read: the store counts as unavailable).
 */
export function resolveScope(scope: ObservationScope, context: ToolExecutionContext): string | undefined {
  try {
    const key: unknown = scope(context ?? {});
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
