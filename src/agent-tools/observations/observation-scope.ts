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

/** A usable id value: a non-empty string, or a finite number written out. */
function idValue(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The default scope of observations: a call's session, else its user.
 *
 * The default scope: the session the context carries (`context.sessionData.sessionId`, then
 * `context.sessionId`) as `session:<id>`, else its user (`context.userId`) as `user:<id>`, else
 * `''`, the one scope every context without either shares. The library's own doors copy
 * `sessionData` with a spread and pass every other field through, so these survive into the
 * calls a pipeline or a script makes.
 *
 * @category Observations
 */
export function defaultObservationScope(context: ToolExecutionContext): string {
  const session = idValue(context.sessionData?.sessionId) ?? idValue(context.sessionId);
  if (session !== undefined) return `session:${session}`;
  const user = idValue(context.userId);
  return user === undefined ? '' : `user:${user}`;
}

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
