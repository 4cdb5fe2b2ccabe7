import { failure } from '../codes.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/** How deep compositions may nest: a run whose caller is already this deep is refused. */
export const MAX_COMPOSITION_DEPTH = 8;

/** Where the depth travels: `context.sessionData.emergentDepth`. */
const DEPTH_KEY = 'emergentDepth';
/** The ids of the compositions on the current call path, outermost first. */
const PATH_KEY = 'compositionPath';

/** The nesting depth the caller's context carries (0 at the top). */
export function depthOf(context: ToolExecutionContext | undefined): number {
  const depth = context?.sessionData?.[DEPTH_KEY];
  return typeof depth === 'number' && Number.isFinite(depth) && depth >= 0 ? depth : 0;
}

/**
 * Enter one level of composition: refuse at the depth limit, refuse a composition that reaches
 * itself, and otherwise return the context its steps get. Host fields survive unchanged; only
 * `sessionData` is copied, with the depth one more and this composition on the path.
 *
 * @param context - the caller's context
 * @param compositionId - the id of the composition being entered, for the cycle guard
 * @param signal - the abort signal the steps see, when the run was given one
 */
export function enterComposition(
  context: ToolExecutionContext,
  compositionId: string | undefined,
  signal?: AbortSignal,
): { ok: true; context: ToolExecutionContext } | { ok: false; refusal: ToolExecutionResult<never> } {
  const depth = depthOf(context);
  if (depth >= MAX_COMPOSITION_DEPTH) {
    return {
      ok: false,
      refusal: failure('nesting_too_deep', `Compositions nest at most ${MAX_COMPOSITION_DEPTH} deep.`, {
        depth,
        limit: MAX_COMPOSITION_DEPTH,
      }),
    };
  }
  const sessionData = context.sessionData ?? {};
  const path = Array.isArray(sessionData[PATH_KEY]) ? (sessionData[PATH_KEY] as string[]) : [];
  if (compositionId !== undefined && path.includes(compositionId)) {
    return {
      ok: false,
      refusal: failure('composition_cycle', `Composition "${compositionId}" reaches itself.`, {
        composition: compositionId,
        path: [...path, compositionId],
      }),
    };
  }
  const next: ToolExecutionContext = {
    ...context,
    sessionData: {
      ...sessionData,
      [DEPTH_KEY]: depth + 1,
      [PATH_KEY]: compositionId === undefined ? path : [...path, compositionId],
    },
  };
  if (signal) next.signal = signal;
  return { ok: true, context: next };
}
