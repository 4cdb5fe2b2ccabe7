/**
 * How a gate with an approval hook keeps runs that wait for a person: the host's settings, their
 * defaults, and the scope a run belongs to (a token from another scope reads as unknown).
 */
import type { ToolExecutionContext } from '../tool.js';
import type { RunJournal } from './journal.js';

/**
 * How runs that wait for a person are kept; see {@link StepGateOptions.pauses}.
 *
 * @category The gate
 */
export interface PauseOptions {
  /** How long a paused run's token stays valid, in milliseconds (default {@link DEFAULT_PAUSE_TTL_MS}: a day). */
  ttlMs?: number;
  /**
   * How long a resumption's claim on its token lasts past its last renewal, in milliseconds
   * (default {@link DEFAULT_RESUME_LEASE_MS}). A resumption renews it every third of it while it
   * runs, so a long resumption keeps its token; once its process stops, the token may be used
   * again this long after, and a side-effecting call it had started then comes back pending,
   * marked `unknown`.
   */
  leaseMs?: number;
  /**
   * The scope a run belongs to, from the context of the call that started it, and of the call
   * that resumes it: a token from another scope reads as unknown. Must not depend on anything a
   * model writes. Default: the session (`sessionData.sessionId`, then `sessionId`), else the user
   * (`userId`), as observation ids are scoped.
   */
  scope?: (context: ToolExecutionContext) => string;
}

/**
 * The default life of a paused run's token: a day.
 *
 * @category The gate
 */
export const DEFAULT_PAUSE_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * The default lease of a resumption on its token: 15 seconds, renewed while it runs.
 *
 * @category The gate
 */
export const DEFAULT_RESUME_LEASE_MS = 15 * 1000;

/** What a gate with an approval hook keeps for pausing: its journal and its settings. */
export interface Pausing {
  readonly journal: RunJournal;
  readonly ttlMs: number;
  readonly leaseMs: number;
  readonly scope: (context: ToolExecutionContext) => string;
}

/** What a scope that could not be told reads as: no resumption's scope is ever this. */
const NO_SCOPE = '\u0000no scope';

/** The scope of `context` by the gate's setting; one no context matches when the setting throws or answers something else than text. */
export function scopeIn(pausing: Pausing, context: ToolExecutionContext): string {
  try {
    const scope: unknown = pausing.scope(context ?? {});
    return typeof scope === 'string' ? scope : NO_SCOPE;
  } catch {
    return NO_SCOPE;
  }
}
