import { failure } from '../codes.js';
import type { ResultReader } from '../shaping/result-reader.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { frameFor, type FrameEntry } from './run-frame.js';

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

/** How a door enters one level of composition: made once per door, not per run. */
export interface DoorEntry extends FrameEntry {
  /** The id of the composition being entered, for the cycle guard. */
  readonly compositionId?: string;
  /** Who reads the steps' results (see `readerOf`); absent: the caller's reader. */
  readonly reader?: ResultReader;
}

/**
 * Enter one level of composition: refuse at the depth limit, refuse a composition that reaches
 * itself, and otherwise return the context its steps get. Host fields survive unchanged; only
 * `sessionData` is copied, with the depth one more, this composition on the path and the run's
 * frame (its budget).
 *
 * @param context - the caller's context
 * @param entry - how the door enters
 * @param signal - the abort signal the steps see, when the run was given one
 */
export function enterComposition(
  context: ToolExecutionContext,
  entry: DoorEntry,
  signal?: AbortSignal,
): { ok: true; context: ToolExecutionContext } | { ok: false; refusal: ToolExecutionResult<never> } {
  const refusal = compositionRefusal(context, entry.compositionId);
  if (refusal) return { ok: false, refusal };
  return { ok: true, context: nestedContext(context, entry, signal) };
}

/**
 * The depth and cycle guards of {@link enterComposition} alone: the refusal (`nesting_too_deep`,
 * `composition_cycle`), or `undefined` when the composition may be entered.
 *
 * @param context - the caller's context
 * @param compositionId - the id of the composition being entered, for the cycle guard
 */
export function compositionRefusal(context: ToolExecutionContext, compositionId: string | undefined): ToolExecutionResult<never> | undefined {
  const depth = depthOf(context);
  if (depth >= MAX_COMPOSITION_DEPTH) {
    return failure('nesting_too_deep', `Compositions nest at most ${MAX_COMPOSITION_DEPTH} deep.`, {
      depth,
      limit: MAX_COMPOSITION_DEPTH,
    });
  }
  const path = pathOf(context);
  if (compositionId !== undefined && path.includes(compositionId)) {
    return failure('composition_cycle', `Composition "${compositionId}" reaches itself.`, {
      composition: compositionId,
      path: [...path, compositionId],
    });
  }
  return undefined;
}

/**
 * The context a composition's steps get, once {@link compositionRefusal} has let it in: the
 * caller's fields, and a copy of `sessionData` with the depth one more, this composition on the
 * path and the run's frame. Built once per run, so it avoids what it can: no spread with computed
 * keys, and no empty object or array made for a context that carries none.
 *
 * @param context - the caller's context
 * @param entry - how the door enters
 * @param signal - the abort signal the steps see, when the run was given one
 */
export function nestedContext(context: ToolExecutionContext, entry: DoorEntry, signal?: AbortSignal): ToolExecutionContext {
  const compositionId = entry.compositionId;
  const path = pathOf(context);
  let nextPath: readonly string[];
  // The shared empty path never reaches a host: steps get an array of their own.
  if (compositionId === undefined) nextPath = path === NO_PATH ? [] : path;
  else if (path.length === 0) nextPath = [compositionId];
  else nextPath = [...path, compositionId];
  const sessionData = context.sessionData;
  const frame = frameFor(context, entry);
  // Literal keys (DEPTH_KEY, PATH_KEY, FRAME_KEY): computed keys would take the literal's slow path.
  // The reader is written in the literal too: adding it afterwards would change the object's shape.
  const reader = entry.reader;
  let nested: Record<string, unknown>;
  if (sessionData) {
    nested = reader === undefined
      ? { ...sessionData, emergentDepth: depthOf(context) + 1, compositionPath: nextPath, toolweave: frame }
      : { ...sessionData, emergentDepth: depthOf(context) + 1, compositionPath: nextPath, toolweave: frame, resultReader: reader };
  } else {
    nested = reader === undefined
      ? { emergentDepth: 1, compositionPath: nextPath, toolweave: frame }
      : { emergentDepth: 1, compositionPath: nextPath, toolweave: frame, resultReader: reader };
  }
  return withOwn(context, nested, signal);
}

/**
 * A copy of `context` with `sessionData` (and `signal`, when given) set. In V8 a spread followed by
 * a property the source lacks leaves the copy on a slow path (about 20x the cost of the copy
 * itself), so a context without those fields is copied with Object.assign and given them after.
 */
function withOwn(context: ToolExecutionContext, sessionData: Record<string, unknown>, signal: AbortSignal | undefined): ToolExecutionContext {
  if (Object.hasOwn(context, 'sessionData') && (signal === undefined || Object.hasOwn(context, 'signal'))) {
    return signal ? { ...context, sessionData, signal } : { ...context, sessionData };
  }
  const next: ToolExecutionContext = Object.assign({}, context);
  next.sessionData = sessionData;
  if (signal) next.signal = signal;
  return next;
}

/** The path the caller's context carries (empty at the top). */
function pathOf(context: ToolExecutionContext): readonly string[] {
  const path = context.sessionData?.[PATH_KEY];
  return Array.isArray(path) ? (path as string[]) : NO_PATH;
}
/** The path at the top: shared, never written (a nested path is always a new array). */
const NO_PATH: readonly string[] = Object.freeze([]);
