/**
 * The pool's watchdog: it stops every thread that holds a run its own checks cannot reach. A
 * thread's checks end a plain loop within about a millisecond, but QuickJS asks its interrupt
 * handler only every so many operations and one long built-in call counts as one: a run inside
 * such a call holds its thread past any limit, and only stopping the thread (and every run on it)
 * ends it. It watches only while runs are alive.
 */
import type { HeldBackScopes } from './held-back.js';
import type { PoolThreads } from './pool-threads.js';

/**
 * How long past a run's deadline (or its slice, or the host's abort) the pool waits for its
 * thread to stop it before stopping the thread. The thread's own check ends a plain loop within
 * about a millisecond; one long built-in call is where this is needed.
 */
const KILL_GRACE_MS = 100;
/** How often the watchdog looks at the threads while runs are alive, in milliseconds. */
const WATCH_MS = 25;
/**
 * A run that computes one stretch for longer than this on a thread that hosts other runs (each of
 * which waits for the thread as soon as its answer comes) holds its scope back (see
 * `held-back.ts`): its next runs compute on a thread of their own.
 */
export const HEAVY_MS = 100;

/** The watchdog of one pool's threads. */
export class ThreadWatchdog {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly threads: PoolThreads,
    private readonly sliceMs: number,
    private readonly heldBack: HeldBackScopes,
  ) {}

  /** Watch from now on (if not already): a run is alive. */
  start(): void {
    // Ref'd: while runs are alive the process stays open for them (threads never hold it).
    this.timer ??= setInterval(() => this.look(), WATCH_MS);
  }

  /** No run is alive: stop watching. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Stop every thread that holds a run its own checks cannot reach: one computing past its
   * deadline, past its slice while others wait for the thread, or after the host aborted it.
   */
  private look(): void {
    const now = Date.now();
    for (const thread of [...this.threads.alive]) {
      const episode = thread.episode();
      if (episode === undefined) continue;
      const computed = now - episode.since;
      const run = thread.runs.get(episode.runId);
      if (now > episode.deadline + KILL_GRACE_MS) thread.stop(episode.runId, 'timeout', computed);
      else if (computed > this.sliceMs + KILL_GRACE_MS && thread.othersWaiting(episode.runId)) thread.stop(episode.runId, 'slice', computed);
      else if (run !== undefined && run.abortedAt > 0 && now - run.abortedAt > KILL_GRACE_MS) thread.stop(episode.runId, 'aborted', computed);
      else if (run !== undefined && computed > HEAVY_MS && thread.load > 1 && !this.heldBack.isHeld(run.scope, now)) this.heldBack.hold(run.scope, 'heavy', now);
    }
    this.threads.retryWaiting();
  }
}
