/**
 * One recorded call: what the recording of a session holds, one JSON line per call. Arguments
 * and outputs are the user's data: a recording is made only when the host asks for one.
 */

/**
 * The version of the line format; a reader skips lines of another.
 *
 * @category Forge: composites from recordings
 */
export const RECORD_VERSION = 1;

/**
 * The most characters of a call's output a line keeps by default (64 KiB of JSON text).
 *
 * @category Forge: composites from recordings
 */
export const DEFAULT_MAX_OUTPUT_CHARS = 65_536;

/**
 * One call as recorded: one JSON line of a session's file.
 *
 * @category Forge: composites from recordings
 */
export interface CallRecord {
  /** The line format's version, {@link RECORD_VERSION}. */
  v: number;
  /** The call's place in its session's recording, from 0. */
  seq: number;
  /** When the call started, as an ISO 8601 time. */
  time: string;
  /** The scope of the session that made the call (the observation scope; `''` when the context names none). */
  scope: string;
  /** The tool's name, as served. */
  tool: string;
  /**
   * The run the call belongs to: a call made inside a run of a door (a run_js script, a
   * run_pipeline or compose tree, a config's script) that a client called directly carries that
   * run's id, unique within its session's recording; so does the record of the run itself
   * (`isRun`). Absent for a direct call to a tool, and in recordings made without door wrapping.
   */
  run?: string;
  /**
   * `true` on the record of a run itself: the client's call to the door, its `args` (the script or
   * the tree, cut to the bound as `argsCut` with `argsChars` when their JSON text is longer) and
   * its answer. The calls inside it are the records with the same `run`. Mining leaves these out.
   */
  isRun?: true;
  /**
   * On a run's record: how many calls inside it failed with no record of their own (refused by the
   * gate before reaching a tool, or a nested door's failure); absent when none did.
   */
  failedUnrecorded?: number;
  /** The door the call came through (`run_js`, `run_pipeline`, `compose`, `composite`); absent for a direct call. */
  door?: string;
  /** The step that made it (its name, its place, `call N` in a script), or the tool's name for a direct call. */
  step: string;
  /** The tool's declaration: `false` pure, `true` side-effecting, absent undeclared. */
  hasSideEffects?: boolean;
  /** The arguments, as given. */
  args: unknown;
  /**
   * Where each argument came from, when the gate follows labels (`flows`): `{ trusted, sources }`
   * by the argument's name. Absent without `flows`, and on a run's own record.
   */
  provenance?: Record<string, { trusted: boolean; sources: { tool: string; step: string }[]; moreSources?: number }>;
  /** A run's arguments cut to the bound, when their JSON text did not fit (`args` is then `{}`). */
  argsCut?: string;
  /** The length in characters of a run's arguments' JSON text, when cut. */
  argsChars?: number;
  /** Whether it succeeded. */
  ok: boolean;
  /** The failure's code. */
  code?: string;
  /** The output (on success) when its JSON text fits the bound. */
  output?: unknown;
  /**
   * The output cut to the bound, when it did not fit: the start of its text (a string output) or
   * of its JSON text (any other).
   */
  outputCut?: string;
  /** The length in characters of the output's text (a string) or JSON text (any other). */
  outputChars?: number;
  /** The failure's message, cut to the bound. */
  error?: string;
  /** Milliseconds the tool ran. */
  ms: number;
}
