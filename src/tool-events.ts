/**
 * What a host hears of the calls under a context it passed (`context.onEvent`), and which door a
 * call came through. The tool model (`tool.ts`) and the gate both speak these types, so they live
 * below both.
 */

/**
 * The doors a call can come through.
 *
 * @category The gate
 */
export type DoorKind = 'composite' | 'run_pipeline' | 'compose' | 'run_js';

/**
 * Which door made the calls under a frame, for approvals and traces.
 *
 * @category The gate
 */
export interface DoorInfo {
  /** The door. */
  kind: DoorKind;
  /** A composite's name (the host chose it). */
  name?: string;
  /** A script's stated intention (the model chose it). */
  intention?: string;
}

/** What every event says about its call. */
interface ToolEventBase {
  /** The tool's name. */
  tool: string;
  /** The step that calls it (its name, its place, or `call N` in a script). */
  step: string;
  /** The door the call comes through; absent for a direct call. */
  door?: DoorKind;
  /** The ids of the compositions on the call path, outermost first. */
  path: readonly string[];
}

/**
 * A tool was started (every check passed).
 *
 * @category The gate
 */
export interface ToolCallStarted extends ToolEventBase {
  /** The kind. */
  type: 'call_started';
  /**
   * Where each argument came from, by the argument's name (a gate with `flows`): `{ trusted,
   * sources }`, as an approval request shows it.
   */
  provenance?: Record<string, { trusted: boolean; sources: { tool: string; step: string }[]; moreSources?: number; readers?: string[] }>;
}

/**
 * A call ended: ran, failed, or was refused by the gate.
 *
 * @category The gate
 */
export interface ToolCallEnded extends ToolEventBase {
  /** The kind. */
  type: 'call_ended';
  /** Whether it succeeded. */
  ok: boolean;
  /** The failure's code. */
  code?: string;
  /** The failure's message: what went wrong, or why the call was refused. */
  error?: string;
  /** Milliseconds from its start (0 for a call refused before it started). */
  ms: number;
}

/**
 * A call starting or ending.
 *
 * @category The gate
 */
export type ToolEvent = ToolCallStarted | ToolCallEnded;
