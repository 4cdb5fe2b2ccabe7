/**
 * The in-memory journal: the default of every gate, so pausing needs no set-up in one process.
 * Bounded by the number of runs it keeps; a run past its expiry is dropped when next looked at.
 */
import type { PausedRun, RunCallRecord, RunJournal } from './journal.js';

/**
 * Options of {@link createMemoryRunJournal}.
 *
 * @category The gate
 */
export interface MemoryRunJournalOptions {
  /** The most runs kept at once (default {@link DEFAULT_JOURNAL_MAX_RUNS}); past it the oldest is evicted and its token reads as unknown. */
  maxRuns?: number;
}

/**
 * The default number of runs an in-memory journal keeps.
 *
 * @category The gate
 */
export const DEFAULT_JOURNAL_MAX_RUNS = 1000;

/** One run's slot: the paused run (once saved), its records by position, and the claim on it. */
interface Slot {
  run: PausedRun | undefined;
  records: Map<string, RunCallRecord>;
  claimedUntil: number;
}

/**
 * Create an in-memory {@link RunJournal}, the default journal of a gate with approvals.
 *
 * It serves one process: to resume a run in another
 * process, give every gate a journal over a shared store. Runs are kept until they end, expire
 * (their `expiresAt` has passed when they are next loaded or claimed) or are evicted (the oldest
 * first, once `maxRuns` are kept).
 *
 * @throws RangeError when `maxRuns` is not a positive number (a programming error, not a result).
 *
 * @example
 * ```ts
 * const gate = createStepGate({ resolve, approvals, journal: createMemoryRunJournal({ maxRuns: 100 }) });
 * ```
 *
 * @category The gate
 */
export function createMemoryRunJournal(options: MemoryRunJournalOptions = {}): RunJournal {
  const maxRuns = options.maxRuns ?? DEFAULT_JOURNAL_MAX_RUNS;
  if (!Number.isFinite(maxRuns) || maxRuns < 1) throw new RangeError(`maxRuns must be a positive number, got ${maxRuns}`);
  const bound = Math.floor(maxRuns);
  // Insertion order is age: the first key is the oldest run.
  const slots = new Map<string, Slot>();

  const slotOf = (runId: string): Slot => {
    let slot = slots.get(runId);
    if (slot === undefined) {
      slot = { run: undefined, records: new Map(), claimedUntil: 0 };
      slots.set(runId, slot);
      while (slots.size > bound) slots.delete(slots.keys().next().value as string);
    }
    return slot;
  };
  /** The slot of a stored, unexpired run; an expired one is dropped. */
  const live = (runId: string): Slot | undefined => {
    const slot = slots.get(runId);
    if (slot?.run === undefined) return undefined;
    if (slot.run.expiresAt <= Date.now()) {
      slots.delete(runId);
      return undefined;
    }
    return slot;
  };

  return {
    save(run) {
      const slot = slotOf(run.runId);
      slot.run = run;
      // A new pause is claimed afresh.
      slot.claimedUntil = 0;
      return Promise.resolve();
    },
    load(runId) {
      return Promise.resolve(live(runId)?.run);
    },
    record(runId, record) {
      slotOf(runId).records.set(record.position, record);
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
    remove(runId) {
      slots.delete(runId);
      return Promise.resolve();
    },
  };
}
