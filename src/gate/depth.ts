import { failure } from '../codes.js';
import type { ResultReader } from '../shaping/result-reader.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { frameFor, frameOf, type FrameEntry, type RunFrame } from './run-frame.js';

/**
 * How deep compositions may nest: a run whose caller is already this deep is refused.
 *
 * @category The gate
 */
export const MAX_COMPOSITION_DEPTH = 8;

/** Where a step reads its depth: `context.sessionData.emergentDepth` (a host may set it too). */
const DEPTH_KEY = 'emergentDepth';
/** Where a step reads the ids of the compositions on its call path, outermost first. */
const PATH_KEY = 'compositionPath';

/**
 * The nesting depth of the calls made with `context` (0 at the top): the frame's, when a door
 * made the context (what a tool wrote in `sessionData` does not count), else what the host's
 * `sessionData` says.
 */
export function depthOf(context: ToolExecutionContext | undefined): number {
  return depthIn(context, frameOf(context));
}

function depthIn(context: ToolExecutionContext | undefined, frame: RunFrame | undefined): number {
  if (frame !== undefined) return frame.depth;
  const depth = context?.sessionData?.[DEPTH_KEY];
  // Number.isFinite is false for anything that is not a number; a negative depth counts as 0.
  return Number.isFinite(depth) ? Math.max(depth as number, 0) : 0;
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
 * `sessionData` is copied, with the depth one more and this composition on the path (the run's
 * frame, its budget, is kept beside it, out of the steps' reach).
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
  const frame = frameOf(context);
  const depth = depthIn(context, frame);
  if (depth >= MAX_COMPOSITION_DEPTH) {
    return failure('nesting_too_deep', `Compositions nest at most ${MAX_COMPOSITION_DEPTH} deep.`, {
      depth,
      limit: MAX_COMPOSITION_DEPTH,
    });
  }
  const path = pathIn(context, frame);
  if (compositionId !== undefined && path.includes(compositionId)) {
    return failure('composition_cycle', `Composition "${compositionId}" reaches itself.`, {
      composition: compositionId,
      path: [...path, compositionId],
    });
  }
  return undefined;
}

/**
 * The context a composition's steps get, once {@link compositionRefusal} has let in: the
 * caller's fields, and a copy of `sessionData` with the depth one more and this composition on the
 * path, for the steps to read; the run's frame is kept beside that copy (see `run-frame.ts`).
 *
 * @param context - the caller's context
 * @param entry - how the door enters
 * @param signal - the abort signal the steps see, when the run was given one
 */
export function nestedContext(context: ToolExecutionContext, entry: DoorEntry, signal?: AbortSignal): ToolExecutionContext {
  const compositionId = entry.compositionId;
  const parent = frameOf(context);
  const path = pathIn(context, parent);
  const depth = depthIn(context, parent) + 1;
  // The frame's path is its own copy, never given to a tool: a later change of the host's array
  // changes nothing here. The steps get another copy, which they may change without harm.
  const framePath = compositionId === undefined ? [...path] : [...path, compositionId];
  const shown = [...framePath];
  // Literal keys (DEPTH_KEY, PATH_KEY): computed keys would take the literal's slow path.
  // The reader is written in the literal too: adding it afterwards would change the object's shape.
  // Without a reader of its own, the caller's (if any) is kept by the spread.
  const reader = entry.reader;
  const nested: Record<string, unknown> = reader === undefined
    ? { ...context.sessionData, emergentDepth: depth, compositionPath: shown }
    : { ...context.sessionData, emergentDepth: depth, compositionPath: shown, resultReader: reader };
  frameFor(parent, entry, nested, depth, framePath);
  // Copied with Object.assign and then given the fields: in V8 a spread followed by a property the
  // source lacks leaves the copy on a slow path (about 20x the cost of the copy itself).
  const next: ToolExecutionContext = Object.assign({}, context);
  next.sessionData = nested;
  if (signal) next.signal = signal;
  return next;
}

/** The composition path of the calls made with `context` (empty at the top): the frame's, else the host's `sessionData`'s. */
function pathIn(context: ToolExecutionContext, frame: RunFrame | undefined): readonly string[] {
  if (frame !== undefined) return frame.path;
  const path = context.sessionData?.[PATH_KEY];
  return Array.isArray(path) ? (path as string[]) : NO_PATH;
}
/** The path at the top: shared, never written (a nested path is always a new array). */
const NO_PATH: readonly string[] = Object.freeze([]);
