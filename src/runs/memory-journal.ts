/**
 * The in-memory journal: the default of every gate, so pausing needs no set-up in one process.
 * Bounded per scope and in all by the number of paused runs it keeps; past a bound a new pause is
 * refused (`pauses_full`), so no scope's runs are ever evicted to make room for another's. A run
 * past its expiry is dropped when next looked at, or when room is needed.
 */
import { RunJournalRefusal, type PausedRun, type RunCallRecord, type RunJournal } from './journal.js';

/**
 * Options of {@link createMemoryRunJournal}.
 *
 * @category The gate
 */
export interface MemoryRunJournalOptions {
  /** The most paused runs kept at once, over all scopes (default {@link DEFAULT_JOURNAL_MAX_RUNS}); past it a new pause answers `pauses_full`. */
  maxRuns?: number;
  /**
   * The most paused runs one scope (a session, a user) keeps at once (default
   * {@link DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE}, at most `maxRuns`); past it a new pause of that
   * scope answers `pauses_full`, and other scopes are untouched.
   */
  maxRunsPerScope?: number;
}

/**
 * The default number of paused runs an in-memory journal keeps over all scopes.
 *
 * @category The gate
 */
export const DEFAULT_JOURNAL_MAX_RUNS = 10_000;

/**
 * The default number of paused runs an in-memory journal keeps for one scope.
 *
 * @category The gate
 */
export const DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE = 100;

/** One run's slot: the paused run (once saved), its records by position, and the claim on it. */
interface Slot {
  run: PausedRun | undefined;
  records: Map<string, RunCallRecord>;
  claimedUntil: number;
}

/** `value` as a bound: a positive whole number, or a RangeError. */
function boundOf(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

/**
 * Create an in-memory {@link RunJournal}, the default journal of a gate with approvals.
 *
 * It serves one process: to resume a run in another
 * process, give every gate a journal over a shared store. Runs are kept until they end or expire
 * (their `expiresAt` has passed when they are next loaded or claimed, or when room is needed). A
 * new pause past `maxRunsPerScope` paused runs of its scope, or past `maxRuns` in all, is refused:
 * the door answers `pauses_full` with the effects the run had, and no other run is evicted.
 *
 * @throws RangeError when `maxRuns` or `maxRunsPerScope` is not a positive number (a programming
 * error, not a result).
 *
 * @example
 * ```ts
 * const gate = createStepGate({ resolve, approvals, journal: createMemoryRunJournal({ maxRuns: 1000, maxRunsPerScope: 20 }) });
 * ```
 *
 * @category The gate
 */
export function createMemoryRunJournal(options: MemoryRunJournalOptions = {}): RunJournal {
  const maxRuns = boundOf('maxRuns', options.maxRuns ?? DEFAULT_JOURNAL_MAX_RUNS);
  const maxRunsPerScope = Math.min(maxRuns, boundOf('maxRunsPerScope', options.maxRunsPerScope ?? DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE));
  const slots = new Map<string, Slot>();
  /** The ids of the paused runs of each scope. */
  const byScope = new Map<string, Set<string>>();
  let pausedCount = 0;
  /** Slots with records but no paused run (a pause being stored, a resumption's writes): every slot is one or the other. */
  const unsavedCount = (): number => slots.size - pausedCount;

  const drop = (runId: string): void => {
    const slot = slots.get(runId);
    if (slot === undefined) return;
    slots.delete(runId);
    if (slot.run === undefined) return;
    pausedCount--;
    const ids = byScope.get(slot.run.scope);
    ids?.delete(runId);
    if (ids?.size === 0) byScope.delete(slot.run.scope);
  };
  /** Drop the expired runs of `scope` (of every scope when `undefined`), so they take no room. */
  const dropExpired = (scope: string | undefined): void => {
    const now = Date.now();
    const ids = scope === undefined ? [...slots.keys()] : [...(byScope.get(scope) ?? [])];
    for (const id of ids) {
      const run = slots.get(id)?.run;
      if (run !== undefined && run.expiresAt <= now) drop(id);
    }
  };
  const full = (why: string, details: Record<string, unknown>): Promise<never> =>
    Promise.reject(new RunJournalRefusal('pauses_full', `The run journal refused the pause: ${why}. Answer or drop some of the waiting runs first.`, details));

  /** The slot of a stored, unexpired run; an expired one is dropped. */
  const live = (runId: string): Slot | undefined => {
    const slot = slots.get(runId);
    if (slot?.run === undefined) return undefined;
    if (slot.run.expiresAt <= Date.now()) {
      drop(runId);
      return undefined;
    }
    return slot;
  };

  return {
    save(run) {
      const slot = slots.get(run.runId);
      // A run that paused before (a resumption that pauses again) keeps its room.
      if (slot?.run === undefined) {
        const ofScope = (): number => byScope.get(run.scope)?.size ?? 0;
        if (ofScope() >= maxRunsPerScope) dropExpired(run.scope);
        if (ofScope() >= maxRunsPerScope) return full(`its scope already keeps ${maxRunsPerScope} paused runs`, { maxRunsPerScope });
        if (pausedCount >= maxRuns) dropExpired(undefined);
        if (pausedCount >= maxRuns) return full(`it already keeps ${maxRuns} paused runs in all`, { maxRuns });
      }
      const target = slot ?? { run: undefined, records: new Map(), claimedUntil: 0 };
      if (slot === undefined) slots.set(run.runId, target);
      if (target.run === undefined) {
        pausedCount++;
        let ids = byScope.get(run.scope);
        if (ids === undefined) byScope.set(run.scope, (ids = new Set()));
        ids.add(run.runId);
      }
      target.run = run;
      // A new pause is claimed afresh.
      target.claimedUntil = 0;
      return Promise.resolve();
    },
    load(runId) {
      return Promise.resolve(live(runId)?.run);
    },
    record(runId, record) {
      let slot = slots.get(runId);
      if (slot === undefined) {
        // Records without a paused run are a pause being stored or a resumption's writes: as many
        // at once as there are runs in flight, bounded like the paused runs in all.
        if (unsavedCount() >= maxRuns) return full(`it already holds the records of ${maxRuns} runs being stored`, { maxRuns });
        slot = { run: undefined, records: new Map(), claimedUntil: 0 };
        slots.set(runId, slot);
      }
      slot.records.set(record.position, record);
      return Promise.resolve();
    },
    records(runId) {
      const slot = slots.get(runId);
      return Promise.resolve(slot ? [...slot.records.values()] : []);
    },
    claim(runId, pause, until) {
      const slot = live(runId);
      if (slot === undefined || slot.run!.pause !== pause || slot.claimedUntil > Date.now()) return Promise.resolve(false);
      slot.claimedUntil = until;
      return Promise.resolve(true);
    },
    renew(runId, pause, from, until) {
      const slot = live(runId);
      if (slot === undefined || slot.run!.pause !== pause || slot.claimedUntil !== from) return Promise.resolve(false);
      slot.claimedUntil = until;
      return Promise.resolve(true);
    },
    remove(runId) {
      drop(runId);
      return Promise.resolve();
    },
  };
}
