/**
 * The host's handle on one sandbox thread: the worker, the shared cells, the runs it hosts, and
 * the messages between them.
 *
 * The worker runs `worker` from next to this module: the `.js` file in the built package, the
 * `.ts` source when this module itself runs from source (tests, `tsx`). A worker is a plain Node
 * thread that no test runner transforms, and in Node 20 a worker ignores `--import` in its
 * `execArgv`, so a source worker starts from a few lines that register tsx (a devDependency) in
 * the worker and then import the source file.
 *
 * The worker's stdout and stderr are streams of their own that nobody reads (reading them would
 * hold the process open), not the host's: nothing a sandbox prints reaches the host's streams.
 * Nothing is written there anyway: the QuickJS module's own output is captured (see
 * `quickjs-module.ts`).
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { messageOf } from '../../gate/message-of.js';
import { DEFAULT_MAX_CALL_RESULT_BYTES, DEFAULT_SCRIPT_MEMORY_BYTES } from './limits.js';
import { reserveBytesFor } from './run-resources.js';
import type { WasmModule } from './quickjs-module.js';
import {
  EPISODE_DEADLINE,
  EPISODE_RUN_CELL,
  EPISODE_START,
  FLOAT_CELLS,
  FLOAT_OFFSET,
  INT_CELLS,
  PENDING_CELL,
  SHARED_BYTES,
  type CallsMessage,
  type DoneMessage,
  type FromThread,
  type SandboxWorkerData,
  type ToThread,
} from './protocol.js';

/**
 * How long a thread may take to get ready (start, load QuickJS, make its first instance). Not
 * part of any run's time: a run's limit counts from its script's start.
 */
export const STARTUP_LIMIT_MS = 30_000;

/** Why a thread ended with runs on it, as each run is told. */
export type ThreadLoss =
  | { kind: 'stopped'; culprit: number; reason: 'timeout' | 'slice' | 'aborted'; computedMs: number }
  | { kind: 'crashed'; message: string };

/** What the host side of a run hears from its thread. */
export interface ThreadRunListener {
  /** The run's script made calls. */
  calls(message: CallsMessage): void;
  /** The run ended. */
  done(message: DoneMessage): void;
  /** The thread ended before the run did. */
  lost(loss: ThreadLoss): void;
  /** When the host aborted the run (`Date.now()` time), 0 while it has not. */
  readonly abortedAt: number;
  /** Whose run it is (see `held-back.ts`). */
  readonly scope: string;
}

/** What a thread's current computing episode is, as its cells say. */
export interface Episode {
  /** The run computing. */
  runId: number;
  /** Since when (`Date.now()` time). */
  since: number;
  /** The run's deadline (`Date.now()` time). */
  deadline: number;
}

/** One sandbox thread, as the pool sees it. */
export class SandboxThread {
  /** The runs it hosts, by id. */
  readonly runs = new Map<number, ThreadRunListener>();
  private readonly ints: Int32Array;
  private readonly floats: Float64Array;
  private nextRunId = 1;
  private ended = false;
  /**
   * The run each posted message is for, oldest first. The thread reads its inbox in order, so the
   * last `pending` of them are the ones it has not read yet.
   */
  private posted: number[] = [];

  private constructor(
    readonly worker: Worker,
    private readonly inbox: MessagePort,
    shared: SharedArrayBuffer,
    private readonly onEnd: (thread: SandboxThread) => void,
  ) {
    this.ints = new Int32Array(shared, 0, INT_CELLS);
    this.floats = new Float64Array(shared, FLOAT_OFFSET, FLOAT_CELLS);
    worker.on('message', (message: FromThread) => this.receive(message));
    // A thread that fails or exits on its own is never used again; the listener also keeps an
    // 'error' event from becoming an uncaught exception.
    worker.on('error', (error) => this.end({ kind: 'crashed', message: messageOf(error) }));
    worker.on('exit', (code) => this.end({ kind: 'crashed', message: `the sandbox thread exited with code ${code}` }));
    worker.unref();
  }

  /**
   * Start a thread and wait until it is ready. Rejects when it fails, exits, or takes longer
   * than {@link STARTUP_LIMIT_MS}.
   */
  static async start(wasmModule: WasmModule | undefined, sliceMs: number, onEnd: (thread: SandboxThread) => void): Promise<SandboxThread> {
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(SHARED_BYTES);
    const firstHeapLimitBytes = DEFAULT_SCRIPT_MEMORY_BYTES + reserveBytesFor(DEFAULT_MAX_CALL_RESULT_BYTES);
    const data: SandboxWorkerData = { wasmModule, inbox: port2, shared, sliceMs, firstHeapLimitBytes };
    const worker = workerFromSource(data, [port2]);
    const ready = whenReady(worker);
    // A thread never holds the process open, starting or not: the pool does while runs are alive.
    // (After the listeners: adding a 'message' listener refs a worker again.)
    worker.unref();
    try {
      await ready;
    } catch (error) {
      void worker.terminate().catch(() => undefined);
      throw error;
    }
    return new SandboxThread(worker, port1, shared, onEnd);
  }

  /** Whether the thread can take runs. */
  get alive(): boolean {
    return !this.ended;
  }

  /** How many runs it hosts. */
  get load(): number {
    return this.runs.size;
  }

  /** Host a run: its id on this thread. */
  add(listener: ThreadRunListener): number {
    const runId = this.nextRunId++;
    this.runs.set(runId, listener);
    return runId;
  }

  /** The run is over on the host's side: later messages of it are dropped. */
  remove(runId: number): void {
    this.runs.delete(runId);
  }

  /** Send a message, counted first so a busy thread sees it waiting. */
  post(message: ToThread): void {
    if (this.ended) return;
    const read = this.posted.length - this.pending;
    if (read > 256) this.posted.splice(0, read);
    this.posted.push(message.runId);
    Atomics.add(this.ints, PENDING_CELL, 1);
    this.inbox.postMessage(message);
  }

  /** Messages posted that the thread has not read. */
  get pending(): number {
    return Atomics.load(this.ints, PENDING_CELL);
  }

  /**
   * Whether a run other than `runId` waits for the thread: a message for it is not read yet.
   * (Answers to the computing run's own calls are not a reason to stop it.)
   */
  othersWaiting(runId: number): boolean {
    const posted = this.posted;
    for (let at = Math.max(0, posted.length - this.pending); at < posted.length; at++) if (posted[at] !== runId) return true;
    return false;
  }

  /** What the thread is computing now, if anything. */
  episode(): Episode | undefined {
    const runId = Atomics.load(this.ints, EPISODE_RUN_CELL);
    if (runId === 0) return undefined;
    return { runId, since: this.floats[EPISODE_START], deadline: this.floats[EPISODE_DEADLINE] };
  }

  /**
   * Stop the thread at once, whatever it is doing: `culprit` is the run that would not stop, and
   * why; every other run on it is told it lost its thread.
   */
  stop(culprit: number, reason: 'timeout' | 'slice' | 'aborted', computedMs: number): void {
    // terminate() stops the thread even inside WebAssembly; its promise only reports the exit code.
    void this.worker.terminate().catch(() => undefined);
    this.end({ kind: 'stopped', culprit, reason, computedMs });
  }

  private receive(message: FromThread): void {
    if (message.type === 'ready') return;
    const run = this.runs.get(message.runId);
    if (!run) return;
    if (message.type === 'calls') run.calls(message);
    else run.done(message);
  }

  private end(loss: ThreadLoss): void {
    if (this.ended) return;
    this.ended = true;
    this.inbox.close();
    const runs = [...this.runs.values()];
    this.runs.clear();
    this.onEnd(this);
    for (const run of runs) run.lost(loss);
  }
}

/**
 * Resolves when the worker says it is ready; rejects when it fails, exits, or takes longer than
 * {@link STARTUP_LIMIT_MS}.
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
    const onMessage = (message: FromThread): void => {
      if (message.type === 'ready') settle();
    };
    const onExit = (code: number): void => settle(new Error(`the sandbox thread exited with code ${code} while starting`));
    const timer = setTimeout(() => settle(new Error(`the sandbox thread did not start within ${STARTUP_LIMIT_MS / 1000} s`)), STARTUP_LIMIT_MS).unref();
    worker.on('message', onMessage);
    worker.on('error', settle);
    worker.on('exit', onExit);
  });
}

function workerFromSource(workerData: SandboxWorkerData, transferList: MessagePort[]): Worker {
  const here = import.meta.url;
  // No inherited execArgv: the host's own flags (a loader, an inspector port) are not the worker's.
  const options = { execArgv: [] as string[], workerData, transferList, stdout: true, stderr: true };
  if (!here.endsWith('.ts')) return new Worker(new URL('./worker.js', here), options);
  // The ESM entry of tsx's API: its CommonJS twin, and its `--import` loader (which registers
  // only on the main thread), do not load the worker's source.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
