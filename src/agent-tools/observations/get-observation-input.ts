/**
 * Checking get_observation's arguments. The model writes them, so they are checked here rather
 * than trusted from the schema, every problem is reported at once, and nothing in them can make
 * the check throw: each field is read once, inside a guard, into plain values (a getter or a
 * proxy that throws, or answers differently each time, is read once or reported).
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

/**
 * The most ids one call may name.
 *
 * @category Observations
 */
export const MAX_IDS_PER_CALL = 20;
/** The longest id accepted (ids are 24 characters; a host store's may be longer, within reason). */
const MAX_ID_LENGTH = 64;

/** Whether a value is a whole number. */
function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** The fields, each read once. */
interface RawInput {
  ids: unknown;
  /** `ids` was an array longer than {@link MAX_IDS_PER_CALL} (and was not copied). */
  tooManyIds: boolean;
  offset: unknown;
  lines: unknown;
}

/** Read each field once; `ids` copied into a plain array when it is a short enough array. */
function readFields(args: unknown): RawInput {
  if (args === null || typeof args !== 'object') return { ids: undefined, tooManyIds: false, offset: undefined, lines: undefined };
  const record = args as Record<string, unknown>;
  const ids = record.ids;
  const offset = record.offset;
  const lines = record.lines;
  if (!Array.isArray(ids)) return { ids, tooManyIds: false, offset, lines };
  const length = ids.length;
  if (length > MAX_IDS_PER_CALL) return { ids: undefined, tooManyIds: true, offset, lines };
  const copy: unknown[] = [];
  for (let index = 0; index < length; index++) copy.push(ids[index]);
  return { ids: copy, tooManyIds: false, offset, lines };
}

/** Every problem with the fields read. */
function problems(raw: RawInput): string[] {
  const errors: string[] = [];
  const { ids, offset = 0, lines } = raw;
  if (raw.tooManyIds) errors.push(`ids may name at most ${MAX_IDS_PER_CALL} observations per call`);
  else if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id !== '')) {
    errors.push('ids must be a non-empty array of observation ids (strings)');
  } else if (ids.some((id: string) => id.length > MAX_ID_LENGTH)) {
    errors.push(`ids are at most ${MAX_ID_LENGTH} characters`);
  }
  if (!isInteger(offset) || offset < 0) errors.push('offset must be a whole number >= 0');
  if (lines !== undefined && (!isInteger(lines) || lines < 1)) errors.push('lines must be a whole number >= 1');
  return errors;
}

/**
 * Check get_observation's arguments: `ids` a non-empty array of at most 20 strings (each at most
 * 64 characters), `offset` a whole number of at least 0, `lines` a whole number of at least 1
 * (clamped to `maxLines`). Never throws.
 */
export function parseGetObservationInput(args: unknown, maxLines: number): ParsedGetObservationInput {
  let raw: RawInput;
  try {
    raw = readFields(args);
  } catch {
    return { ok: false, errors: ['the arguments could not be read; send plain JSON: {"ids": ["obs_..."], "offset": 0}'] };
  }
  const errors = problems(raw);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      ids: [...new Set(raw.ids as string[])],
      offset: (raw.offset ?? 0) as number,
      lines: Math.min((raw.lines ?? maxLines) as number, maxLines),
    },
  };
}
