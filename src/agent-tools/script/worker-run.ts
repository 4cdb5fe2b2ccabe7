/**
 * One script run as the host sees it: a worker of its own, each of its calls handed to the
 * tool's handler, and the deadline and the abort enforced from here by stopping the worker.
 *
 * The worker ends a plain loop or a wait past the limit itself (and is reused); the host's timer
 * is the bound that always holds, whatever the script does, since a spinning worker cannot be
 * asked anything: it is terminated. The host's event loop never runs the script, so it stays free.
 */
import type { Worker } from 'node:worker_threads';
import { messageOf } from '../../gate/step-gate.js';
import { refusedCall, type ScriptCallResult } from './call-result.js';
import type { SandboxCall, SandboxOutcome } from './sandbox.js';
import { acquireWorker, discardWorker, releaseWorker } from './worker-pool.js';
import type { CallMessage, FromWorker, ToWorker } from './worker-protocol.js';

/**
 * How long past the deadline the host waits before it terminates the worker. The worker's own
 * check ends a plain loop within about a millisecond of the deadline and reports it, which keeps
 * the worker for the next run; the grace gives that report time to arrive. A script stuck in one
 * long built-in call is stopped this late at most.
 */
const KILL_GRACE_MS = 100;

/**
 * How long a worker may take to get ready (start the thread, compile QuickJS) before the run
 * gives up on it. Not part of the script's time: the limit counts from the script's start.
 */
const STARTUP_LIMIT_MS = 30_000;

/** The longest `setTimeout` Node accepts, and the largest limit the shared `Int32Array` cell holds. */
const MAX_MS = 2 ** 31 - 1;

/** The run's clock, as a call handler sees it. */
export interface ScriptClock {
  /** Stretch the run's limit to `msFromStart` after the script's start (never shortens it). */
  extendTo(msFromStart: number): void;
  /** Milliseconds left before the run's limit (at least 1). */
  remainingMs(): number;
}

/**
 * Runs one call on the host. Its answer goes to the script if the run is still going when it
 * settles; after the run ends it is dropped.
 */
export type ScriptCallHandler = (call: SandboxCall, clock: ScriptClock) => Promise<ScriptCallResult>;

/** What one run needs. */
export interface ScriptRunRequest {
  /** The script: the body of an async function. */
  code: string;
  /** The time limit from the script's start, in milliseconds (a handler may stretch it). */
  timeoutMs: number;
  /** The heap limit, in bytes. */
  memoryLimitBytes: number;
  /** The longest answer, in characters. */
  maxReturnChars: number;
  /** Ends the run (`aborted`) when it fires. */
  signal?: AbortSignal;
}

/**
 * How a run ended: as the sandbox reports it, or `aborted` (the signal fired), or `unavailable`
 * (no sandbox could be started).
 */
export type ScriptRunOutcome = SandboxOutcome | { kind: 'aborted' } | { kind: 'unavailable'; message: string };

/** A run's outcome, the time limit it ended with, and the calls it left in flight. */
export interface ScriptRunResult {
  /** How the run ended. */
  outcome: ScriptRunOutcome;
  /** The run's limit in milliseconds from the script's start, as it stood when the run ended. */
  timeLimitMs: number;
  /** The calls whose answers the script never received, by index and tool. */
  abandoned: { index: number; name: string }[];
}

/**
 * Run one script in a sandbox worker. Never throws; resolves when the worker reports the end, or
 * at once when the deadline passes or the signal fires (the worker is then terminated).
 */
export function runInWorker(request: ScriptRunRequest, onCall: ScriptCallHandler): Promise<ScriptRunResult> {
  return new Promise((resolve) => new WorkerRun(request, onCall, resolve).start());
}

/** The host side of one run. A class so the worker's listeners share its state. */
class WorkerRun {
  /** The time limit the worker reads; see `RunMessage.timeLimit`. */
  private readonly limit = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  private worker: Worker | undefined;
  /** When the script started (`Date.now()` time, from the worker); the deadline counts from it. */
  private startedAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  /** The calls whose answers were not sent yet, by id: the abandoned ones if the host ends the run. */
  private readonly unanswered = new Map<number, string>();
  private readonly clock: ScriptClock = {
    extendTo: (ms) => {
      if (ms <= this.limitMs()) return;
      Atomics.store(this.limit, 0, toCell(ms));
      this.armDeadline();
    },
    remainingMs: () => Math.max(1, (this.startedAt ?? Date.now()) + this.limitMs() - Date.now()),
  };

  constructor(
    private readonly request: ScriptRunRequest,
    private readonly onCall: ScriptCallHandler,
    private readonly resolve: (result: ScriptRunResult) => void,
  ) {}

  start(): void {
    Atomics.store(this.limit, 0, toCell(this.request.timeoutMs));
    const signal = this.request.signal;
    if (signal?.aborted) return this.end({ kind: 'aborted' }, [], 'keep');
    let worker: Worker;
    try {
      worker = acquireWorker();
    } catch (error) {
      return this.end({ kind: 'unavailable', message: messageOf(error) }, [], 'keep');
    }
    this.worker = worker;
    worker.on('message', this.onMessage);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.arm(STARTUP_LIMIT_MS, () =>
      this.stop({ kind: 'unavailable', message: `the sandbox worker did not start within ${STARTUP_LIMIT_MS / 1000} s` }),
    );
    this.send({
      type: 'run',
      code: this.request.code,
      limits: { memoryLimitBytes: this.request.memoryLimitBytes, maxReturnChars: this.request.maxReturnChars },
      timeLimit: this.limit.buffer as SharedArrayBuffer,
    });
  }

  private readonly onMessage = (message: FromWorker): void => {
    if (this.ended) return;
    switch (message.type) {
      case 'started':
        this.startedAt = message.at;
        this.armDeadline();
        break;
      case 'call':
        this.call(message);
        break;
      case 'done':
        // A worker whose QuickJS failed on the host side is not trusted with another run.
        this.end(message.outcome, message.abandoned, message.broken ? 'discard' : 'keep');
        break;
    }
  };

  private readonly onError = (error: Error): void => {
    if (this.ended) return;
    const message = messageOf(error);
    this.stop(this.startedAt === undefined ? { kind: 'unavailable', message } : { kind: 'crashed', message });
  };

  private readonly onExit = (code: number): void => {
    if (this.ended) return;
    const message = `the sandbox worker exited with code ${code}`;
    this.stop(this.startedAt === undefined ? { kind: 'unavailable', message } : { kind: 'crashed', message });
  };

  private readonly onAbort = (): void => this.stop({ kind: 'aborted' });

  /**
   * Hand one call to the handler and send its answer back. The worker numbers the calls in the
   * order the script made them, and its messages arrive in that order, so the id is the index.
   */
  private call(message: CallMessage): void {
    this.unanswered.set(message.id, message.name);
    void Promise.resolve()
      .then(() => this.onCall({ index: message.id, name: message.name, args: message.args }, this.clock))
      .catch((error: unknown) => refusedCall('step_threw', `The call failed on the host: ${messageOf(error)}`))
      .then((result) => {
        if (this.ended) return;
        this.unanswered.delete(message.id);
        this.send({ type: 'answer', id: message.id, result });
      });
  }

  /** (Re)arm the timer that terminates the worker once the deadline and the grace have passed. */
  private armDeadline(): void {
    if (this.startedAt === undefined || this.ended) return;
    const stopAt = this.startedAt + this.limitMs() + KILL_GRACE_MS;
    this.arm(stopAt - Date.now(), () => {
      // A limit longer than one timer can wait is waited for in pieces.
      if (Date.now() < stopAt) this.armDeadline();
      else this.stop({ kind: 'timeout' });
    });
  }

  private arm(ms: number, fire: () => void): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(fire, Math.min(MAX_MS, Math.max(0, ms)));
  }

  /** End the run from the host: the worker is terminated, whatever it is doing. */
  private stop(outcome: ScriptRunOutcome): void {
    const abandoned = [...this.unanswered].map(([index, name]) => ({ index, name }));
    this.end(outcome, abandoned, 'discard');
  }

  private end(outcome: ScriptRunOutcome, abandoned: { index: number; name: string }[], worker: 'keep' | 'discard'): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    if (this.worker) {
      this.worker.off('message', this.onMessage);
      this.worker.off('error', this.onError);
      this.worker.off('exit', this.onExit);
      if (worker === 'keep') releaseWorker(this.worker);
      else discardWorker(this.worker);
    }
    this.resolve({ outcome, timeLimitMs: this.limitMs(), abandoned });
  }

  private send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private limitMs(): number {
    return Atomics.load(this.limit, 0);
  }
}

/** A limit as the shared cell holds it: whole milliseconds, at least 1, at most {@link MAX_MS}. */
function toCell(ms: number): number {
  return Math.min(MAX_MS, Math.max(1, Math.ceil(ms)));
}
