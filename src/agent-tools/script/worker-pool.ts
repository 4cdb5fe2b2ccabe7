/**
 * The sandbox pool: a bounded number of warm workers, and a bounded queue of runs waiting for one.
 *
 * A run takes a worker of its own ({@link WorkerPool.acquire}); at the end it hands it back
 * ({@link WorkerPool.release}) or, when it had to stop it or the worker may be unsound, ends it.
 * Past the bound a run waits in the queue, for at most its own time limit; past the queue it is
 * refused and never started. Without a bound, a burst of runs started a thread each, each
 * compiling QuickJS for itself, and ran slower together than one after another while the host's
 * memory grew with every thread.
 *
 * The QuickJS module is compiled once per process and sent to each worker, so a new worker costs
 * a thread's start, not a compile. Idle workers never hold the process open.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { messageOf } from '../../gate/step-gate.js';
import { compiledModule } from './quickjs-module.js';
import { INT_CELLS, SHARED_BYTES, SIGNAL_CELL, STARTED_AT_OFFSET, type FromWorker, type SandboxWorkerData } from './worker-protocol.js';

/** The most sandboxes one pool may keep alive, whatever it is asked for. */
export const MAX_SANDBOXES = 32;
/** The most sandboxes the default pool keeps alive, however many cores the machine has. */
const DEFAULT_SANDBOXES_CEILING = 8;
/** The default number of runs that may wait for a sandbox; more are refused. */
export const DEFAULT_MAX_QUEUED_RUNS = 64;
/**
 * How long a worker may take to get ready (start its thread, load QuickJS, make an instance), and a
 * run's script to start on it. Not part of any run's time: a run's limit counts from its script's start.
 */
export const STARTUP_LIMIT_MS = 30_000;

/** What {@link createSandboxPool} takes. */
export interface SandboxPoolOptions {
  /**
   * The most sandboxes (worker threads, each with its own QuickJS) alive at once: the most runs
   * that execute at the same time. Default: the machine's available parallelism, at least 2 and
   * at most 8; never more than {@link MAX_SANDBOXES}.
   */
  maxSandboxes?: number;
  /**
   * The most runs that wait for a busy sandbox; a run past it is refused with `budget_exceeded`
   * (`details.limit: 'sandboxes'`) and never started. A run waits at most its own time limit
   * (its script then still has its whole limit). Default {@link DEFAULT_MAX_QUEUED_RUNS}.
   */
  maxQueuedRuns?: number;
}

/** How busy a pool is. */
export interface SandboxPoolStats {
  /** Sandboxes alive: running a script, idle, or starting. */
  live: number;
  /** Sandboxes alive and idle. */
  idle: number;
  /** Runs waiting for a sandbox. */
  queued: number;
}

/**
 * A bounded pool of sandbox workers, shared by the `run_js` tools given it (the `pool` option).
 * Tools given none share one default pool per process.
 */
export interface SandboxPool {
  /** The most sandboxes alive at once. */
  readonly maxSandboxes: number;
  /** The most runs waiting for a sandbox. */
  readonly maxQueuedRuns: number;
  /** How busy the pool is now. */
  stats(): SandboxPoolStats;
}

/**
 * Make a sandbox pool, for a host that wants its own bounds (or its own pool per tenant).
 *
 * @example
 * ```ts
 * const pool = createSandboxPool({ maxSandboxes: 4, maxQueuedRuns: 16 });
 * registry.set('run_js', createScriptTool(gate, { pool }));
 * ```
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

/** A worker of the pool and what its runs share with it. */
export class SandboxWorker {
  /** The cells the worker and the host share (see `worker-protocol.ts`). */
  readonly cells: Int32Array;
  /** When the worker's last script started (`Date.now()` time). */
  readonly startedAt: Float64Array;
  /** The host's end of the answer channel. */
  readonly answers: MessagePort;
  /** The id the worker's next run gets. */
  nextRunId = 1;

  constructor(
    readonly worker: Worker,
    shared: SharedArrayBuffer,
    answers: MessagePort,
  ) {
    this.cells = new Int32Array(shared, 0, INT_CELLS);
    this.startedAt = new Float64Array(shared, STARTED_AT_OFFSET, 1);
    this.answers = answers;
  }

  /** Post answers to the worker and wake it if it is waiting for them. */
  answer(message: unknown): void {
    this.answers.postMessage(message);
    Atomics.add(this.cells, SIGNAL_CELL, 1);
    Atomics.notify(this.cells, SIGNAL_CELL);
  }
}

/** What {@link WorkerPool.acquire} gives: a worker, or why there is none. */
export type Lease =
  | { kind: 'worker'; worker: SandboxWorker }
  | { kind: 'queue_full' }
  | { kind: 'wait_timeout' }
  | { kind: 'aborted' }
  | { kind: 'unavailable'; message: string };

/** A run waiting for a worker. */
interface Waiter {
  settle(lease: Lease): void;
}

/** The pool's implementation; see {@link SandboxPool}. */
export class WorkerPool implements SandboxPool {
  readonly maxSandboxes: number;
  readonly maxQueuedRuns: number;
  /** Every worker alive (idle or running), so a worker that dies is forgotten exactly once. */
  private readonly live = new Set<SandboxWorker>();
  /** Workers being started, counted against the bound. */
  private starting = 0;
  private readonly idle: SandboxWorker[] = [];
  private readonly queue: Waiter[] = [];

  constructor(options: SandboxPoolOptions) {
    const machine = Math.min(DEFAULT_SANDBOXES_CEILING, Math.max(2, availableParallelism()));
    this.maxSandboxes = clamp(options.maxSandboxes, 1, MAX_SANDBOXES, machine);
    this.maxQueuedRuns = clamp(options.maxQueuedRuns, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_QUEUED_RUNS);
    // Compiled in the background from now (once per process), so the first run finds it done.
    void compiledModule();
  }

  stats(): SandboxPoolStats {
    return { live: this.size(), idle: this.idle.length, queued: this.queue.length };
  }

  /**
   * A worker for one run: an idle one, else the first to come free (or be started, while the pool
   * is under its bound) within `waitMs`. Refused at once when the pool is full and so is its queue.
   */
  acquire(waitMs: number, signal?: AbortSignal): Promise<Lease> {
    if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(this.lend(idle));
    const canStart = this.size() < this.maxSandboxes;
    // Runs that a starting worker will serve are not waiting for a busy one: they do not fill the queue.
    const waitingForBusy = Math.max(0, this.queue.length - this.starting);
    if (!canStart && waitingForBusy >= this.maxQueuedRuns) return Promise.resolve({ kind: 'queue_full' });
    const spareStarting = this.starting > this.queue.length;
    const lease = this.wait(waitMs, signal);
    if (canStart && !spareStarting) this.spawn();
    return lease;
  }

  /** Give back a worker whose run ended cleanly: the run waiting longest gets it, else it idles. */
  release(worker: SandboxWorker): void {
    if (!this.live.has(worker)) return;
    const waiter = this.queue.shift();
    if (waiter) return waiter.settle(this.lend(worker));
    // Idle workers never hold the process open.
    worker.worker.unref();
    this.idle.push(worker);
  }

  /** End a worker at once, whatever it is doing (a script that will not stop, an abort). */
  discard(worker: SandboxWorker): void {
    if (!this.forget(worker)) return;
    // A worker blocked waiting for answers is woken, so it never sits out the terminate.
    Atomics.add(worker.cells, SIGNAL_CELL, 1);
    Atomics.notify(worker.cells, SIGNAL_CELL);
    // terminate() stops the thread even inside WebAssembly; its promise only reports the exit code.
    void worker.worker.terminate().catch(() => undefined);
    this.refill(true);
  }

  /** Workers alive or starting: what the bound counts. */
  private size(): number {
    return this.live.size + this.starting;
  }

  private lend(worker: SandboxWorker): Lease {
    worker.worker.ref();
    return { kind: 'worker', worker };
  }

  /**
   * Wait in the queue for a worker: at most `waitMs` while every sandbox is busy. A worker's start
   * is not counted (its own bound is {@link STARTUP_LIMIT_MS}): when the wait runs out while a
   * worker is starting, the run waits on for it.
   */
  private wait(waitMs: number, signal: AbortSignal | undefined): Promise<Lease> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = {
        settle: (lease) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          resolve(lease);
        },
      };
      const onAbort = (): void => waiter.settle({ kind: 'aborted' });
      const onTimeout = (): void => {
        if (this.starting === 0) return waiter.settle({ kind: 'wait_timeout' });
        timer = setTimeout(() => waiter.settle({ kind: 'wait_timeout' }), STARTUP_LIMIT_MS);
      };
      timer = setTimeout(onTimeout, Math.min(2 ** 31 - 1, Math.max(0, waitMs)));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /**
   * A worker is gone: start another when runs wait for one or, with `spare`, when none is idle,
   * so the run after a stopped one finds a warm worker. (Not `spare` for a worker that died on
   * its own: one that cannot start would be restarted forever.)
   */
  private refill(spare: boolean): void {
    if (this.size() >= this.maxSandboxes) return;
    if (this.queue.length > 0 || (spare && this.idle.length === 0)) this.spawn();
  }

  /**
   * Start a worker for the pool: once ready it goes to the run waiting longest, or idles. When it
   * cannot start, the run waiting longest is told why rather than left to wait out its limit.
   */
  private spawn(): void {
    void this.startWorker().then((started) => {
      if (started instanceof SandboxWorker) this.release(started);
      else this.queue[0]?.settle(started);
    });
  }

  /** Start a worker and wait until it is ready to run a script (or has failed to start). */
  private async startWorker(): Promise<SandboxWorker | { kind: 'unavailable'; message: string }> {
    this.starting++;
    let started: SandboxWorker | undefined;
    try {
      const wasmModule = await compiledModule();
      const { port1, port2 } = new MessageChannel();
      const shared = new SharedArrayBuffer(SHARED_BYTES);
      const data: SandboxWorkerData = { wasmModule, answers: port2, shared };
      const worker = new SandboxWorker(workerFromSource(data, [port2]), shared, port1);
      started = worker;
      await whenReady(worker.worker);
      // A worker that fails or exits on its own is never handed out again. The listener also
      // keeps an 'error' event from becoming an uncaught exception when no run is listening.
      worker.worker.on('error', () => this.forgetAndRefill(worker));
      worker.worker.on('exit', () => this.forgetAndRefill(worker));
      this.live.add(worker);
      return worker;
    } catch (error) {
      void started?.worker.terminate().catch(() => undefined);
      return { kind: 'unavailable', message: messageOf(error) };
    } finally {
      this.starting--;
    }
  }

  private forgetAndRefill(worker: SandboxWorker): void {
    if (this.forget(worker)) this.refill(false);
  }

  /** Drop a worker from the pool; false when it was already gone. */
  private forget(worker: SandboxWorker): boolean {
    if (!this.live.delete(worker)) return false;
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    return true;
  }
}

/**
 * Resolves when the worker says it is ready (its QuickJS instance made); rejects when it fails,
 * exits, or takes longer than {@link STARTUP_LIMIT_MS}.
 */
function whenReady(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', settle);
      worker.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    const onMessage = (message: FromWorker): void => {
      if (message.type === 'ready') settle();
    };
    const onExit = (code: number): void => settle(new Error(`the sandbox worker exited with code ${code} while starting`));
    const timer = setTimeout(() => settle(new Error(`the sandbox worker did not start within ${STARTUP_LIMIT_MS / 1000} s`)), STARTUP_LIMIT_MS);
    worker.on('message', onMessage);
    worker.on('error', settle);
    worker.on('exit', onExit);
  });
}

function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/**
 * The worker runs `sandbox-worker` from next to this module: the `.js` file in the built
 * package, the `.ts` source when this module itself runs from source (tests, `tsx`). A worker is a
 * plain Node thread that no test runner transforms, and in Node 20 a worker ignores `--import`
 * in its `execArgv`, so a source worker starts from a few lines that register tsx (a
 * devDependency) in the worker and then import the source file.
 *
 * The worker's stdout and stderr are streams of their own that nobody reads (reading them would
 * hold the process open), not the host's: nothing a sandbox prints reaches the host's streams.
 * Nothing is written there anyway: the QuickJS module's own output is captured (see
 * `quickjs-module.ts`).
 */
function workerFromSource(workerData: SandboxWorkerData, transferList: MessagePort[]): Worker {
  const here = import.meta.url;
  // No inherited execArgv: the host's own flags (a loader, an inspector port) are not the worker's.
  const options = { execArgv: [] as string[], workerData, transferList, stdout: true, stderr: true };
  if (!here.endsWith('.ts')) return new Worker(new URL('./sandbox-worker.js', here), options);
  // The ESM entry of tsx's API: its CommonJS twin, and its `--import` loader (which registers
  // only on the main thread), do not load the worker's source.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./sandbox-worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
