/**
 * Step timeouts without a timer, or even a clock read, per step. One shared interval
 * ticks while any deadline is armed; a step records the tick by which it must have settled and
 * disarms it when it does. Arming a timer per step cost more than all the rest of the engine's
 * work on a chain of quick tools. A timeout fires no earlier than asked, and at most about one
 * tick late.
 *
 * The entry is the caller's own per-call record (it implements {@link Watch}), so watching a step
 * allocates nothing. A record that is reused call after call (a sequence's, a for_each worker's)
 * stays on the list between calls and its owner {@link release}s it at the end, so each call only
 * sets a deadline and a flag; any other record leaves the list when its call settles.
 */

/** How often the watchdog looks, in milliseconds: about the most a timeout can fire late. */
const TICK_MS = 10;

/**
 * A deadline the watchdog keeps. The step calls {@link unwatch} when it finishes; `expire` is then
 * never called. The watchdog owns `expiresAt`, `index` and `armed`.
 */
export interface Watch {
  /** The tick at which the step times out. */
  expiresAt: number;
  /** Its place in the list; -1 while not listed. */
  index: number;
  /** Whether a deadline is set that has neither passed nor been taken off. */
  armed: boolean;
  /** Called once, at the deadline, unless unwatched first. */
  expire(): void;
}

const watches: Watch[] = [];
/** How many listed entries are armed: the interval runs only while some are. */
let armedCount = 0;
let tick = 0;
let interval: NodeJS.Timeout | undefined;

/**
 * The deadline, in ticks from now, of a timeout of `ms` milliseconds; 0 when `ms` sets none (absent,
 * not positive, or not finite). Computed once per step by callers that make the same call often.
 */
export function ticksFor(ms: number | undefined): number {
  if (ms === undefined || !(ms > 0) || !Number.isFinite(ms)) return 0;
  // +1: the current tick is already partly over, so a full `ms` must still pass.
  return Math.ceil(ms / TICK_MS) + 1;
}

/**
 * Call `entry.expire()` once `ticks` ticks have passed (see {@link ticksFor}) unless {@link unwatch}
 * is called first. Runs once per call, so it is kept small enough for V8 to inline: the interval
 * is only looked at when nothing else was armed, since it runs whenever something is.
 */
export function watch(entry: Watch, ticks: number): void {
  entry.expiresAt = tick + ticks;
  // Counted once even if re-armed in flight, so the count (and the interval) can never leak.
  if (entry.armed) return;
  entry.armed = true;
  armedCount++;
  // Most calls are listed already (a reused record) while the interval runs: two tests, no call.
  if (entry.index < 0 || !interval) enlist(entry);
}

/** Put `entry` on the list if it is not, and make sure the interval runs. */
function enlist(entry: Watch): void {
  if (entry.index < 0) {
    entry.index = watches.length;
    watches.push(entry);
  }
  if (!interval) startTicking();
}

function startTicking(): void {
  // Not unref'd: a step still pending keeps the process alive until its deadline, so a one-shot
  // program whose tool never settles ends with step_timeout rather than exiting with nothing.
  // The interval stops at the first tick with nothing armed.
  interval = setInterval(onTick, TICK_MS);
}

/**
 * Take a finished step's deadline off. Returns false when there was none to take off (it expired).
 *
 * @param entry - the step's entry
 * @param keepListed - the caller reuses the entry for its next call and will {@link release} it
 */
export function unwatch(entry: Watch, keepListed = false): boolean {
  if (!entry.armed) return false;
  entry.armed = false;
  armedCount--;
  if (!keepListed) unlist(entry);
  return true;
}

/** Take an entry off the list for good (disarming it if armed): its owner makes no more calls with it. */
export function release(entry: Watch): void {
  if (entry.armed) {
    entry.armed = false;
    armedCount--;
  }
  unlist(entry);
}

function unlist(entry: Watch): void {
  const at = entry.index;
  if (at < 0) return;
  const last = watches.pop()!;
  if (last !== entry) {
    watches[at] = last;
    last.index = at;
  }
  entry.index = -1;
}

function onTick(): void {
  tick++;
  const due: Watch[] = [];
  for (const entry of watches) if (entry.armed && entry.expiresAt <= tick) due.push(entry);
  for (const entry of due) release(entry);
  if (armedCount === 0 && interval) {
    clearInterval(interval);
    interval = undefined;
  }
  for (const entry of due) entry.expire();
}
