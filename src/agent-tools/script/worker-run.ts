/**
 * One script run as the host sees it: a worker from the pool (after a bounded wait when all are
 * busy), each of its calls handed to the tool's handler, and the deadline and the abort enforced
 * from here by stopping the worker.
 *
 * The worker ends a plain loop or a wait past the limit itself (and is reused); the host's timer
 * is the bound that always holds, whatever the script does, since a spinning worker cannot be
 * asked anything: it is terminated. The host's event loop never runs the script, so it stays free.
 */
import { messageOf } from '../../gate/step-gate.js';
import { refusedCall, type ScriptCallResult } from './call-result.js';
import type { ScriptLimits } from './limits.js';
import type { SandboxAnswer, SandboxCall, SandboxOutcome } from './sandbox.js';
import { STARTUP_LIMIT_MS, workerPoolOf, type SandboxPool, type SandboxWorker, type WorkerPool } from './worker-pool.js';
import { LIMIT_CELL, STARTED_CELL, type FromWorker, type RunMessage } from './worker-protocol.js';

/**
 * How long past the deadline the host waits before it terminates the worker. The worker's own
 * check ends a plain loop within about a millisecond of the deadline and reports it, which keeps
 * the worker for the next run; the grace gives that report time to arrive. A script stuck in one
 * long built-in call is stopped this late at most.
 */
const KILL_GRACE_MS = 100;


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
  /** The run's bounds. */
  limits: ScriptLimits;
  /** The pool the run takes its worker from. */
  pool: SandboxPool;
  /** Ends the run (`aborted`) when it fires. */
  signal?: AbortSignal;
}

/**
 * How a run ended: as the sandbox reports it, or `aborted` (the signal fired), `unavailable` (no
 * sandbox could be started), or `no_sandbox` (the pool was full: `queue_full` when the queue was
 * too, `wait_timeout` when none came free within the run's limit); a run that had no sandbox
 * never started.
 */
export type ScriptRunOutcome =
  | SandboxOutcome
  | { kind: 'aborted' }
  | { kind: 'unavailable'; message: string }
  | { kind: 'no_sandbox'; reason: 'queue_full' | 'wait_timeout' };

/** A run's outcome, the time limit it ended with, and the calls it left in flight. */
export interface ScriptRunResult {
  /** How the run ended. */
  outcome: ScriptRunOutcome;
  /** The run's limit in milliseconds from the script's start, as it stood when the run ended. */
  timeLimitMs: number;
  /** How long the run waited for a sandbox, in milliseconds (not part of its time limit). */
  queuedMs: number;
  /** The calls whose answers the script never received, by index and tool. */
  abandoned: { index: number; name: string }[];
  /** What the QuickJS module printed, when the run crashed. */
  output?: string[];
}

/**
 * Run one script in a sandbox worker. Never throws; resolves when the worker reports the end, or
 * at once when the deadline passes or the signal fires (the worker is then terminated).
 */
export async function runInWorker(request: ScriptRunRequest, onCall: ScriptCallHandler): Promise<ScriptRunResult> {
  const queuedAt = Date.now();
  const { timeoutMs } = request.limits;
  let pool: WorkerPool;
  try {
    pool = workerPoolOf(request.pool);
  } catch (error) {
    return { outcome: { kind: 'unavailable', message: messageOf(error) }, timeLimitMs: timeoutMs, queuedMs: 0, abandoned: [] };
  }
  const lease = await pool.acquire(timeoutMs, request.signal);
  const queuedMs = Date.now() - queuedAt;
  if (lease.kind !== 'worker') {
    const outcome: ScriptRunOutcome =
      lease.kind === 'queue_full' || lease.kind === 'wait_timeout' ? { kind: 'no_sandbox', reason: lease.kind } : lease;
    return { outcome, timeLimitMs: timeoutMs, queuedMs, abandoned: [] };
  }
  const run = await new Promise<Omit<ScriptRunResult, 'queuedMs'>>((resolve) => new WorkerRun(request, onCall, pool, lease.worker, resolve).start());
  return { ...run, queuedMs };
}

/** The host side of one run on its worker. A class so the worker's listeners share its state. */
class WorkerRun {
  private readonly runId: number;
  /** When the run message was sent: the worker's script starts at or after it. */
  private sentAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  /** The calls whose answers were not sent yet, by index: the abandoned ones if the host ends the run. */
  private readonly unanswered = new Map<number, string>();
  /** Answers settled since the last post, sent together once the current tick's work is done. */
  private pending: SandboxAnswer[] = [];
  private readonly clock: ScriptClock = {
    extendTo: (ms) => {
      if (ms <= this.limitMs()) return;
      Atomics.store(this.sandbox.cells, LIMIT_CELL, toCell(ms));
    },
    remainingMs: () => Math.max(1, this.scriptStart() + this.limitMs() - Date.now()),
  };

  constructor(
    private readonly request: ScriptRunRequest,
    private readonly onCall: ScriptCallHandler,
    private readonly pool: WorkerPool,
    private readonly sandbox: SandboxWorker,
    private readonly resolve: (result: Omit<ScriptRunResult, 'queuedMs'>) => void,
  ) {
    this.runId = sandbox.nextRunId++;
  }

  start(): void {
    const { limits, signal } = this.request;
    Atomics.store(this.sandbox.cells, LIMIT_CELL, toCell(limits.timeoutMs));
    if (signal?.aborted) return this.end({ kind: 'aborted' }, 'keep');
    const worker = this.sandbox.worker;
    worker.on('message', this.onMessage);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    const message: RunMessage = {
      type: 'run',
      runId: this.runId,
      code: this.request.code,
      limits: {
        memoryLimitBytes: limits.memoryLimitBytes,
        maxReturnChars: limits.maxReturnChars,
        maxCalls: limits.maxCalls,
        maxCallArgsBytes: limits.maxCallArgsBytes,
        maxRunArgsBytes: limits.maxRunArgsBytes,
        maxCallResultBytes: limits.maxCallResultBytes,
      },
    };
    this.sentAt = Date.now();
    worker.postMessage(message);
    this.armDeadline();
  }

  private readonly onMessage = (message: FromWorker): void => {
    if (this.ended || message.type === 'ready' || message.runId !== this.runId) return;
    if (message.type === 'calls') {
      for (const call of message.calls) this.call(call);
    } else {
      // A worker whose QuickJS failed on the host side replaced its instance; it is still sound.
      this.end(message.outcome, 'keep', message.output);
    }
  };

  private readonly onError = (error: Error): void => {
    if (this.ended) return;
    const message = messageOf(error);
    this.stop(this.started() ? { kind: 'crashed', message } : { kind: 'unavailable', message });
  };

  private readonly onExit = (code: number): void => {
    if (this.ended) return;
    const message = `the sandbox worker exited with code ${code}`;
    this.stop(this.started() ? { kind: 'crashed', message } : { kind: 'unavailable', message });
  };

  private readonly onAbort = (): void => this.stop({ kind: 'aborted' });

  /** Hand one call to the handler and send its answer back. */
  private call(call: SandboxCall): void {
    this.unanswered.set(call.index, call.name);
    let answer: Promise<ScriptCallResult>;
    try {
      answer = this.onCall(call, this.clock);
    } catch (error) {
      answer = Promise.reject(error);
    }
    void answer
      .catch((error: unknown) => refusedCall('step_threw', `The call failed on the host: ${messageOf(error)}`))
      .then((result) => {
        if (this.ended) return;
        this.unanswered.delete(call.index);
        if (this.pending.length === 0) queueMicrotask(this.flush);
        this.pending.push({ index: call.index, result });
      });
  }

  private readonly flush = (): void => {
    if (this.ended || this.pending.length === 0) return;
    const answers = this.pending;
    this.pending = [];
    this.sandbox.answer({ runId: this.runId, answers });
  };

  /**
   * Arm the timer that terminates the worker once the deadline and the grace have passed. Until
   * the script starts (in the worker), the deadline counts from the time the run was sent, which
   * is never later; when the timer fires it looks again, at the script's real start and at the
   * limit as it stands then (a slow tool stretches it), and waits on if it is early.
   */
  private armDeadline(): void {
    const started = this.started();
    const limitEnd = this.scriptStart() + this.limitMs() + KILL_GRACE_MS;
    const stopAt = started ? limitEnd : Math.min(limitEnd, this.sentAt + STARTUP_LIMIT_MS);
    this.timer = setTimeout(this.onDeadline, Math.min(MAX_MS, Math.max(0, stopAt - Date.now())));
  }

  private readonly onDeadline = (): void => {
    if (this.ended) return;
    const now = Date.now();
    if (this.started()) {
      if (now >= this.scriptStart() + this.limitMs() + KILL_GRACE_MS) return this.stop({ kind: 'timeout' });
    } else if (now >= this.sentAt + STARTUP_LIMIT_MS) {
      // The worker was ready, but making an instance for this run's heap limit took too long.
      return this.stop({ kind: 'unavailable', message: `the sandbox worker did not start within ${STARTUP_LIMIT_MS / 1000} s` });
    }
    this.armDeadline();
  };

  /** Whether this run's script has started in the worker. */
  private started(): boolean {
    return Atomics.load(this.sandbox.cells, STARTED_CELL) === this.runId;
  }

  /** When the script started (`Date.now()` time); until it has, the time the run was sent. */
  private scriptStart(): number {
    return this.started() ? this.sandbox.startedAt[0] : this.sentAt;
  }

  /** End the run from the host: the worker is terminated, whatever it is doing. */
  private stop(outcome: ScriptRunOutcome): void {
    this.end(outcome, 'discard');
  }

  private end(outcome: ScriptRunOutcome, worker: 'keep' | 'discard', output?: string[]): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    const sandbox = this.sandbox.worker;
    sandbox.off('message', this.onMessage);
    sandbox.off('error', this.onError);
    sandbox.off('exit', this.onExit);
    if (worker === 'keep') this.pool.release(this.sandbox);
    else this.pool.discard(this.sandbox);
    const abandoned = [...this.unanswered].map(([index, name]) => ({ index, name }));
    this.resolve({ outcome, timeLimitMs: this.limitMs(), abandoned, ...(output ? { output } : {}) });
  }

  /** The script's limit, in milliseconds from its start. */
  private limitMs(): number {
    return Atomics.load(this.sandbox.cells, LIMIT_CELL);
  }
}

/** A limit as the shared cell holds it: whole milliseconds, at least 1, at most {@link MAX_MS}. */
function toCell(ms: number): number {
  return Math.min(MAX_MS, Math.max(1, Math.ceil(ms)));
}
