/**
 * A sandbox thread's entry: it hosts many script runs at once, each in a QuickJS instance of its
 * own (its own memory, its own runtime and context), and nothing else. A run computes only
 * between its awaits; while it waits for its calls' answers it holds nothing but memory, and the
 * thread serves the other runs. The host decides everything about the calls (the gate, the
 * effects ledger) and answers them by message.
 *
 * Why a thread: QuickJS checks its interrupt handler only every so many operations, and a large
 * built-in call counts as one, so a script can hold its thread for many seconds past any limit.
 * On its own thread it holds only this thread, and the host ends it with `worker.terminate()`.
 *
 * The invariants, written once:
 * - A run is charged its own time: computing, and waiting for its calls. Time it was ready to go
 *   on while another run held the thread is not counted against its limit.
 * - A run that computes past the slice while another run waits for the thread is stopped (it
 *   ends `timeout`, saying so); alone on the thread it may compute up to its own limit.
 * - A run that has done a turn's worth of promise jobs lets the runs waiting for the thread go
 *   first.
 * - Nothing of one run reaches another: each has its own instance, reused by a later run only
 *   with a fresh runtime and context, and dropped when its heap filled or it failed.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { messageOf } from '../../gate/message-of.js';
import { InstanceShelf } from './instance-shelf.js';
import type { SandboxValues } from '../../runs/journal.js';
import { runScript } from './run.js';
import type { SandboxAnswer, SandboxCall, SandboxChannel, SandboxStop } from './run-contract.js';
import { reserveBytesFor } from './run-resources.js';
import {
  EPISODE_DEADLINE,
  EPISODE_RUN_CELL,
  EPISODE_START,
  FLOAT_CELLS,
  FLOAT_OFFSET,
  INT_CELLS,
  PENDING_CELL,
  type CallsMessage,
  type FromThread,
  type RunMessage,
  type SandboxWorkerData,
  type ToThread,
} from './protocol.js';

const port = parentPort;
if (!port) throw new Error('the sandbox worker must be started as a worker thread');
const { wasmModule, inbox, shared, sliceMs, firstHeapLimitBytes } = workerData as SandboxWorkerData;
const cells = new Int32Array(shared, 0, INT_CELLS);
const episode = new Float64Array(shared, FLOAT_OFFSET, FLOAT_CELLS);

/**
 * How long, in milliseconds, a run alone on the thread watches for its answer before it lets the
 * event loop wait: long enough for a quick tool's answer, short enough that a slow one costs next
 * to nothing in spinning. (A thread woken through its event loop takes tens of microseconds more.)
 */
const SPIN_MS = 0.2;

/** A wait shorter than this is message latency, not a wait for the thread: not credited. */
const CREDIT_FLOOR_MS = 1;

/**
 * The most a run may compute in all and still leave its instance for the next run. An instance
 * keeps every page its runs touched, and a run that filled much of its heap computed for longer
 * than this: its instance is let go rather than kept with that memory.
 */
const KEEP_INSTANCE_COMPUTE_MS = 250;

const shelf = new InstanceShelf(wasmModule);
/** The runs this thread hosts, by id. */
const runs = new Map<number, ThreadRun>();
/** Runs that could go on but have not had the thread yet (woken, yielded, or not started). */
let readyRuns = 0;
/**
 * Runs waiting for a new instance to be made. Making one needs turns of the event loop, which
 * runs that wake one another from inside their own computing never give: while one waits, a run
 * woken goes on only after a turn (see `ThreadRun.wakeUp`).
 */
let awaitingInstance = 0;

function post(message: FromThread): void {
  port?.postMessage(message);
}

/** Read one message from the host, wherever it was read (the event loop, a spin, an interrupt check). */
function dispatch(message: ToThread): void {
  Atomics.sub(cells, PENDING_CELL, 1);
  heardAt = performance.now();
  switch (message.type) {
    case 'run': {
      const run = new ThreadRun(message);
      runs.set(message.runId, run);
      // Never started inside another run's interrupt check: the start waits for the stack to clear.
      queueMicrotask(() => void run.start());
      return;
    }
    case 'answers':
      runs.get(message.runId)?.receiveAnswers(message.answers, message.postedAt);
      return;
    case 'limit':
      runs.get(message.runId)?.stretch(message.timeLimitMs);
      return;
    case 'abort':
      runs.get(message.runId)?.abort();
      return;
  }
}

/** Read every message already posted, without the event loop. */
function drain(): void {
  for (let received = receiveMessageOnPort(inbox); received; received = receiveMessageOnPort(inbox)) dispatch(received.message as ToThread);
}

inbox.on('message', dispatch);

// Ready once an instance for the default limits is made: most runs use them, so the first run
// on this thread starts at once. A failure here is left to the first run, which reports it.
void shelf
  .prepare(firstHeapLimitBytes)
  .catch(() => undefined)
  .finally(() => {
    post({ type: 'ready' });
    prepareWhenIdle();
  });

/**
 * How long the thread must have read no message before it compiles parts ahead, or prepares a
 * runtime while runs wait for their calls' answers, in milliseconds: a host that just heard a
 * run end, or a call made, often sends the next run or the answer at once, which would wait for
 * that work. (A runtime alone is prepared at once when no run is alive: the next run will want
 * it, and it costs that run less than the parts would.)
 */
const QUIET_MS = 2;
/** When the thread last read a message (`performance.now()` time). */
let heardAt = 0;
let preparing = false;
let quietTimer: ReturnType<typeof setTimeout> | undefined;

/** Prepare idle instances, a step per turn of the event loop, while no run wants the thread. */
function prepareWhenIdle(): void {
  if (preparing) return;
  preparing = true;
  setImmediate(() => {
    preparing = false;
    if (readyRuns > 0 || Atomics.load(cells, PENDING_CELL) > 0) return;
    const quiet = performance.now() - heardAt >= QUIET_MS;
    if ((quiet || runs.size === 0) && shelf.prepareOne(quiet)) return prepareWhenIdle();
    // What is left waits for the thread to be quiet.
    if (!quiet && quietTimer === undefined && shelf.wantsPreparing()) {
      quietTimer = setTimeout(() => {
        quietTimer = undefined;
        prepareWhenIdle();
      }, QUIET_MS);
    }
  });
}

/** One run on this thread: its channel to the host, its clock's credit, and whether it was aborted. */
class ThreadRun implements SandboxChannel {
  private readonly runId: number;
  private timeLimitMs: number;
  /** Answers that arrived and the run has not taken yet. */
  private answers: SandboxAnswer[] = [];
  /** Wakes the run's wait for answers, while it waits. */
  private wake: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Since when the run could go on but has not had the thread (`Date.now()` time); 0 while not ready. */
  private readyAt = 0;
  /** The milliseconds it waited for the thread, not counted against its limit. */
  private credit = 0;
  private aborted = false;
  /** Whether the run's clock has started (its script's first instruction). */
  private clockStarted = false;
  /** When the run last began to wait for answers (`Date.now()` time). */
  private waitingSince = 0;
  private deadline = 0;
  /** How long the run has computed in all, in milliseconds. */
  private computedMs = 0;
  /** When its current stretch of computing began (`Date.now()` time). */
  private computingSince = 0;

  constructor(private readonly message: RunMessage) {
    this.runId = message.runId;
    this.timeLimitMs = message.timeLimitMs;
    this.becomeReady(Date.now());
  }

  async start(): Promise<void> {
    const { limits } = this.message;
    const heapLimitBytes = limits.memoryLimitBytes + reserveBytesFor(limits.maxCallResultBytes);
    let taken;
    try {
      // An idle instance at once; a new one is awaited (the thread serves the other runs meanwhile).
      const shelved = shelf.take(heapLimitBytes);
      if (shelved instanceof Promise) {
        awaitingInstance++;
        try {
          taken = await shelved;
        } finally {
          awaitingInstance--;
        }
      } else {
        taken = shelved;
      }
    } catch (error) {
      return this.end({ type: 'done', runId: this.runId, outcome: { kind: 'unavailable', message: messageOf(error) }, timeLimitMs: this.timeLimitMs });
    }
    const { instance, prepared } = taken;
    if (this.aborted) {
      shelf.put(instance, prepared);
      return this.end({ type: 'done', runId: this.runId, outcome: { kind: 'aborted' }, timeLimitMs: this.timeLimitMs });
    }
    const result = await runScript(
      instance,
      {
        code: this.message.code,
        ...(this.message.sites !== undefined ? { sites: this.message.sites } : {}),
        ...(this.message.values !== undefined ? { values: this.message.values, maxValues: this.message.maxValues } : {}),
        timeLimitMs: () => this.timeLimitMs,
        uncharged: () => this.credit,
        interrupt: (computedMs) => this.interrupt(computedMs),
        onCompute: (computing, deadline) => this.onCompute(computing, deadline),
        // The host hears the answer before the runtime is disposed (but a crash, whose output the
        // module prints on the way, after).
        onOutcome: (outcome, over) => {
          if (outcome.kind !== 'crashed') this.end({ type: 'done', runId: this.runId, outcome, timeLimitMs: this.timeLimitMs, ...(over > 0 ? { callsOverLimit: over } : {}) });
        },
        ...limits,
      },
      this,
      prepared,
    );
    const crashed = result.outcome.kind === 'crashed' && instance.output.length > 0;
    const output = crashed ? [...instance.output] : undefined;
    instance.output.length = 0;
    // An instance whose run filled its heap, failed inside it, or may have touched much of it is
    // let go: its memory goes with it.
    if (!result.moduleBroken && !instance.heap.exhausted && this.computedMs < KEEP_INSTANCE_COMPUTE_MS) {
      shelf.put(instance);
      prepareWhenIdle();
    }
    if (result.outcome.kind === 'crashed') this.end({ type: 'done', runId: this.runId, outcome: result.outcome, timeLimitMs: this.timeLimitMs, ...(output ? { output } : {}) });
  }

  private ended = false;

  private end(done: FromThread): void {
    if (this.ended) return;
    this.ended = true;
    if (this.readyAt !== 0) this.leaveReady();
    clearTimeout(this.timer);
    runs.delete(this.runId);
    post(done);
  }

  // The channel, as the run sees it.

  send(calls: SandboxCall[], drawn?: SandboxValues, bounded?: boolean): void {
    const message: CallsMessage = { type: 'calls', runId: this.runId, calls, remainingMs: Math.max(1, this.deadline - Date.now()) };
    if (drawn !== undefined) message.drawn = drawn;
    if (bounded === true) message.bounded = true;
    post(message);
  }

  receive(timeoutMs: number): SandboxAnswer[] | Promise<SandboxAnswer[]> {
    if (this.answers.length > 0) return this.takeAnswers();
    // Alone on the thread: watch for the answer a moment, without a turn of the event loop.
    if (readyRuns === 0) {
      const until = performance.now() + Math.min(SPIN_MS, timeoutMs);
      do {
        // The host counts a message before it posts it: a load of that cell is all a turn costs
        // until one comes (reading the port itself costs far more).
        if (Atomics.load(cells, PENDING_CELL) === 0) continue;
        if (this.readPosted()) return this.takeAnswers();
        if (readyRuns > 0) break;
      } while (performance.now() < until);
    }
    return new Promise((resolve) => {
      let woken = false;
      // Once: a wake put off to a later turn may meet the time-out's.
      const wake = (): void => {
        if (woken) return;
        woken = true;
        clearTimeout(this.timer);
        this.wake = undefined;
        resolve(this.takeAnswers());
      };
      this.wake = wake;
      this.waitingSince = Date.now();
      this.timer = setTimeout(wake, Math.min(2 ** 31 - 1, timeoutMs));
    });
  }

  /** Read the messages posted so far; whether this run now has what it waits for. */
  private readPosted(): boolean {
    for (let received = receiveMessageOnPort(inbox); received; received = receiveMessageOnPort(inbox)) {
      dispatch(received.message as ToThread);
      if (this.answers.length > 0 || this.aborted) return true;
    }
    return false;
  }

  yieldTurn(): Promise<void> | undefined {
    if (readyRuns === 0 && awaitingInstance === 0 && Atomics.load(cells, PENDING_CELL) === 0) return undefined;
    this.becomeReady(Date.now());
    return new Promise((resolve) => setImmediate(resolve));
  }

  // What the host says of the run.

  receiveAnswers(answers: SandboxAnswer[], postedAt: number): void {
    if (this.answers.length === 0) this.answers = answers;
    else for (const answer of answers) this.answers.push(answer);
    // Ready from when the answer was posted, or the wait began if that was later.
    this.wakeUp(Math.max(postedAt, this.waitingSince));
  }

  stretch(timeLimitMs: number): void {
    if (timeLimitMs > this.timeLimitMs) this.timeLimitMs = timeLimitMs;
  }

  abort(): void {
    this.aborted = true;
    this.wakeUp(Date.now());
  }

  /** The run's wait is over: it goes on once the thread is free. */
  private wakeUp(since: number): void {
    const wake = this.wake;
    if (wake === undefined) return;
    this.becomeReady(since);
    if (awaitingInstance > 0) setImmediate(wake);
    else wake();
  }

  // The run's clock and its place on the thread.

  private takeAnswers(): SandboxAnswer[] {
    const answers = this.answers;
    this.answers = [];
    return answers;
  }

  private becomeReady(since: number): void {
    if (this.readyAt !== 0) return;
    this.readyAt = since;
    readyRuns++;
  }

  private leaveReady(): void {
    this.readyAt = 0;
    readyRuns--;
  }

  private onCompute(computing: boolean, deadline: number): void {
    if (computing) {
      const now = Date.now();
      if (this.readyAt !== 0) {
        // Only the wait for the thread is credited: before a run starts, its clock has not.
        const waited = now - this.readyAt;
        if (this.clockStarted && waited >= CREDIT_FLOOR_MS) {
          this.credit += waited;
          deadline += waited;
        }
        this.leaveReady();
      }
      this.clockStarted = true;
      this.deadline = deadline;
      this.computingSince = now;
      episode[EPISODE_START] = now;
      episode[EPISODE_DEADLINE] = deadline;
      Atomics.store(cells, EPISODE_RUN_CELL, this.runId);
    } else {
      this.computedMs += Date.now() - this.computingSince;
      Atomics.store(cells, EPISODE_RUN_CELL, 0);
    }
  }

  private interrupt(computedMs: number): SandboxStop | undefined {
    // Messages wait: read them now, so an abort is seen and waiting runs are known.
    if (Atomics.load(cells, PENDING_CELL) > 0) drain();
    if (this.aborted) return 'aborted';
    if (computedMs > sliceMs && readyRuns > 0) return 'slice';
    return undefined;
  }
}
