/**
 * The pool's threads: all started with its first run (a thread is cheap beside the runs it
 * hosts), one started again as soon as one ends, and one chosen for each new run (the least
 * loaded that is not in a long stretch of computing, never one about to be stopped); a run that
 * finds none ready waits for one. The QuickJS module is compiled once per process and sent to each
 * thread, so a new thread costs a thread's start, not a compile. Idle threads never hold the
 * process open.
 *
 * Two threads beyond the pool's own, each started when first needed: the isolation thread, where
 * the runs of a held-back scope go (`held-back.ts`), so what it does next can stop only its own
 * runs; and the overflow thread, where a new run goes when every thread of the pool is computing a
 * long stretch, so it is not queued behind them (the system's scheduler shares the cores among
 * the threads, so a short run answers while long ones compute).
 */
import type { HeldBackScopes } from './held-back.js';
import { compiledModule } from './quickjs-module.js';
import { SandboxThread } from './thread.js';

/** A thread computing one stretch for longer than this gets no new run while another can take it. */
const BUSY_MS = 20;

/** What a thread of the pool is for: one of its own, or one of the two beyond them. */
type Extra = 'isolation' | 'overflow';

/** The threads of one pool. */
export class PoolThreads {
  /** The threads started and not ended, the two beyond the pool's own included. */
  readonly alive: SandboxThread[] = [];
  /** The pool's own threads among them. */
  private readonly own = new Set<SandboxThread>();
  /** Threads of the pool's own being started. */
  private starting = 0;
  /** The threads beyond the pool's own: started, or starting. */
  private readonly extras = new Map<Extra, SandboxThread | Promise<SandboxThread | Error>>();
  /** Runs waiting for a thread to be ready. */
  private placing: ((thread: SandboxThread | Error | undefined) => void)[] = [];

  constructor(
    private readonly size: number,
    private readonly sliceMs: number,
    private readonly heldBack?: HeldBackScopes,
  ) {
    // Compiled in the background from now (once per process), so the first run finds it done.
    void compiledModule();
  }

  /**
   * A thread for a run of `scope`: the isolation thread for a held-back scope; else the least
   * loaded of those ready for it, or the overflow thread when every one computes a long stretch of
   * other scopes'; with none, the run waits for the first to be (a thread starting, or one ending
   * its doomed run).
   */
  thread(signal: AbortSignal | undefined, scope = ''): Promise<SandboxThread | Error | undefined> | SandboxThread | Error {
    // All the pool's threads start with its first run: a thread is cheap beside the runs it hosts,
    // and a run after one whose thread was stopped then finds another ready.
    while (this.own.size + this.starting < this.size) this.spawn();
    if (this.heldBack?.isHeld(scope) === true) return this.extra('isolation', signal);
    const best = this.leastLoaded();
    if (best !== undefined && best.rank === READY) return best.thread;
    // Every thread computes a long stretch, none of them for this run's scope: not behind them, on
    // the overflow thread. (A scope's runs wait behind its own, as its slice allows.)
    if (best !== undefined && best.rank === BUSY && this.starting === 0 && !this.computesFor(scope)) return this.extra('overflow', signal);
    if (this.starting === 0 && this.own.size === 0) return new Error('no sandbox thread could be started');
    // Waiting for a thread, the run still hears its abort (`undefined`).
    return new Promise((resolve) => {
      const placed = (thread: SandboxThread | Error | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(thread);
      };
      const onAbort = (): void => {
        const at = this.placing.indexOf(placed);
        if (at >= 0) this.placing.splice(at, 1);
        placed(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.placing.push(placed);
    });
  }

  /** Runs waiting for a thread that was busy or doomed: it may be ready for them now. */
  retryWaiting(): void {
    if (this.placing.length > 0) this.placeWaiting();
  }

  /**
   * The thread a run waiting for one goes to now, if any: the least loaded one not in a long
   * stretch of computing; a busy one only while no other thread is starting. Never a doomed one: a
   * run placed there would be lost with the thread when the watchdog stops it, within a moment.
   */
  private readyThread(): SandboxThread | undefined {
    const best = this.leastLoaded();
    if (best === undefined || best.rank === DOOMED || (best.rank === BUSY && this.starting > 0)) return undefined;
    return best.thread;
  }

  /**
   * The thread beyond the pool's own that `kind` names: started when first needed, and again after
   * it ended. A run waiting for it to start still hears its abort (`undefined`).
   */
  private extra(kind: Extra, signal: AbortSignal | undefined): SandboxThread | Promise<SandboxThread | Error | undefined> {
    let thread = this.extras.get(kind);
    if (thread === undefined) {
      const started: Promise<SandboxThread | Error> = compiledModule()
        .then((module) => SandboxThread.start(module, this.sliceMs, (ended) => this.forget(ended)))
        .then(
          (made) => {
            this.alive.push(made);
            this.extras.set(kind, made);
            return made;
          },
          (error: unknown) => {
            this.extras.delete(kind);
            return error instanceof Error ? error : new Error(String(error));
          },
        );
      this.extras.set(kind, started);
      thread = started;
    }
    if (!(thread instanceof Promise)) return thread;
    if (signal === undefined) return thread;
    const starting = thread;
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      void starting.then((made) => {
        signal.removeEventListener('abort', onAbort);
        resolve(made);
      });
    });
  }

  /** The pool's own thread with the fewest runs among those of the lowest rank (ready, busy, doomed). */
  private leastLoaded(): { thread: SandboxThread; load: number; rank: ThreadRank } | undefined {
    let best: { thread: SandboxThread; load: number; rank: ThreadRank } | undefined;
    const now = Date.now();
    for (const thread of this.own) {
      let rank = rankOf(thread, now);
      // A thread where a held-back scope's run still computes takes no new run while another can.
      if (rank === READY && this.hostsHeldBack(thread, now)) rank = BUSY;
      const load = thread.load;
      if (best === undefined || rank < best.rank || (rank === best.rank && load < best.load)) best = { thread, load, rank };
    }
    return best;
  }

  /** Whether a run of `scope` computes on one of the pool's own threads now. */
  private computesFor(scope: string): boolean {
    for (const thread of this.own) {
      const episode = thread.episode();
      if (episode !== undefined && thread.runs.get(episode.runId)?.scope === scope) return true;
    }
    return false;
  }

  private hostsHeldBack(thread: SandboxThread, now: number): boolean {
    const held = this.heldBack;
    if (held === undefined || held.none(now)) return false;
    for (const run of thread.runs.values()) if (held.isHeld(run.scope, now)) return true;
    return false;
  }

  /** Start a thread; once ready it joins the pool, and the runs waiting for one are placed. */
  private spawn(): void {
    this.starting++;
    void compiledModule()
      .then((module) => SandboxThread.start(module, this.sliceMs, (ended) => this.forget(ended)))
      .then(
        (thread) => {
          this.starting--;
          this.alive.push(thread);
          this.own.add(thread);
          this.placeWaiting();
        },
        (error: unknown) => {
          this.starting--;
          // Runs wait on for another thread while one is starting; with none, they are told why.
          if (this.starting === 0 && this.own.size === 0) this.placeWaiting(error instanceof Error ? error : new Error(String(error)));
          else this.placeWaiting();
        },
      );
  }

  /** Place the runs waiting for a thread, once one is ready for them; or tell them none could start. */
  private placeWaiting(error?: Error): void {
    const answer = error ?? this.readyThread();
    if (answer === undefined) return;
    const waiting = this.placing;
    this.placing = [];
    for (const resolve of waiting) resolve(answer);
  }

  /**
   * A thread ended (stopped, or it failed): another is started at once, so the runs after a
   * stopped one find a thread ready rather than wait for one to start.
   */
  private forget(thread: SandboxThread): void {
    const at = this.alive.indexOf(thread);
    if (at >= 0) this.alive.splice(at, 1);
    for (const [kind, extra] of this.extras) {
      if (extra !== thread) continue;
      this.extras.delete(kind);
      // Stopped for a held-back scope's run: another is started now, so its next run finds one ready.
      if (kind === 'isolation' && this.heldBack?.none() === false) void this.extra(kind, undefined);
    }
    if (!this.own.delete(thread)) return;
    if (this.own.size + this.starting < this.size) this.spawn();
  }
}

/** How ready a thread is for a new run; lower is better. */
type ThreadRank = typeof READY | typeof BUSY | typeof DOOMED;
/** Not computing, or only for a moment. */
const READY = 0;
/** Computing one stretch for longer than {@link BUSY_MS}: a new run goes to another thread if one is ready. */
const BUSY = 1;
/**
 * Computing a run that must stop (the host aborted it, or it is past its deadline) and that its
 * own checks have not stopped yet: the watchdog stops the thread, and every run on it, if the run
 * does not stop within its grace (`KILL_GRACE_MS`).
 */
const DOOMED = 2;

function rankOf(thread: SandboxThread, now: number): ThreadRank {
  const episode = thread.episode();
  if (episode === undefined) return READY;
  if (now > episode.deadline || (thread.runs.get(episode.runId)?.abortedAt ?? 0) > 0) return DOOMED;
  return now - episode.since > BUSY_MS ? BUSY : READY;
}
