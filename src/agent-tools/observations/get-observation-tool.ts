/**
 * get_observation: the model's way to page a stored output. Its definition is sent with every
 * request, so the description and schema are kept to the bone (a test bounds their tokens).
 *
 * Several ids in one call share one offset and one byte budget. If any id is unknown, expired,
 * or has no line at the offset, the whole call fails and names every bad id: a partial answer
 * with errors mixed into the text is easy to misread, and a clean failure with a code is easy
 * to act on (drop the id, or run the tool again). The error names only ids the model sent, and
 * an id of another scope reads exactly like one never issued, so errors reveal nothing about
 * what exists elsewhere.
 */
import { failure, type ErrorCode } from '../../codes.js';
import { markReadsObservations, noteStoredRead, storedReadsOf } from '../../flows/observation-labels.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { countLines } from './footer.js';
import { formatBytes } from './format.js';
import { parseGetObservationInput } from './get-observation-input.js';
import type { ObservationPage, ObservationPageRequest } from './observation-page.js';
import { resolveScope, type ObservationScope } from './observation-scope.js';
import { defaultObservationScope } from '../../session-scope.js';
import type { ObservationMissCode, ObservationRead, ObservationStore } from './observation-store.js';

/**
 * Options of {@link createGetObservationTool}.
 *
 * @category Observations
 */
export interface GetObservationToolOptions {
  /** The most lines per id per call (default 80); a larger `lines` argument is clamped to it. */
  maxLines?: number;
  /** The most UTF-8 bytes of stored text per call, across all ids (default 50 KB). */
  maxBytes?: number;
  /**
   * The scope a call reads in, from its context (default {@link defaultObservationScope}). Give
   * the same function as to {@link withObservations}: an id stored in another scope reads as unknown.
   */
  scope?: ObservationScope;
}

/**
 * The default lines per id per call.
 *
 * @category Observations
 */
export const GET_OBSERVATION_MAX_LINES = 80;
/**
 * The default bytes per call, across ids.
 *
 * @category Observations
 */
export const GET_OBSERVATION_MAX_BYTES = 50 * 1024;

/** One id that could not be read, and why. */
interface BadId {
  id: string;
  code: ErrorCode;
  reason: string;
}

/** Why a read missed, in a few words the model can act on. */
const MISS_REASONS: Record<ObservationMissCode, string> = {
  observation_unknown: 'no such observation',
  observation_expired: 'evicted; run the tool again',
  observation_store_unavailable: 'the observation store is unavailable; try again shortly',
};

/** The failure naming every bad id; its code is the first bad id's. */
function badIdsFailure(bad: readonly BadId[]): ToolExecutionResult<never> {
  const message = bad.map((entry) => `${entry.id}: ${entry.reason}`).join('; ');
  return failure(bad[0].code, message, { ids: bad.map(({ id, code }) => ({ id, code })) });
}

/** The footer under a page, or `''` when the page reaches the end. */
function pageFooter(id: string, page: ObservationPage, offset: number, total: number, maxBytes: number): string {
  const end = offset + page.shown;
  const next = end < total ? `; next offset ${end}` : '';
  if (page.cut) return `[${id}: line ${offset + 1} of ${total} cut to ${formatBytes(page.bytes)}${next}]`;
  if (page.shown === 0 && offset < total) {
    return `[${id}: not shown, ${formatBytes(maxBytes)} per call; call again with offset ${offset}]`;
  }
  if (end < total) return `[${id}: lines ${offset + 1}-${end} of ${total}; next offset ${end}]`;
  return '';
}

/** Join non-empty parts with newlines. */
function joinLines(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n');
}

/** Read through a host's store, which may throw or reject: that counts as unavailable. */
async function readSafely(store: ObservationStore, id: string, scope: string, request: ObservationPageRequest): Promise<ObservationRead> {
  try {
    return await store.read(id, scope, request);
  } catch {
    return { ok: false, code: 'observation_store_unavailable' };
  }
}

/** One id read: its page and total line count. */
interface ReadId {
  id: string;
  lines: number;
  page: ObservationPage;
}

/**
 * Create the `get_observation` tool, with which the model reads a stored observation page by page.
 *
 * Create the `get_observation` tool over `store`: `{ ids, offset?, lines? }` returns up to
 * `lines` (default and most 80) lines of each id from the 0-based `offset`, at most 50 KB per
 * call across ids, at most 20 ids. One id: its text, plus a footer with the next offset when
 * more remains. Several ids: each under a `== id ==` header. Only observations stored in the
 * call's scope are read (see {@link GetObservationToolOptions.scope}). Every call answers with a
 * result, never a throw. Failures: `input_invalid`, `observation_unknown` (also for an id of
 * another scope), `observation_expired`, `observation_offset` (the offset is at or past the end
 * of a non-empty body; offset 0 of an empty body reads as empty), `observation_store_unavailable`.
 *
 * @example
 * ```ts
 * const store = createObservationStore();
 * registry.set(createGetObservationTool(store)); // served as get_observation
 * ```
 *
 * @category Observations
 */
export function createGetObservationTool(
  store: ObservationStore,
  options: GetObservationToolOptions = {},
): ITool<Record<string, unknown>, string> {
  const maxLines = options.maxLines ?? GET_OBSERVATION_MAX_LINES;
  const maxBytes = options.maxBytes ?? GET_OBSERVATION_MAX_BYTES;
  const scopeOf = options.scope ?? defaultObservationScope;
  const tool: ITool<Record<string, unknown>, string> = {
    id: 'get_observation',
    name: 'get_observation',
    displayName: 'Get observation',
    description: `Page stored output by obs_ id: ${maxLines} lines per id from a 0-based line offset.`,
    inputSchema: {
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'string' } },
        offset: { type: 'integer' },
        lines: { type: 'integer' },
      },
      required: ['ids'],
    },
    hasSideEffects: false,
    async execute(args, context: ToolExecutionContext) {
      // With flows, the gate labels what this answers by the labels of what it reads.
      const reads = storedReadsOf(context);
      const parsed = parseGetObservationInput(args, maxLines);
      if (!parsed.ok) {
        return failure('input_invalid', `get_observation: ${parsed.errors.join('; ')}`, { errors: parsed.errors });
      }
      const { ids, offset, lines } = parsed.input;
      const scope = resolveScope(scopeOf, context);

      const read: ReadId[] = [];
      const bad: BadId[] = [];
      const pastEnd: BadId[] = [];
      let budget = maxBytes;
      for (const id of ids) {
        // Once the call is failing, later ids are only classified: no page text is read for them.
        const request = { offset, maxLines: bad.length > 0 ? 0 : lines, budgetBytes: budget, mayCut: budget === maxBytes };
        const answer: ObservationRead =
          scope === undefined ? { ok: false, code: 'observation_store_unavailable' } : await readSafely(store, id, scope, request);
        if (!answer.ok) {
          bad.push({ id, code: answer.code, reason: MISS_REASONS[answer.code] });
        } else if (offset > 0 && offset >= answer.lines) {
          // The refusal names the observation's line count, which its text decides: it was read too.
          if (reads !== undefined) noteStoredRead(reads, answer.meta.label, answer.meta.tool);
          pastEnd.push({ id, code: 'observation_offset', reason: `offset ${offset} is past the end (${countLines(answer.lines)})` });
        } else {
          if (reads !== undefined) noteStoredRead(reads, answer.meta.label, answer.meta.tool);
          budget -= answer.page.bytes;
          read.push({ id, lines: answer.lines, page: answer.page });
        }
      }
      if (bad.length > 0) return badIdsFailure(bad);
      if (pastEnd.length > 0) return badIdsFailure(pastEnd);

      const sections = read.map(({ id, lines: total, page }) => {
        const footer = pageFooter(id, page, offset, total, maxBytes);
        return read.length === 1 ? joinLines(page.text, footer) : joinLines(`== ${id} ==`, page.text, footer);
      });
      return { success: true, output: sections.join('\n') };
    },
  };
  // Known to the gate by this mark, not by its name: a host's own tool of the same name is judged as any other.
  markReadsObservations(tool);
  return tool;
}
