/**
 * What a `run_js` script of a run that may pause draws from `Math.random` and the clock, kept so
 * that a replay of the run draws the same, and bounded so the journal stays small.
 */
import type { SandboxValues } from './journal.js';

/**
 * The most values of each kind (`Math.random`, the clock) a run keeps for one `run_js` script.
 * Past it the script's values are drawn fresh and not kept, so the journal stays bounded however
 * long a script loops: a replay then draws fresh values there too, and a script whose later calls
 * depend on them ends with `replay_diverged` rather than taking one call's outcome for another's.
 *
 * @category The gate
 */
export const MAX_SANDBOX_VALUES = 1000;

/** A script's values in a run: those a replay hands back (`given`) and all it has drawn so far (`kept`, `given` first). */
export interface ScriptValues {
  readonly given: SandboxValues;
  readonly kept: SandboxValues;
}

/** Add what a script drew since it last said (`drawn`) to what is kept of it, up to {@link MAX_SANDBOX_VALUES} of each kind. */
export function keepDrawn(kept: SandboxValues, drawn: Partial<SandboxValues>): void {
  keepNumbers(kept.random, drawn.random);
  keepNumbers(kept.clock, drawn.clock);
}

function keepNumbers(into: number[], from: unknown): void {
  if (!Array.isArray(from)) return;
  for (let i = 0; i < from.length && into.length < MAX_SANDBOX_VALUES; i++) {
    const value: unknown = from[i];
    // Only numbers are kept: anything else would make a replay hand back something no draw gives.
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    into.push(value);
  }
}

/** Values read back from a journal, as numbers only, at most {@link MAX_SANDBOX_VALUES} of each kind. */
export function valuesOf(stored: unknown): SandboxValues {
  const values: SandboxValues = { random: [], clock: [] };
  if (typeof stored === 'object' && stored !== null) keepDrawn(values, stored as Partial<SandboxValues>);
  return values;
}

