/**
 * The default scope of what a session keeps (its observations, its paused runs): the session the
 * context carries, else its user. The gate and the observation store both scope by it, so it
 * lives below both.
 */
import type { ToolExecutionContext } from './tool.js';

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
