/**
 * A resumption's lease on its token, renewed while the resumption runs: the lease stays short, so
 * the token is free again soon after the process that held it stops, and never lapses while that
 * process lives and reaches its journal.
 */
import type { RunJournal } from './journal.js';

/** A lease held by a running resumption. */
export interface HeldLease {
  /** When the lease lapses unless renewed (milliseconds since the epoch). */
  readonly until: number;
  /** Stop renewing (the resumption ended). */
  stop(): void;
}

/**
 * Renew the claim on pause `pause` of run `runId`, made until `until`, every third of `leaseMs`
 * until stopped. A renewal the journal refuses (another resumption took the token over) stops the
 * renewals; one that fails is tried again at the next beat, and the lease lapses if none succeeds.
 */
export function holdLease(journal: RunJournal, runId: string, pause: number, leaseMs: number, until: number): HeldLease {
  let current = until;
  let renewing = false;
  let stopped = false;
  const beat = (): void => {
    if (renewing || stopped) return;
    renewing = true;
    const next = Math.floor(Date.now() + leaseMs);
    journal.renew(runId, pause, current, next).then(
      (renewed) => {
        renewing = false;
        if (renewed) current = next;
        else stop();
      },
      () => {
        renewing = false;
      },
    );
  };
  const timer = setInterval(beat, Math.max(1, Math.floor(leaseMs / 3)));
  // The heartbeat alone never keeps a process alive.
  timer.unref();
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
  };
  return {
    get until() {
      return current;
    },
    stop,
  };
}
