/**
 * The sandbox pool: a few threads (about one per core), each hosting many runs, a bound on the
 * runs alive at once, a fair queue for the runs past it, and a watchdog for threads that cannot
 * stop a run themselves.
 *
 * A run waiting on its calls holds memory, not a thread, so the bound counts runs, not threads:
 * hundreds can wait at once. Past the bound a run waits in the queue, for at most its own time
 * limit; past the queue it is refused and never started. Each scope (a session, a user: see
 * `createScriptTool`'s `scope`) may hold at most its share of the places and of the queue, and
 * places that come free go to the waiting scopes in turn, so one busy tenant cannot starve the
 * others.
 *
 * The QuickJS module is compiled once per process and sent to each thread, so a new thread costs
 * a thread's start, not a compile. Idle threads never hold the process open.
 */
import { availableParallelism } from 'node:os';
import { compiledModule } from './quickjs-module.js';
import { SandboxThread } from './thread.js';

/**
 * The most threads one pool may run, whatever it is asked for.
 *
 * @category Code mode / discovery
 */
export const MAX_THREADS = 32;
/** The most threads the default pool runs, however many cores the machine has. */
const DEFAULT_THREADS_CEILING = 8;
/**
 * The default number of runs alive at once (computing or waiting on their calls).
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_RUNS = 512;
/**
 * The default number of runs that may wait for a place; more are refused.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_QUEUED_RUNS = 1024;
/**
 * How long a run may compute without awaiting while others wait for its thread.
 *
 * How long a run may compute without awaiting while other runs wait for its thread, by default:
 * past it, it is stopped (`script_timeout`, saying why). Alone on its thread it may compute up to
 * its own limit.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_SLICE_MS = 500;
/**
 * How long past a run's deadline (or its slice, or the host's abort) the pool waits for its
 * thread to stop it before stopping the thread. The thread's own check ends a plain loop within
 * about a millisecond; one long built-in call is where this is needed.
 */
const KILL_GRACE_MS = 100;
/** How often the watchdog looks at the threads while runs are alive, in milliseconds. */
const WATCH_MS = 25;
/** A thread computing one stretch for longer than this gets no new run while another can take it. */
const BUSY_MS = 20;

/**
 * What {@link createSandboxPool} takes.
 *
 * @category Code mode / discovery
 */
export interface SandboxPoolOptions {
  /**
   * The most sandbox threads. Runs compute on them; a run waiting on its calls does not hold one.
   * Default: the machine's available parallelism, at least 2 and at most 8; never more than
   * {@link MAX_THREADS}.
   */
  threads?: number;
  /**
   * The most runs alive at once, computing or waiting on their calls; each holds its own QuickJS
   * instance (memory up to its heap limit). Default {@link DEFAULT_MAX_RUNS}.
   */
  maxRuns?: number;
  /**
   * The most runs that wait for a place; a run past it is refused with `budget_exceeded`
   * (`details.limit: 'sandboxes'`) and never started. A run waits at most its own time limit (its
   * script then still has its whole limit). Default {@link DEFAULT_MAX_QUEUED_RUNS}.
   */
  maxQueuedRuns?: number;
  /**
   * The most runs of one scope alive at once; the scope's further runs queue, and at most as
   * many of them may wait. Default: half of `maxRuns`.
   */
  maxRunsPerScope?: number;
  /** See {@link DEFAULT_SLICE_MS}. */
  sliceMs?: number;
}

/**
 * How busy a pool is.
 *
 * @category Code mode / discovery
 */
export interface SandboxPoolStats {
  /** Sandbox threads alive. */
  threads: number;
  /** Runs alive (computing or waiting on their calls). */
  runs: number;
  /** Runs waiting for a place. */
  queued: number;
}

/**
 * A pool of sandbox threads, shared by the `run_js` tools given it (the `pool` option).
 *
 * Tools given none share one default pool per process.
 *
 * @category Code mode / discovery
 */
export interface SandboxPool {
  /** The most sandbox threads. */
  readonly threads: number;
  /** The most runs alive at once. */
  readonly maxRuns: number;
  /** The most runs waiting for a place. */
  readonly maxQueuedRuns: number;
  /** The most runs of one scope alive at once (and waiting). */
  readonly maxRunsPerScope: number;
  /** See {@link SandboxPoolOptions.sliceMs}. */
  readonly sliceMs: number;
  /** How busy the pool is now. */
  stats(): SandboxPoolStats;
}

/**
 * Make a sandbox pool, for a host that wants its own bounds (or its own pool per tenant).
 *
 * @example
 * ```ts
 * const pool = createSandboxPool({ maxRuns: 200, maxRunsPerScope: 20 });
 * registry.set(createScriptTool(gate, { pool }));
 * ```
 *
 * @category Code mode / discovery
 */
export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  return new WorkerPool(options);
}

let defaultPool: WorkerPool | undefined;

/** The pool the tools given none share: made on first use. */
export function defaultSandboxPool(): SandboxPool {
  defaultPool ??= new WorkerPool({});
  return defaultPool;
}

/** The pool behind a {@link SandboxPool}; throws for an object that is not one. */
export function workerPoolOf(pool: SandboxPool): WorkerPool {
  if (pool instanceof WorkerPool) return pool;
  throw new TypeError('the pool option must be a pool made by createSandboxPool');
}

/** What {@link WorkerPool.admit} gives: a place on a thread (give it back with `release`), or why there is none. */
export type Place =
  | { kind: 'thread'; thread: SandboxThread; release: () => void }
  | { kind: 'queue_full' }
  | { kind: 'wait_timeout' }
  | { kind: 'aborted' }
  | { kind: 'unavailable'; message: string };

/** A run waiting for a place. */
interface Waiter {
  /** Give it the place that came free. */
  admit(): void;
}

/** One scope's runs: how many are alive, and those waiting, in order. */
interface Scope {
  live: number;
  waiting: Waiter[];
}

/** The pool's implementation; see {@link SandboxPool}. */
export class WorkerPool implements SandboxPool {
  readonly threads: number;
  readonly maxRuns: number;
  readonly maxQueuedRuns: number;
  readonly maxRunsPerScope: number;
  readonly sliceMs: number;
  private readonly maxQueuedPerScope: number;
  private readonly alive: SandboxThread[] = [];
  /** Threads being started. */
  private starting = 0;
  /** Runs waiting for a thread to be ready. */
  private placing: ((thread: SandboxThread | Error | undefined) => void)[] = [];
  private readonly scopes = new Map<string, Scope>();
  /** Scopes with runs waiting, in the order they are served. */
  private turn: string[] = [];
  private runs = 0;
  private queued = 0;
  private watchdog: ReturnType<typeof setInterval> | undefined;

  constructor(options: SandboxPoolOptions) {
    const machine = Math.min(DEFAULT_THREADS_CEILING, Math.max(2, availableParallelism()));
    this.threads = clamp(options.threads, 1, MAX_THREADS, machine);
    this.maxRuns = clamp(options.maxRuns, 1, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_RUNS);
    this.maxQueuedRuns = clamp(options.maxQueuedRuns, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_QUEUED_RUNS);
    this.maxRunsPerScope = clamp(options.maxRunsPerScope, 1, this.maxRuns, Math.ceil(this.maxRuns / 2));
    this.maxQueuedPerScope = Math.ceil((this.maxQueuedRuns * this.maxRunsPerScope) / this.maxRuns);
    this.sliceMs = clamp(options.sliceMs, 1, 2 ** 31 - 1, DEFAULT_SLICE_MS);
    // Compiled in the background from now (once per process), so the first run finds it done.
    void compiledModule();
  }

  stats(): SandboxPoolStats {
    return { threads: this.alive.length, runs: this.runs, queued: this.queued };
  }

  /**
   * A place for one run of `scope` on a thread: at once while the pool and the scope are under
   * their bounds, else the first to come free within `waitMs`. Refused at once when the queue
   * (or the scope's share of it) is full.
   */
  admit(scopeKey: string, waitMs: number, signal?: AbortSignal): Place | Promise<Place> {
    if (signal?.aborted) return { kind: 'aborted' };
    const scope = this.scopeOf(scopeKey);
    if (this.runs < this.maxRuns && scope.live < this.maxRunsPerScope) {
      this.count(scope);
      return this.place(scopeKey, scope, signal);
    }
    if (this.queued >= this.maxQueuedRuns || scope.waiting.length >= this.maxQueuedPerScope) {
      this.forgetIfIdle(scopeKey, scope);
      return { kind: 'queue_full' };
    }
    // Counted by `serve` when the place comes free.
    return this.wait(scopeKey, scope, waitMs, signal).then((refused) => refused ?? this.place(scopeKey, scope, signal));
  }

  /** Count a run in: its place is taken from now on. */
  private count(scope: Scope): void {
    this.runs++;
    scope.live++;
    // Ref'd: while runs are alive the process stays open for them (threads never hold it).
    this.watchdog ??= setInterval(() => this.look(), WATCH_MS);
  }

  /** Find a counted run a thread (at once when one is ready), and the way to give its place back. */
  private place(scopeKey: string, scope: Scope, signal: AbortSignal | undefined): Place | Promise<Place> {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.runs--;
      scope.live--;
      this.forgetIfIdle(scopeKey, scope);
      this.serve();
      if (this.runs === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
      }
    };
    const placed = (thread: SandboxThread | Error | undefined): Place => {
      if (thread === undefined || thread instanceof Error) {
        release();
        return thread === undefined ? { kind: 'aborted' } : { kind: 'unavailable', message: thread.message };
      }
      return { kind: 'thread', thread, release };
    };
    const thread = this.thread(signal);
    return thread instanceof Promise ? thread.then(placed) : placed(thread);
  }

  /** Queue the run; `undefined` once a place is counted for it, else why it was not. */
  private wait(scopeKey: string, scope: Scope, waitMs: number, signal: AbortSignal | undefined): Promise<Place | undefined> {
    return new Promise((resolve) => {
      const settle = (place: Place | undefined): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = scope.waiting.indexOf(waiter);
        if (at >= 0) {
          scope.waiting.splice(at, 1);
          this.queued--;
        }
        if (scope.waiting.length === 0) {
          const inTurn = this.turn.indexOf(scopeKey);
          if (inTurn >= 0) this.turn.splice(inTurn, 1);
        }
        // A run refused from the queue leaves its scope as it found it.
        if (place !== undefined) this.forgetIfIdle(scopeKey, scope);
        resolve(place);
      };
      const waiter: Waiter = { admit: () => settle(undefined) };
      const onAbort = (): void => settle({ kind: 'aborted' });
      const timer = setTimeout(() => settle({ kind: 'wait_timeout' }), Math.min(2 ** 31 - 1, Math.max(0, waitMs)));
      signal?.addEventListener('abort', onAbort, { once: true });
      scope.waiting.push(waiter);
      this.queued++;
      if (scope.waiting.length === 1) this.turn.push(scopeKey);
    });
  }

  /** Places came free: hand them to the waiting scopes in turn, each within its share. */
  private serve(): void {
    let passed = 0;
    while (this.runs < this.maxRuns && passed < this.turn.length) {
      const key = this.turn.shift()!;
      const scope = this.scopes.get(key)!;
      if (scope.live >= this.maxRunsPerScope) {
        // At its share: it waits for one of its own runs to end; the next scope is served.
        this.turn.push(key);
        passed++;
        continue;
      }
      passed = 0;
      const waiter = scope.waiting[0];
      // Back in line behind the others, if it has more waiting (the waiter leaves the list itself).
      if (scope.waiting.length > 1) this.turn.push(key);
      this.count(scope);
      waiter.admit();
    }
  }

  private scopeOf(key: string): Scope {
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { live: 0, waiting: [] };
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private forgetIfIdle(key: string, scope: Scope): void {
    if (scope.live === 0 && scope.waiting.length === 0) this.scopes.delete(key);
  }

  /**
   * A thread for a run: the least loaded of those ready for it; with none, the run waits for the
   * first to be (a thread starting, or one ending its doomed run).
   */
  private thread(signal: AbortSignal | undefined): Promise<SandboxThread | Error | undefined> | SandboxThread | Error {
    // All the pool's threads start with its first run: a thread is cheap beside the runs it hosts,
    // and a run after one whose thread was stopped then finds another ready.
    while (this.alive.length + this.starting < this.threads) this.spawn();
    const ready = this.readyThread();
    if (ready !== undefined) return ready;
    if (this.starting === 0 && this.alive.length === 0) return new Error('no sandbox thread could be started');
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

  /**
   * The thread a new run goes to now, if any: the least loaded one not in a long stretch of
   * computing; a busy one only while no other thread is starting. Never a doomed one: a run placed
   * there would be lost with the thread when the watchdog stops it, within a moment.
   */
  private readyThread(): SandboxThread | undefined {
    const best = this.leastLoaded();
    if (best === undefined || best.rank === DOOMED || (best.rank === BUSY && this.starting > 0)) return undefined;
    return best.thread;
  }

  /** The thread with the fewest runs among those of the lowest rank (ready, busy, doomed). */
  private leastLoaded(): { thread: SandboxThread; load: number; rank: ThreadRank } | undefined {
    let best: { thread: SandboxThread; load: number; rank: ThreadRank } | undefined;
    const now = Date.now();
    for (const thread of this.alive) {
      const rank = rankOf(thread, now);
      const load = thread.load;
      if (best === undefined || rank < best.rank || (rank === best.rank && load < best.load)) best = { thread, load, rank };
    }
    return best;
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
          this.placeWaiting();
        },
        (error: unknown) => {
          this.starting--;
          // Runs wait on for another thread while one is starting; with none, they are told why.
          if (this.starting === 0 && this.alive.length === 0) this.placeWaiting(error instanceof Error ? error : new Error(String(error)));
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
    if (this.alive.length + this.starting < this.threads) this.spawn();
  }

  /**
   * Stop every thread that holds a run its own checks cannot reach: one computing past its
   * deadline, past its slice while others wait for the thread, or after the host aborted it.
   */
  private look(): void {
    const now = Date.now();
    for (const thread of [...this.alive]) {
      const episode = thread.episode();
      if (episode === undefined) continue;
      const computed = now - episode.since;
      const run = thread.runs.get(episode.runId);
      if (now > episode.deadline + KILL_GRACE_MS) thread.stop(episode.runId, 'timeout', computed);
      else if (computed > this.sliceMs + KILL_GRACE_MS && thread.othersWaiting(episode.runId)) thread.stop(episode.runId, 'slice', computed);
      else if (run !== undefined && run.abortedAt > 0 && now - run.abortedAt > KILL_GRACE_MS) thread.stop(episode.runId, 'aborted', computed);
    }
    // Runs waiting for a thread that was busy or doomed: it may be ready for them now.
    if (this.placing.length > 0) this.placeWaiting();
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
 * does not stop within {@link KILL_GRACE_MS}.
 */
const DOOMED = 2;

function rankOf(thread: SandboxThread, now: number): ThreadRank {
  const episode = thread.episode();
  if (episode === undefined) return READY;
  if (now > episode.deadline || (thread.runs.get(episode.runId)?.abortedAt ?? 0) > 0) return DOOMED;
  return now - episode.since > BUSY_MS ? BUSY : READY;
}

function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}
