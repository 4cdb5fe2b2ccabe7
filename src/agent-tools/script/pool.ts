/**
 * The sandbox pool as hosts and tools see it: its options, their defaults and bounds, and the one
 * step a run takes to get a place on a thread. Three parts behind it do the work: the admission
 * that bounds the runs alive at once and queues the rest fairly by scope (`run-admission.ts`),
 * the threads, about one per core and each hosting many runs (`pool-threads.ts`), and the
 * watchdog for threads that cannot stop a run themselves (`thread-watchdog.ts`).
 */
import { availableParallelism, totalmem } from 'node:os';
import { HELD_BACK_RUNS, HeldBackScopes } from './held-back.js';
import { PoolThreads } from './pool-threads.js';
import { RunAdmission, type Admission, type Refusal } from './run-admission.js';
import type { SandboxThread } from './thread.js';
import { ThreadWatchdog } from './thread-watchdog.js';

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
 * The share of the machine's memory the runs of a pool may hold together, by default.
 *
 * What each run may hold (its heap limit, its reserve for answers, and its instance's own working
 * memory) is counted against it as the run is admitted.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MEMORY_SHARE = 0.75;
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
  /**
   * The most memory the runs alive may hold together, in bytes: each run counts what it may hold
   * (its `memoryLimitBytes`, its reserve for call answers, and a few megabytes its instance works
   * in), and a run past the budget waits for runs to end, as past `maxRuns`. Default
   * {@link DEFAULT_MEMORY_SHARE} of the machine's memory.
   */
  maxMemoryBytes?: number;
  /**
   * The most memory one scope's runs alive may hold together, in bytes. Default: half of
   * `maxMemoryBytes`. Runs that name no session or user are one tenant: this share does not bind them.
   */
  maxMemoryBytesPerScope?: number;
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
  /** The memory the runs alive may hold together, in bytes. */
  memoryBytes: number;
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
  /** See {@link SandboxPoolOptions.maxMemoryBytes}. */
  readonly maxMemoryBytes: number;
  /** See {@link SandboxPoolOptions.maxMemoryBytesPerScope}. */
  readonly maxMemoryBytesPerScope: number;
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
export type Place = { kind: 'thread'; thread: SandboxThread; release: () => void } | Refusal | { kind: 'unavailable'; message: string };

/** The pool's implementation; see {@link SandboxPool}. */
export class WorkerPool implements SandboxPool {
  readonly threads: number;
  readonly maxRuns: number;
  readonly maxQueuedRuns: number;
  readonly maxRunsPerScope: number;
  readonly sliceMs: number;
  readonly maxMemoryBytes: number;
  readonly maxMemoryBytesPerScope: number;
  private readonly workers: PoolThreads;
  private readonly admission: RunAdmission;
  /** The scopes whose runs go to a thread of their own for a while (see `held-back.ts`). */
  readonly heldBack = new HeldBackScopes();

  constructor(options: SandboxPoolOptions) {
    const machine = Math.min(DEFAULT_THREADS_CEILING, Math.max(2, availableParallelism()));
    this.threads = clamp(options.threads, 1, MAX_THREADS, machine);
    this.maxRuns = clamp(options.maxRuns, 1, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_RUNS);
    this.maxQueuedRuns = clamp(options.maxQueuedRuns, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_QUEUED_RUNS);
    this.maxRunsPerScope = clamp(options.maxRunsPerScope, 1, this.maxRuns, Math.ceil(this.maxRuns / 2));
    this.sliceMs = clamp(options.sliceMs, 1, 2 ** 31 - 1, DEFAULT_SLICE_MS);
    this.maxMemoryBytes = clamp(options.maxMemoryBytes, 1, Number.MAX_SAFE_INTEGER, Math.floor(totalmem() * DEFAULT_MEMORY_SHARE));
    this.maxMemoryBytesPerScope = clamp(options.maxMemoryBytesPerScope, 1, this.maxMemoryBytes, Math.ceil(this.maxMemoryBytes / 2));
    this.workers = new PoolThreads(this.threads, this.sliceMs, this.heldBack);
    const bounds = {
      maxRuns: this.maxRuns,
      maxRunsPerScope: this.maxRunsPerScope,
      maxQueuedRuns: this.maxQueuedRuns,
      maxQueuedPerScope: Math.ceil((this.maxQueuedRuns * this.maxRunsPerScope) / this.maxRuns),
      maxBytes: this.maxMemoryBytes,
      maxBytesPerScope: this.maxMemoryBytesPerScope,
    };
    // A scope held back for a stop gets fewer places, never more than it would have.
    const placesOf = (scope: string): number => (this.heldBack.isStopHeld(scope) ? Math.min(HELD_BACK_RUNS, this.maxRunsPerScope) : this.maxRunsPerScope);
    this.admission = new RunAdmission(bounds, new ThreadWatchdog(this.workers, this.sliceMs, this.heldBack), placesOf);
  }

  stats(): SandboxPoolStats {
    const { runs, queued, bytes } = this.admission.counts();
    return { threads: this.workers.alive.length, runs, queued, memoryBytes: bytes };
  }

  /**
   * A place for one run of `scope` that may hold `bytes` of memory, on a thread: at once while the
   * pool and the scope are under their bounds, else the first to come free within `waitMs`.
   * Refused at once when the queue (or the scope's share of it) is full, or when the run may hold
   * more than the pool (or the scope) may ever give.
   */
  admit(scopeKey: string, waitMs: number, signal?: AbortSignal, bytes = 0): Place | Promise<Place> {
    const entered = this.admission.enter(scopeKey, waitMs, signal, bytes);
    return entered instanceof Promise ? entered.then((admission) => this.place(admission, scopeKey, signal)) : this.place(entered, scopeKey, signal);
  }

  /** Find a counted run a thread (at once when one is ready); a run refused its place is told why. */
  private place(admission: Admission, scopeKey: string, signal: AbortSignal | undefined): Place | Promise<Place> {
    if (admission.kind !== 'counted') return admission;
    const { release } = admission;
    const placed = (thread: SandboxThread | Error | undefined): Place => {
      if (thread === undefined || thread instanceof Error) {
        release();
        return thread === undefined ? { kind: 'aborted' } : { kind: 'unavailable', message: thread.message };
      }
      return { kind: 'thread', thread, release };
    };
    const thread = this.workers.thread(signal, scopeKey);
    return thread instanceof Promise ? thread.then(placed) : placed(thread);
  }
}

function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}
