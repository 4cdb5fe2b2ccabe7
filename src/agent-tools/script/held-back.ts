/**
 * The scopes (sessions, users) the pool holds back for a while: one whose run had to be stopped
 * with its thread (it would not stop on its own, and the runs beside it went with it), and one
 * whose run computed a long stretch while other runs waited for its thread. A held-back scope's
 * new runs go to a thread of their own (`pool-threads.ts`) and get fewer places, so what it does
 * next hurts only its own runs; the other scopes' runs never share a thread with it again until
 * the hold lapses. Each stop doubles the next hold; a long stretch holds for the base time.
 */

/** Why a scope is held back. */
export type HoldReason = 'stopped' | 'heavy';

/** How long a first hold lasts, in milliseconds; each stop doubles it, up to {@link MAX_HOLD_MS}. */
export const HOLD_MS = 15_000;
/** The longest hold, in milliseconds. */
const MAX_HOLD_MS = 10 * 60_000;
/** The most scopes remembered; past it, the oldest hold is forgotten (a bound on what strangers can make the pool keep). */
const MAX_HELD = 10_000;
/** The most runs a scope held back for a stop has alive at once. */
export const HELD_BACK_RUNS = 2;

interface Hold {
  until: number;
  /** How many times its runs had to be stopped with their thread. */
  stops: number;
}

/** The holds of one pool. */
export class HeldBackScopes {
  private readonly holds = new Map<string, Hold>();
  /** When the latest hold lapses. */
  private latest = 0;

  /**
   * Hold `scope` back from now: see the module comment. Not the empty scope, which runs that name
   * no session or user share: with no tenant to tell apart, holding them back would only put every
   * run on one thread.
   */
  hold(scope: string, reason: HoldReason, now = Date.now()): void {
    if (scope === '') return;
    const held = this.holds.get(scope);
    const stops = (held?.stops ?? 0) + (reason === 'stopped' ? 1 : 0);
    const ms = reason === 'stopped' ? Math.min(MAX_HOLD_MS, HOLD_MS * 2 ** (stops - 1)) : HOLD_MS;
    const until = Math.max(held?.until ?? 0, now + ms);
    // Moved to the end: the map's order is the order in which holds were last renewed.
    this.holds.delete(scope);
    this.holds.set(scope, { until, stops });
    this.latest = Math.max(this.latest, until);
    if (this.holds.size > MAX_HELD) this.holds.delete(this.holds.keys().next().value as string);
  }

  /** No scope is held back now (a quick look: the latest hold has lapsed). */
  none(now = Date.now()): boolean {
    return this.latest <= now;
  }

  /** Whether `scope` is held back now for a run stopped with its thread: it gets fewer places too. */
  isStopHeld(scope: string, now = Date.now()): boolean {
    const held = this.holds.get(scope);
    return held !== undefined && held.stops > 0 && held.until > now;
  }

  /** Whether `scope`'s runs are held back now. */
  isHeld(scope: string, now = Date.now()): boolean {
    const held = this.holds.get(scope);
    if (held === undefined) return false;
    // A lapsed hold is kept while it has stops to remember (the next stop still doubles), but holds nothing.
    return held.until > now;
  }
}
