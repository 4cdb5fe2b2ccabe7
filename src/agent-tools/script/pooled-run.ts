/**
 * One script run as the host sees it: a place in the pool (after a bounded, fair wait when the
 * pool is full), a thread that hosts it, each of its calls handed to the tool's handler and
 * answered, its limit stretched when a slow tool is called, and an abort passed on.
 *
 * The thread ends the run itself (its answer, its limit, an abort); the pool's watchdog stops a
 * thread that cannot, so every run ends. The host's event loop never runs the script.
 */
import { messageOf } from '../../gate/message-of.js';
import { refusedCall, type ScriptCallResult } from './call-result.js';
import type { ScriptLimits } from './options.js';
import { workerPoolOf, type SandboxPool, type WorkerPool } from './pool.js';
import type { CallsMessage, DoneMessage } from './protocol.js';
import type { SandboxAnswer, SandboxCall, SandboxOutcome } from './run-contract.js';
import type { SandboxValues } from '../../runs/journal.js';
import type { SandboxThread, ThreadLoss, ThreadRunListener } from './thread.js';
import { reserveBytesFor } from './run-resources.js';

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
  /** Set for an instrumented script: `code` is its rewritten body, these its sites' kinds (see `script-instrument.ts`). */
  sites?: string;
  /** Told when the sandbox answered a call itself for a bound on the run's arguments, before any call made after it. */
  onBound?: () => void;
  /** The run's bounds. */
  limits: ScriptLimits;
  /** The pool the run takes its place in. */
  pool: SandboxPool;
  /** Whose run it is, for the pool's fair shares (a session, a user). */
  scope: string;
  /** Ends the run (`aborted`) when it fires. */
  signal?: AbortSignal;
  /**
   * Set for a run that may pause: the script's `Math.random` and clock are recorded, these values
   * (a replay's) handed back first, and what it draws past them is told to `onDrawn`.
   */
  values?: SandboxValues;
  /** The most values of each kind recorded (with `values`). */
  maxValues?: number;
  /** Told the values the script drew, with each batch of its calls (with `values`). */
  onDrawn?: (drawn: SandboxValues) => void;
}

/**
 * How a run ended: as the sandbox reports it, or `aborted` (the signal fired), `unavailable` (no
 * sandbox thread could be started), `no_sandbox` (no place in the pool: `queue_full` when the
 * queue was full too, `wait_timeout` when none came free within the run's limit, `too_large` when
 * the run may hold more memory than the pool ever gives; such a run never started), or `thread_lost` (another run on its thread would not stop, and the thread was
 * stopped with it).
 */
export type ScriptRunOutcome =
  | SandboxOutcome
  | { kind: 'unavailable'; message: string }
  | { kind: 'no_sandbox'; reason: 'queue_full' | 'wait_timeout' | 'too_large' }
  | { kind: 'thread_lost' };

/** A run's outcome, the time limit it ended with, and the calls it left in flight. */
export interface ScriptRunResult {
  /** How the run ended. */
  outcome: ScriptRunOutcome;
  /** The run's limit in milliseconds from the script's start, as it stood when the run ended. */
  timeLimitMs: number;
  /** How long the run waited for a place in the pool, in milliseconds (not part of its time limit). */
  queuedMs: number;
  /** The calls whose answers the script never received, by index and tool. */
  abandoned: { index: number; name: string }[];
  /** What the QuickJS module printed, when the run crashed. */
  output?: string[];
  /** How many calls the script made past its `maxCalls` (never made), when it returned. */
  callsOverLimit?: number;
  /**
   * Settles once the run's thread has let the run go (its runtime disposed, its place back in the
   * pool): at once for a run that never had a thread. An aborted run's result comes before that.
   */
  released: Promise<void>;
}

/**
 * Run one script on the pool. Never throws; resolves when the run ends, at once when the signal
 * fires.
 */
export async function runOnPool(request: ScriptRunRequest, onCall: ScriptCallHandler): Promise<ScriptRunResult> {
  const queuedAt = Date.now();
  const { timeoutMs } = request.limits;
  let pool: WorkerPool;
  try {
    pool = workerPoolOf(request.pool);
  } catch (error) {
    return { outcome: { kind: 'unavailable', message: messageOf(error) }, timeLimitMs: timeoutMs, queuedMs: 0, abandoned: [], released: RELEASED };
  }
  const { memoryLimitBytes, maxCallResultBytes } = request.limits;
  const admitted = pool.admit(request.scope, timeoutMs, request.signal, memoryLimitBytes + reserveBytesFor(maxCallResultBytes) + INSTANCE_WORKING_BYTES);
  const place = admitted instanceof Promise ? await admitted : admitted;
  const queuedMs = Date.now() - queuedAt;
  if (place.kind !== 'thread') {
    const outcome: ScriptRunOutcome = place.kind === 'queue_full' || place.kind === 'wait_timeout' || place.kind === 'too_large' ? { kind: 'no_sandbox', reason: place.kind } : place;
    return { outcome, timeLimitMs: timeoutMs, queuedMs, abandoned: [], released: RELEASED };
  }
  const run = await new Promise<Omit<ScriptRunResult, 'queuedMs'>>((resolve) => new PooledRun(request, onCall, place.thread, place.release, resolve, pool).start());
  return { ...run, queuedMs };
}

/**
 * What an instance works in beyond its run's heap (its static data and stack), as admission counts
 * it: the part of the instance's fixed base a run can make resident.
 */
const INSTANCE_WORKING_BYTES = 4 * 1024 * 1024;

/** What `released` is for a run that never had a thread. */
const RELEASED: Promise<void> = Promise.resolve();

/** The host side of one run on its thread. */
class PooledRun implements ThreadRunListener {
  private readonly runId: number;
  private ended = false;
  private limitMs: number;
  /** The run's remaining time as last reported, and when (`Date.now()` time). */
  private remainingMs: number;
  private remainingAt: number;
  /** Answers settled since the last post, sent together once the current tick's work is done. */
  private pending: SandboxAnswer[] = [];
  /** The calls whose answers were not sent yet, by index: the abandoned ones if the run ends first. */
  private readonly unanswered = new Map<number, string>();
  private readonly clock: ScriptClock = {
    extendTo: (ms) => {
      if (ms <= this.limitMs) return;
      this.remainingMs += ms - this.limitMs;
      this.limitMs = ms;
      this.thread.post({ type: 'limit', runId: this.runId, timeLimitMs: ms });
    },
    remainingMs: () => Math.max(1, this.remainingMs - (Date.now() - this.remainingAt)),
  };

  constructor(
    private readonly request: ScriptRunRequest,
    private readonly onCall: ScriptCallHandler,
    private readonly thread: SandboxThread,
    private readonly release: () => void,
    private readonly resolve: (result: Omit<ScriptRunResult, 'queuedMs'>) => void,
    private readonly pool: WorkerPool,
  ) {
    this.limitMs = request.limits.timeoutMs;
    this.remainingMs = this.limitMs;
    this.remainingAt = Date.now();
    this.runId = thread.add(this);
  }

  start(): void {
    const { limits, signal } = this.request;
    if (signal?.aborted) return this.finish({ kind: 'aborted' });
    // The thread ended between the run's placing and its start (it failed, or was stopped).
    if (!this.thread.alive) return this.finish({ kind: 'thread_lost' });
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.thread.post({
      type: 'run',
      runId: this.runId,
      code: this.request.code,
      ...(this.request.sites !== undefined ? { sites: this.request.sites } : {}),
      ...(this.request.values !== undefined ? { values: this.request.values, maxValues: this.request.maxValues } : {}),
      timeLimitMs: limits.timeoutMs,
      limits: {
        memoryLimitBytes: limits.memoryLimitBytes,
        maxReturnChars: limits.maxReturnChars,
        maxCalls: limits.maxCalls,
        maxCallArgsBytes: limits.maxCallArgsBytes,
        maxRunArgsBytes: limits.maxRunArgsBytes,
        maxCallResultBytes: limits.maxCallResultBytes,
      },
    });
  }

  calls(message: CallsMessage): void {
    if (this.ended) return;
    this.remainingMs = message.remainingMs;
    this.remainingAt = Date.now();
    if (message.drawn !== undefined) this.request.onDrawn?.(message.drawn);
    if (message.bounded === true) this.request.onBound?.();
    for (const call of message.calls) this.call(call);
  }

  done(message: DoneMessage): void {
    this.limitMs = message.timeLimitMs;
    this.callsOverLimit = message.callsOverLimit ?? 0;
    this.finish(message.outcome, message.output);
  }

  private callsOverLimit = 0;

  lost(loss: ThreadLoss): void {
    if (loss.kind === 'crashed') return this.finish({ kind: 'crashed', message: loss.message });
    if (loss.culprit !== this.runId) return this.finish({ kind: 'thread_lost' });
    // Its thread was stopped for it, with every run beside it: its scope's next runs compute apart.
    this.pool.heldBack.hold(this.scope, 'stopped');
    this.finish(loss.reason === 'aborted' ? { kind: 'aborted' } : loss.reason === 'slice' ? { kind: 'timeout', computedMs: loss.computedMs } : { kind: 'timeout' });
  }

  /** The run was aborted: it ends now for the host; the thread stops it and then lets go of its place. */
  private readonly onAbort = (): void => {
    if (this.ended) return;
    this.thread.post({ type: 'abort', runId: this.runId });
    this.abortedAt = Date.now();
    this.settle({ kind: 'aborted' });
  };

  /** When the host aborted the run (`Date.now()` time), if it has: the pool's watchdog reads it. */
  abortedAt = 0;

  /** Whose run it is: the pool holds a scope back for what its runs do. */
  get scope(): string {
    return this.request.scope;
  }

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
    this.thread.post({ type: 'answers', runId: this.runId, answers, postedAt: Date.now() });
  };

  /** The run is over on its thread: its place goes back to the pool, and the host hears how it ended. */
  private finish(outcome: ScriptRunOutcome, output?: string[]): void {
    if (this.released) return;
    this.released = true;
    this.thread.remove(this.runId);
    this.release();
    this.letGo();
    this.settle(outcome, output);
  }

  private released = false;
  /** Settles `released` (see {@link ScriptRunResult.released}). */
  private letGo!: () => void;
  private readonly releasedPromise = new Promise<void>((resolve) => (this.letGo = resolve));

  /** Tell the host how the run ended, once. */
  private settle(outcome: ScriptRunOutcome, output?: string[]): void {
    if (this.ended) return;
    this.ended = true;
    this.request.signal?.removeEventListener('abort', this.onAbort);
    const abandoned = [...this.unanswered].map(([index, name]) => ({ index, name }));
    const over = this.callsOverLimit;
    this.resolve({ outcome, timeLimitMs: this.limitMs, abandoned, released: this.releasedPromise, ...(output ? { output } : {}), ...(over > 0 ? { callsOverLimit: over } : {}) });
  }
}
