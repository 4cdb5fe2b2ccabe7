/**
 * get_observation: the model's way to page a stored output. Its definition is sent with every
 * request, so the description and schema are kept to the bone (a test bounds their tokens).
 *
 * Several ids in one call share one offset and one byte budget. If any id is unknown, expired,
 * or has no line at the offset, the whole call fails and names every bad id: a partial answer
 * with errors mixed into the text is easy to misread, and a clean failure with a code is easy
 * to act on (drop the id, or run the tool again).
 */
import { failure, type ErrorCode } from '../../codes.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import { splitLines } from '../../shaping/text-lines.js';
import { countLines } from './footer.js';
import { formatBytes } from './format.js';
import { parseGetObservationInput } from './get-observation-input.js';
import type { ObservationMissCode, ObservationStore } from './observation-store.js';
import { readWindow, type Window } from './observation-window.js';

/** Options of {@link createGetObservationTool}. */
export interface GetObservationToolOptions {
  /** The most lines per id per call (default 80); a larger `lines` argument is clamped to it. */
  maxLines?: number;
  /** The most UTF-8 bytes of stored text per call, across all ids (default 50 KB). */
  maxBytes?: number;
}

/** The default lines per id per call. */
export const GET_OBSERVATION_MAX_LINES = 80;
/** The default bytes per call, across ids. */
export const GET_OBSERVATION_MAX_BYTES = 50 * 1024;

/** One id that could not be read, and why. */
interface BadId {
  id: string;
  code: ErrorCode;
  reason: string;
}

/** Why a lookup missed, in a few words the model can act on. */
function missReason(code: ObservationMissCode): string {
  return code === 'observation_expired' ? 'evicted; run the tool again' : 'no such observation';
}

/** The failure naming every bad id; its code is the first bad id's. */
function badIdsFailure(bad: readonly BadId[]): ToolExecutionResult<never> {
  const message = bad.map((entry) => `${entry.id}: ${entry.reason}`).join('; ');
  return failure(bad[0].code, message, { ids: bad.map(({ id, code }) => ({ id, code })) });
}

/** The footer under a window, or `''` when the window reaches the end. */
function windowFooter(id: string, window: Window, offset: number, total: number, maxBytes: number): string {
  const end = offset + window.shown;
  const next = end < total ? `; next offset ${end}` : '';
  if (window.cut) return `[${id}: line ${offset + 1} of ${total} cut to ${formatBytes(window.bytes)}${next}]`;
  if (window.shown === 0 && offset < total) {
    return `[${id}: not shown, ${formatBytes(maxBytes)} per call; call again with offset ${offset}]`;
  }
  if (end < total) return `[${id}: lines ${offset + 1}-${end} of ${total}; next offset ${end}]`;
  return '';
}

/** Join non-empty parts with newlines. */
function joinLines(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n');
}

/**
 * Create the `get_observation` tool over `store`: `{ ids, offset?, lines? }` returns up to
 * `lines` (default and most 80) lines of each id from the 0-based `offset`, at most 50 KB per
 * call across ids. One id: its text, plus a footer with the next offset when more remains.
 * Several ids: each under a `== id ==` header. Failures: `input_invalid`, `observation_unknown`,
 * `observation_expired`, `observation_offset` (the offset is at or past the end of a non-empty
 * body; offset 0 of an empty body reads as empty).
 */
export function createGetObservationTool(
  store: ObservationStore,
  options: GetObservationToolOptions = {},
): ITool<Record<string, unknown>, string> {
  const maxLines = options.maxLines ?? GET_OBSERVATION_MAX_LINES;
  const maxBytes = options.maxBytes ?? GET_OBSERVATION_MAX_BYTES;
  return {
    id: 'get_observation',
    name: 'get_observation',
    displayName: 'Get observation',
    description: `Read stored tool output by obs_ id: up to ${maxLines} lines per id from a 0-based line offset. Several ids per call.`,
    inputSchema: {
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'string' } },
        offset: { type: 'integer', minimum: 0 },
        lines: { type: 'integer' },
      },
      required: ['ids'],
    },
    hasSideEffects: false,
    async execute(args) {
      const parsed = parseGetObservationInput(args, maxLines);
      if (!parsed.ok) {
        return failure('input_invalid', `get_observation: ${parsed.errors.join('; ')}`, { errors: parsed.errors });
      }
      const { ids, offset, lines } = parsed.input;

      const bodies: { id: string; lines: string[] }[] = [];
      const bad: BadId[] = [];
      for (const id of ids) {
        const lookup = await store.get(id);
        if (lookup.ok) bodies.push({ id, lines: splitLines(lookup.body) });
        else bad.push({ id, code: lookup.code, reason: missReason(lookup.code) });
      }
      if (bad.length > 0) return badIdsFailure(bad);
      for (const body of bodies) {
        if (offset > 0 && offset >= body.lines.length) {
          bad.push({ id: body.id, code: 'observation_offset', reason: `offset ${offset} is past the end (${countLines(body.lines.length)})` });
        }
      }
      if (bad.length > 0) return badIdsFailure(bad);

      let budget = maxBytes;
      const sections = bodies.map((body) => {
        const window = readWindow(body.lines, { offset, maxLines: lines, budgetBytes: budget, mayCut: budget === maxBytes });
        budget -= window.bytes;
        const footer = windowFooter(body.id, window, offset, body.lines.length, maxBytes);
        return bodies.length === 1 ? joinLines(window.text, footer) : joinLines(`== ${body.id} ==`, window.text, footer);
      });
      return { success: true, output: sections.join('\n') };
    },
  };
}
