/**
 * Step timeouts without a timer, or even a clock read, per step. One shared, unref'd interval
 * ticks while any step is in flight; a step records the tick by which it must have settled and
 * leaves the list (in constant time) when it does. Arming a timer per step cost more than all the
 * rest of the engine's work on a chain of quick tools. A timeout fires no earlier than asked, and
 * at most about one tick late.
 *
 * The entry is the caller's own per-call record (it implements {@link Watch}), so watching a step
 * allocates nothing: no entry object, no expiry closure.
 */

/** How often the watchdog looks, in milliseconds: about the most a timeout can fire late. */
const TICK_MS = 10;

/**
 * A deadline the watchdog keeps. The step calls {@link unwatch} when it finishes; `expire` is then
 * never called. The watchdog owns `expiresAt` and `index` while the entry is watched.
 */
export interface Watch {
  /** The tick at which the step times out. */
  expiresAt: number;
  /** Its place in the list; -1 while not watched (never watched, finished, or expired). */
  index: number;
  /** Called once, at the deadline, unless unwatched first. */
  expire(): void;
}

const watches: Watch[] = [];
let tick = 0;
let interval: NodeJS.Timeout | undefined;

/** Call `entry.expire()` after at least `ms` unless {@link unwatch} is called first. */
export function watch(entry: Watch, ms: number): void {
  // +1: the current tick is already partly over, so a full `ms` must still pass.
  entry.expiresAt = tick + Math.ceil(ms / TICK_MS) + 1;
  entry.index = watches.length;
  watches.push(entry);
  if (!interval) {
    interval = setInterval(onTick, TICK_MS);
    // Pending deadlines alone must not keep the host process alive.
    interval.unref?.();
  }
}

/** Take a finished step off the list. Returns false when it had already left (it expired). */
export function unwatch(entry: Watch): boolean {
  const at = entry.index;
  if (at < 0) return false;
  const last = watches.pop()!;
  if (last !== entry) {
    watches[at] = last;
    last.index = at;
  }
  entry.index = -1;
  return true;
}

function onTick(): void {
  tick++;
  const due: Watch[] = [];
  for (const entry of watches) if (entry.expiresAt <= tick) due.push(entry);
  for (const entry of due) unwatch(entry);
  if (!watches.length && interval) {
    clearInterval(interval);
    interval = undefined;
  }
  for (const entry of due) entry.expire();
}
