/**
 * Wrap tools so a large result is stored and only a bounded preview with an `obs_` id enters
 * the conversation; small results pass through untouched. The wrapper changes what comes back,
 * never what runs: the inner tool gets the same arguments and context, and its failures and
 * throws pass through as they are.
 *
 * Wrap at the conversation boundary (the tools a model calls directly): a composition that
 * reads a step's output as data wants the output itself, not a preview string.
 */
import { markStoresLabels, outputLabelToStore } from '../../flows/observation-labels.js';
import { readerOf } from '../../shaping/result-reader.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { copyTool } from '../../tool-copy.js';
import { linesLookLikePathList } from '../../shaping/looks-like-path-list.js';
import { shapePathList, type ShapedPathList } from '../../shaping/path-list.js';
import { splitLines } from '../../shaping/text-lines.js';
import { utf8ByteLength } from '../../shaping/utf8.js';
import { storedFooter, unstoredFooter, type PreviewFooterFacts } from './footer.js';
import { indexBody, lineCount, type IndexedBody } from './indexed-body.js';
import { resolveScope, type ObservationScope } from './observation-scope.js';
import { defaultObservationScope } from '../../session-scope.js';
import type { ObservationPut, ObservationStore } from './observation-store.js';
import { buildPreview } from './preview.js';

/**
 * Options of {@link withObservations}.
 *
 * @category Observations
 */
export interface WithObservationsOptions {
  /** Outputs larger than this many UTF-8 bytes are stored (default 2048; exactly 2048 passes). */
  thresholdBytes?: number;
  /** The most UTF-8 bytes of a preview (default 2048). */
  previewBytes?: number;
  /** The most lines of a preview (default 40). */
  previewLines?: number;
  /** Group outputs that look like path or match lists, when grouping is smaller (default true). */
  compressPaths?: boolean;
  /**
   * The scope a result is stored in, from the call's context (default
   * {@link defaultObservationScope}: the context's session, else its user). Only get_observation
   * calls in the same scope read it back.
   */
  scope?: ObservationScope;
}

/** The options with their defaults filled in. */
type Settings = Required<WithObservationsOptions>;

/** The defaults of {@link WithObservationsOptions}. */
const DEFAULTS: Settings = {
  thresholdBytes: 2048,
  previewBytes: 2048,
  previewLines: 40,
  compressPaths: true,
  scope: defaultObservationScope,
};

/** The output as text: a string as is, anything else as indented JSON; `undefined` when it has no JSON form. */
function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output, null, 2) as string | undefined;
  } catch {
    // A cycle or a BigInt: there is no text to store, so the result passes through as it is.
    return undefined;
  }
}

/**
 * Store a body in the call's scope. A store that throws or rejects, or a scope function that
 * fails, counts as unavailable: the tool's result must not be lost to it.
 */
async function tryPut(store: ObservationStore, body: IndexedBody, context: ToolExecutionContext, tool: string, label: unknown, settings: Settings): Promise<ObservationPut> {
  const scope = resolveScope(settings.scope, context);
  if (scope === undefined) return { ok: false, reason: 'unavailable' };
  try {
    return await store.put(body, scope, label === undefined ? { tool } : { tool, label });
  } catch {
    return { ok: false, reason: 'unavailable' };
  }
}

/** The output's lines and their grouped form, when it looks like a path list and grouping is smaller. */
function groupPaths(text: string, settings: Settings): ShapedPathList | undefined {
  if (!settings.compressPaths) return undefined;
  const lines = splitLines(text);
  if (!linesLookLikePathList(lines)) return undefined;
  const shaped = shapePathList(lines);
  return shaped.grouped ? shaped : undefined;
}

/** Shape one successful result: group, then store and preview when still over the threshold. */
async function shapeResult<O>(
  result: ToolExecutionResult<O>,
  toolName: string,
  context: ToolExecutionContext,
  store: ObservationStore,
  settings: Settings,
): Promise<ToolExecutionResult<O | string>> {
  const text = outputText(result.output);
  if (text === undefined) return result;
  const shaped = groupPaths(text, settings);
  const shipped = shaped ? shaped.text : text;
  if (utf8ByteLength(shipped) <= settings.thresholdBytes) {
    return shaped ? { ...result, output: shipped } : result;
  }

  // Stored is the original text, not the grouped one, so pages are the real lines; with it the
  // label the gate handed for this output, so get_observation reads it back as what it is.
  const body = indexBody(text);
  const put = await tryPut(store, body, context, toolName, outputLabelToStore(context, result), settings);
  const lines = lineCount(body);
  const bytes = body.utf8.length;
  const preview = await buildPreview(body, shaped?.units, {
    maxBytes: settings.previewBytes,
    maxLines: settings.previewLines,
  });
  const facts: PreviewFooterFacts = { lines, bytes, shown: preview.shown, partial: preview.partial };
  const footer = put.ok ? storedFooter(put.id, facts) : unstoredFooter(facts, put.reason);
  const observation = put.ok
    ? { observation: { id: put.id, lines, bytes } }
    : { truncated: { lines, bytes, reason: put.reason === 'too_large' ? 'too_large' : 'store_unavailable' } };
  return {
    ...result,
    output: preview.text === '' ? footer : `${preview.text}\n${footer}`,
    details: { ...result.details, ...observation },
  };
}

/** Wrap one tool: every property copied, `execute` shaping successful results. */
function wrapTool<I, O>(tool: ITool<I, O>, store: ObservationStore, settings: Settings): ITool<I, O | string> {
  const wrapped: ITool<I, O | string> = copyTool(tool, async (args: I, context: ToolExecutionContext): Promise<ToolExecutionResult<O | string>> => {
    const result = await tool.execute(args, context);
    // Failures, and anything that is not a result at all, are the gate's to judge.
    if (result === null || typeof result !== 'object' || result.success !== true) return result;
    // Code (a script, a composite's next step) gets the result as the tool gave it; it decides
    // what reaches the model, and a preview would silently cut what it reads.
    if (readerOf(context) === 'code') return result;
    return shapeResult(result, tool.name, context, store, settings);
  });
  // Optional fields are copied only when present: an absent hasSideEffects means "undeclared".
  if ('outputSchema' in tool) wrapped.outputSchema = tool.outputSchema;
  if ('hasSideEffects' in tool) wrapped.hasSideEffects = tool.hasSideEffects;
  if ('interactive' in tool) wrapped.interactive = tool.interactive;
  if ('composition' in tool) wrapped.composition = tool.composition;
  if ('stepTools' in tool) wrapped.stepTools = tool.stepTools;
  markStoresLabels(wrapped);
  return wrapped;
}

/**
 * Wrap a tool so a large result is stored whole, and the model reads a preview and pages the rest.
 *
 * Wrap a tool so that, when the model reads its result, an output over `thresholdBytes` (UTF-8, after grouping a path list) is stored in
 * `store` in full, and the result's output becomes a bounded preview (at most `previewBytes`
 * bytes and `previewLines` lines, cut between lines) plus one footer line naming the `obs_` id
 * and the `get_observation` call for the rest; `details.observation` holds `{ id, lines, bytes }`.
 * The body is stored in the call's scope (see {@link WithObservationsOptions.scope}). If the
 * store declines the body, or cannot be reached in time, the preview ships with a "not stored,
 * too large" or "not stored, store unavailable" footer and `details.truncated`
 * (`{ lines, bytes, reason }`) instead: the result still arrives, capped.
 *
 * Outputs at or under the threshold come back as the very same result, except a path or match
 * list whose grouped form is smaller, which comes back grouped. Failures come back unchanged.
 * The wrapped tool keeps every property of the original (id, name, schemas, hasSideEffects, ...).
 *
 * Shaping applies where the model reads the result: a direct call, a run_pipeline step. Where
 * code reads it (a run_js call, a step of a composite or a compose tree: the door marks the
 * context, see {@link readerOf}) the result passes through unchanged, so a registry can be
 * wrapped once and used through every door.
 *
 * @example
 * ```ts
 * const store = createObservationStore();
 * for (const tool of withObservations([readFile, grepFiles], store)) registry.set(tool);
 * registry.set(createGetObservationTool(store));
 * ```
 *
 * @category Observations
 */
export function withObservations<I, O>(
  tool: ITool<I, O>,
  store: ObservationStore,
  options?: WithObservationsOptions,
): ITool<I, O | string>;
/** Wrap each tool of a list, as for a single tool; the list keeps its order. */
export function withObservations<I, O>(
  tools: readonly ITool<I, O>[],
  store: ObservationStore,
  options?: WithObservationsOptions,
): ITool<I, O | string>[];
export function withObservations<I, O>(
  toolOrTools: ITool<I, O> | readonly ITool<I, O>[],
  store: ObservationStore,
  options: WithObservationsOptions = {},
): ITool<I, O | string> | ITool<I, O | string>[] {
  const settings: Settings = {
    thresholdBytes: options.thresholdBytes ?? DEFAULTS.thresholdBytes,
    previewBytes: options.previewBytes ?? DEFAULTS.previewBytes,
    previewLines: options.previewLines ?? DEFAULTS.previewLines,
    compressPaths: options.compressPaths ?? DEFAULTS.compressPaths,
    scope: options.scope ?? DEFAULTS.scope,
  };
  if (isToolList(toolOrTools)) return toolOrTools.map((tool) => wrapTool(tool, store, settings));
  return wrapTool(toolOrTools, store, settings);
}

/** `Array.isArray` that narrows a readonly list too. */
function isToolList<I, O>(value: ITool<I, O> | readonly ITool<I, O>[]): value is readonly ITool<I, O>[] {
  return Array.isArray(value);
}
