/**
 * Checking get_observation's arguments. The model writes them, so they are checked here rather
 * than trusted from the schema, and every problem is reported at once.
 */

/** get_observation's arguments, once checked. */
export interface GetObservationInput {
  /** The ids to read, each once, in the order given. */
  ids: string[];
  /** The 0-based line to start at (default 0). */
  offset: number;
  /** The most lines per id, already clamped to the tool's bound. */
  lines: number;
}

/** The checked arguments, or every problem found. */
export type ParsedGetObservationInput = { ok: true; input: GetObservationInput } | { ok: false; errors: string[] };

/** Whether a value is a whole number. */
function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/**
 * Check get_observation's arguments: `ids` a non-empty array of strings, `offset` a whole number
 * of at least 0, `lines` a whole number of at least 1 (clamped to `maxLines`).
 */
export function parseGetObservationInput(args: unknown, maxLines: number): ParsedGetObservationInput {
  const errors: string[] = [];
  const record: Record<string, unknown> = args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  const { ids, offset = 0, lines = maxLines } = record;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
    errors.push('ids must be a non-empty array of strings');
  }
  if (!isInteger(offset) || offset < 0) errors.push('offset must be a whole number >= 0');
  if (!isInteger(lines) || lines < 1) errors.push('lines must be a whole number >= 1');
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      ids: [...new Set(ids as string[])],
      offset: offset as number,
      lines: Math.min(lines as number, maxLines),
    },
  };
}
