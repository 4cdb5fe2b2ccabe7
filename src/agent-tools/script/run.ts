/**
 * One script run in a fresh QuickJS runtime and context: the time limit (an interrupt handler for
 * CPU loops, a bounded wait for answers), the bounds on calls the sandbox enforces itself (their
 * number and the bytes of their arguments, checked before anything leaves the sandbox), the bridge
 * that lets `callTool` calls run concurrently outside the VM, and the disposal of every handle
 * when the run ends, however it ends.
 *
 * This runs inside a sandbox worker (`worker.ts`), beside the other runs that thread hosts. A
 * run computes only between its awaits: while it waits for answers it holds no thread, and
 * `await` hands the thread to the next run that has work. Its own time checks end the common
 * cases (a loop, a wait past the limit, computing too long while other runs wait) cleanly; the
 * host still terminates the thread when one of these checks cannot be reached, since QuickJS
 * checks its interrupt handler only every so many operations and one large built-in call
 * (`"x".repeat(1e6)`) counts as one.
 *
 * Only strings cross the boundary: a call's name and JSON args go out, a call's encoded answer,
 * the script's encoded answer and its described error come in. No host object is ever handed in.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { messageOf } from '../../gate/message-of.js';
import { argsTooLarge, tooManyCalls, type ScriptCallResult } from './call-result.js';
import { decodeCall, encodeAnswer, type EncodedCall, frame, unframe } from './boundary-codec.js';
import { ENDING_SOURCE, PRELUDE_FILENAME, PRELUDE_SOURCE, RECORDING_SOURCE } from './prelude-source.js';
import { positionOf, SCRIPT_FILENAME, wrapScript } from './script-wrapper.js';
import type {
  SandboxAnswer,
  SandboxCall,
  SandboxChannel,
  SandboxModule,
  SandboxOutcome,
  SandboxRequest,
  SandboxResult,
  SandboxStop,
} from './run-contract.js';
import type { SandboxValues } from '../../runs/journal.js';

/**
 * The most promise jobs a run executes before it looks up: a script that awaits in a loop
 * (`for (;;) await null`) never runs out of jobs, and would otherwise hold the thread until its
 * deadline while other runs wait.
 */
const JOBS_PER_TURN = 1000;

/**
 * The sandbox's stack. QuickJS's frames sit on the host's own stack inside WebAssembly, so a
 * deep recursion must stop (as a catchable `RangeError` in the script) well before Node's stack
 * does; 256 KB leaves room under a Node thread's stack (about 1 MB on the main thread, 4 MB in
 * a worker).
 */
const MAX_STACK_BYTES = 256 * 1024;

/**
 * The least the host holds back for itself in the sandbox's heap (see {@link reserveBytesFor}):
 * room to write a call's answer in, and to read the script's error or answer, even when the
 * script has filled its heap.
 */
const MIN_RESERVE_BYTES = 256 * 1024;

/**
 * How much room a call's answer of `maxCallResultBytes` needs: the text as the host's C string
 * and as a QuickJS string (two bytes a character when it is not Latin-1), and the copies made on
 * the way, with room to spare. The memory cap adds it on top of the script's own limit.
 */
export function reserveBytesFor(maxCallResultBytes: number): number {
  return Math.max(MIN_RESERVE_BYTES, 6 * maxCallResultBytes);
}

/**
 * Run one script in a new runtime of `module`. Never throws: every way a run can end is a
 * {@link SandboxOutcome}, and the runtime, the context and every handle are disposed before this
 * resolves; `moduleBroken` says the module failed on the host side (an Emscripten abort, a host
 * stack overflow inside WebAssembly), was left as it was, and must not be used again.
 */
export async function runScript(module: SandboxModule, request: SandboxRequest, channel: SandboxChannel, prepared?: PreparedRuntime): Promise<SandboxResult> {
  const run = new ScriptRun(module, request, channel, prepared);
  const outcome = await run.execute();
  return { outcome, timeLimitMs: request.timeLimitMs(), abandoned: run.inFlight(), moduleBroken: run.moduleBroken, callsOverLimit: run.callsOverLimit };
}

/**
 * A fresh runtime and context with the prelude evaluated, made ahead of a run while the thread
 * has nothing else to do: most of what a run costs before its script's first instruction. No
 * script has run in it; the run that takes it sets its own limits.
 */
export interface PreparedRuntime {
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  /** The prelude's function, not yet called (see `PRELUDE_SOURCE`). */
  prelude: QuickJSHandle;
}

/**
 * Prepare a runtime in `module` for the next run; `undefined` when the prelude failed. Throws
 * what the module throws (a failure of the module itself, which the caller must not use again).
 */
export function prepareRuntime(module: SandboxModule): PreparedRuntime | undefined {
  const runtime = module.quickjs.newRuntime();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  const vm = runtime.newContext();
  const prelude = vm.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME, { type: 'global', strict: true });
  if (prelude.error) {
    prelude.error.dispose();
    vm.dispose();
    runtime.dispose();
    return undefined;
  }
  return { runtime, vm, prelude: prelude.value };
}

/** Let go of a prepared runtime no run took. */
export function disposePrepared(prepared: PreparedRuntime): void {
  try {
    prepared.prelude.dispose();
    prepared.vm.dispose();
    prepared.runtime.dispose();
  } catch {
    // Its instance goes with it.
  }
}

/** The state of one run. A class so the VM callbacks and the loop share it without closures everywhere. */
class ScriptRun {
  /** When the script started: its limit counts from here, not from the runtime's set-up. */
  private start = Date.now();
  private timedOut = false;
  /** Why the run's own checks stopped it besides the time limit, once they have. */
  private stopped: SandboxStop | undefined;
  /** When the run last started computing (its start, or its last await's end). */
  private computingSince = Date.now();
  /** How long it had computed when a `'slice'` stop came. */
  private computedMs = 0;
  /** Set when the module failed on the host side; see {@link SandboxResult.moduleBroken}. */
  moduleBroken = false;
  /** The bytes of arguments the run's calls have sent so far. */
  private argsBytes = 0;
  private runtime: QuickJSRuntime | undefined;
  private vm: QuickJSContext | undefined;
  /** Handles owned by the run, disposed in reverse order at the end. */
  private readonly handles: QuickJSHandle[] = [];
  /** The tool name of each call sent and not yet answered, by call index. */
  private readonly waiting = new Map<number, string>();
  /** Calls the script made that are not sent yet. */
  private outbox: SandboxCall[] = [];
  /** Answers that arrived and wait for the loop to hand them to the script. */
  private ready: SandboxAnswer[] = [];
  /** The block held back for the host (see {@link reserveBytesFor}); 0 while released. */
  private reserve = 0;
  private readonly reserveBytes: number;
  /** The script's promise, handed to the prelude's `take` on its first call. */
  private promise: QuickJSHandle | undefined;
  private takeCalls: QuickJSHandle | undefined;
  private deliverAnswers: QuickJSHandle | undefined;
  private finishRun: QuickJSHandle | undefined;
  /** The prelude's count of calls past `maxCalls`. */
  private overLimit: QuickJSHandle | undefined;
  /** How many calls the script made past `maxCalls`, read when it returned. */
  callsOverLimit = 0;
  /** The recording's `drawn` (see `RECORDING_SOURCE`), in a run whose values are recorded. */
  private drawnValues: QuickJSHandle | undefined;
  /** The intrinsics the prelude captured, for the ending functions. */
  private captured: QuickJSHandle | undefined;
  /** The ending functions (see `ENDING_SOURCE`), once a run has needed them. */
  private ending: { encodeReturn: QuickJSHandle; describeError: QuickJSHandle } | undefined;

  constructor(
    private readonly module: SandboxModule,
    private readonly request: SandboxRequest,
    private readonly channel: SandboxChannel,
    private prepared?: PreparedRuntime,
  ) {
    this.reserveBytes = reserveBytesFor(request.maxCallResultBytes);
  }

  /** The run's deadline as it stands now (`Date.now()` time): its limit, plus the time it waited for the thread. */
  private deadline(): number {
    const uncharged = this.request.uncharged;
    return this.start + this.request.timeLimitMs() + (uncharged === undefined ? 0 : uncharged());
  }

  /** The run computes from now on (its start, or an await's end). */
  private computing(): void {
    this.computingSince = Date.now();
    this.request.onCompute?.(true, this.deadline());
  }

  /** The run stops computing: it awaits, or it has ended. */
  private idle(): void {
    this.request.onCompute?.(false, 0);
  }

  /** How the run ends when its own checks stopped it: at the time limit, aborted, or for computing too long. */
  private stopOutcome(): SandboxOutcome {
    if (this.stopped === 'aborted') return { kind: 'aborted' };
    if (this.stopped === 'slice') return { kind: 'timeout', computedMs: this.computedMs };
    return { kind: 'timeout' };
  }

  inFlight(): { index: number; name: string }[] {
    return [...this.waiting].map(([index, name]) => ({ index, name }));
  }

  async execute(): Promise<SandboxOutcome> {
    let outcome: SandboxOutcome;
    try {
      const set = this.setUp();
      outcome = 'kind' in set ? set : await this.loop();
    } catch (error) {
      // A failure inside WebAssembly (an Emscripten abort, the host's stack running out): the
      // module's state is no longer trustworthy, so nothing in it is touched again (disposing
      // could abort it a second time). Anything else thrown here leaves the module sound.
      if (isModuleFailure(error)) this.moduleBroken = true;
      outcome = this.timedOut ? this.stopOutcome() : { kind: 'crashed', message: messageOf(error) };
    }
    this.idle();
    // Told before the disposal, which the caller's answer need not wait for.
    try {
      this.request.onOutcome?.(outcome, this.callsOverLimit);
    } finally {
      if (!this.moduleBroken && !this.dispose()) this.moduleBroken = true;
    }
    return outcome;
  }

  /** Take the reserve, make the runtime, install `callTool` and the helpers, and start the script. */
  private setUp(): { started: true } | SandboxOutcome {
    this.module.heap.exhausted = false;
    if (!this.retake()) {
      // A fresh run always finds room: no room means the instance kept memory it should not have.
      this.moduleBroken = true;
      return { kind: 'crashed', message: 'the sandbox has no room for its reserve' };
    }
    const prepared = this.prepared ?? prepareRuntime(this.module);
    this.prepared = undefined;
    if (!prepared) return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
    const { runtime, vm } = prepared;
    this.runtime = runtime;
    this.vm = vm;
    runtime.setMemoryLimit(this.request.memoryLimitBytes);
    const preludeFn = this.own(prepared.prelude);
    const { maxReturnChars, maxCallArgsBytes, maxCalls } = this.request;
    const args = [maxReturnChars, maxCallArgsBytes, maxCalls].map((n) => this.own(vm.newNumber(n)));
    const tooMany = tooManyCalls(maxCalls);
    args.push(this.own(vm.newString(encodeAnswer(tooMany.text, tooMany.error))));
    const helpers = vm.callFunction(preludeFn, vm.undefined, ...args);
    if (helpers.error) {
      helpers.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
    }
    const list = this.own(helpers.value);
    this.takeCalls = this.own(vm.getProp(list, 0));
    this.deliverAnswers = this.own(vm.getProp(list, 1));
    this.finishRun = this.own(vm.getProp(list, 2));
    this.captured = this.own(vm.getProp(list, 3));
    this.overLimit = this.own(vm.getProp(list, 4));
    if (this.request.values !== undefined) {
      const recording = this.record(this.request.values);
      if (recording) return recording;
    }

    // The clock starts with the script: the set-up above is the host's time, and on a busy
    // machine it could otherwise eat a short limit (or be cut off by it) before the script runs.
    this.start = Date.now();
    this.request.onStart?.(this.start);
    this.computing();
    const interrupt = this.request.interrupt;
    runtime.setInterruptHandler(() => {
      if (this.timedOut) return true;
      const now = Date.now();
      if (now > this.deadline()) {
        this.timedOut = true;
      } else if (interrupt !== undefined) {
        const stop = interrupt(now - this.computingSince);
        if (stop !== undefined) {
          this.stopped = stop;
          this.computedMs = now - this.computingSince;
          this.timedOut = true;
        }
      }
      return this.timedOut;
    });
    // `type: 'global'` so an `import` statement is a syntax error rather than a module load.
    const started = vm.evalCode(wrapScript(this.request.code), SCRIPT_FILENAME, { type: 'global' });
    // Evaluating the wrapper only compiles the script and starts it (an async function turns
    // what it throws into a rejection): an error here is a syntax error, never one of its runtime.
    if (started.error) {
      const outcome = this.consumeError(started.error);
      return outcome.kind === 'threw' ? { ...outcome, compile: true } : outcome;
    }
    this.promise = this.own(started.value);
    // The first take starts following the script's promise (its reactions run with the next jobs).
    const first = this.take();
    return typeof first === 'boolean' ? { started: true } : first;
  }

  /**
   * Run jobs, send calls, hand answers in, and wait for answers, until the script's promise
   * settles. Every `await` here hands the thread to the other runs on it.
   */
  private async loop(): Promise<SandboxOutcome> {
    const runtime = this.runtime as QuickJSRuntime;
    for (;;) {
      const full = this.deliver();
      if (full) return full;
      const jobs = runtime.executePendingJobs(JOBS_PER_TURN);
      if (jobs.error) return this.consumeError(jobs.error);
      // A full turn may have left jobs behind; fewer means none is left.
      const fullTurn = jobs.value === JOBS_PER_TURN;
      jobs.dispose();
      const taken = this.take();
      if (typeof taken !== 'boolean') return taken;
      if (this.outbox.length > 0) {
        const calls = this.outbox;
        this.outbox = [];
        if (this.drawnValues === undefined) {
          this.channel.send(calls);
        } else {
          const drawn = this.drawn();
          if (drawn !== undefined && 'kind' in drawn) return drawn;
          this.channel.send(calls, drawn);
        }
      }
      if (taken) return this.finish();

      if (this.timedOut || Date.now() > this.deadline()) return this.stopOutcome();
      if (this.ready.length > 0) continue;
      if (fullTurn && runtime.hasPendingJob()) {
        // A turn's worth of jobs is done and more wait: other runs that wait for the thread go first.
        const turn = this.channel.yieldTurn?.();
        if (turn !== undefined) {
          this.idle();
          await turn;
          this.computing();
          if (this.request.interrupt?.(0) === 'aborted') this.stopped = 'aborted';
          if (this.stopped !== undefined) return this.stopOutcome();
        }
        continue;
      }
      // Pending with nothing in flight: only a call's answer can settle anything here (there
      // are no timers), so the script would wait forever.
      if (this.waiting.size === 0) return { kind: 'stalled' };
      this.idle();
      const answers = await this.channel.receive(Math.max(0, this.deadline() - Date.now()) + 1);
      this.computing();
      // An abort that came while the run waited ends it here.
      if (this.request.interrupt?.(0) === 'aborted') this.stopped = 'aborted';
      // Checked before anything is delivered: an answer that arrives at the deadline (a call's
      // own time-out, say) must not let the script run on past it.
      if (this.stopped !== undefined || Date.now() > this.deadline()) return this.stopOutcome();
      for (const answer of answers) this.ready.push(answer);
    }
  }

  /**
   * Take the calls the script made since the last take: each is refused here when it is past a
   * bound on the bytes of its arguments (its answer then waits for the next delivery), else
   * queued to be sent. Gives whether the script's promise has settled, or how the run ended when
   * the prelude failed.
   */
  private take(): boolean | SandboxOutcome {
    const vm = this.vm as QuickJSContext;
    // The script's promise goes in once, with the first take; its handle stays owned by the run.
    const taken = this.promise
      ? vm.callFunction(this.takeCalls as QuickJSHandle, vm.undefined, this.promise)
      : vm.callFunction(this.takeCalls as QuickJSHandle, vm.undefined);
    this.promise = undefined;
    if (taken.error) return this.consumeError(taken.error);
    // Reading the text copies it inside the sandbox first: the reserve makes room for that.
    this.release();
    const text = vm.getString(taken.value);
    taken.value.dispose();
    if (!this.retake() || text === '') return { kind: 'memory' };
    if (text.length > 1) for (const request of unframe(text, 1)) this.accept(decodeCall(request));
    return text[0] === '1';
  }

  /** Evaluate a part of the prelude loaded only when a run needs it: its factory function, owned by the run, or how the run ended. */
  private preludePart(source: string): QuickJSHandle | SandboxOutcome {
    const evaluated = (this.vm as QuickJSContext).evalCode(source, PRELUDE_FILENAME, { type: 'global', strict: true });
    if (evaluated.error) {
      evaluated.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
    }
    return this.own(evaluated.value);
  }

  /** Put the recording over `Math.random` and the clock (see `RECORDING_SOURCE`); how the run ended when that failed. */
  private record(values: SandboxValues): SandboxOutcome | undefined {
    const vm = this.vm as QuickJSContext;
    const factory = this.preludePart(RECORDING_SOURCE);
    if ('kind' in factory) return factory;
    const given = this.own(vm.newString(JSON.stringify([values.random, values.clock])));
    const cap = this.own(vm.newNumber(this.request.maxValues ?? 0));
    const made = vm.callFunction(factory, vm.undefined, given, cap);
    if (made.error) {
      made.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
    }
    this.drawnValues = this.own(made.value);
    return undefined;
  }

  /** The values the script drew since the last batch, if any; how the run ended when they could not be read. */
  private drawn(): SandboxValues | SandboxOutcome | undefined {
    const vm = this.vm as QuickJSContext;
    this.release();
    const drawn = vm.callFunction(this.drawnValues as QuickJSHandle, vm.undefined);
    if (drawn.error) {
      this.retake();
      return this.consumeError(drawn.error);
    }
    const text = vm.typeof(drawn.value) === 'string' ? vm.getString(drawn.value) : '';
    drawn.value.dispose();
    if (!this.retake()) return { kind: 'memory' };
    if (text === '') return undefined;
    try {
      const [random, clock] = JSON.parse(text) as [number[], number[]];
      return { random, clock };
    } catch {
      return undefined;
    }
  }

  /** Queue one call to be sent, or refuse it (its answer goes into the next delivery). */
  private accept(call: EncodedCall): void {
    const { index } = call;
    if (call.tooLong !== undefined) {
      // Args the prelude kept back: longer in units than a call may carry in bytes.
      this.ready.push({ index, result: argsTooLarge(call.tooLong, this.request.maxCallArgsBytes, 'call') });
    } else {
      const bytes = call.args === null ? 0 : Buffer.byteLength(call.args);
      const tooLarge = this.argsRefusal(bytes);
      if (tooLarge) {
        this.ready.push({ index, result: tooLarge });
      } else {
        this.argsBytes += bytes;
        this.outbox.push({ index, mode: call.mode, name: call.name, args: call.args });
      }
    }
    this.waiting.set(index, call.name);
  }

  /** The refusal for arguments of `bytes` (a lower bound, or the exact count), if they are past a bound. */
  private argsRefusal(bytes: number): ScriptCallResult | undefined {
    const { maxCallArgsBytes, maxRunArgsBytes } = this.request;
    if (bytes > maxCallArgsBytes) return argsTooLarge(bytes, maxCallArgsBytes, 'call');
    if (this.argsBytes + bytes > maxRunArgsBytes) return argsTooLarge(this.argsBytes + bytes, maxRunArgsBytes, 'run');
    return undefined;
  }

  /**
   * Hand every answer that arrived to the script, writing into the reserve's room. When the
   * reserve cannot be taken back, the script has filled its heap: the run ends as out of memory.
   */
  private deliver(): SandboxOutcome | undefined {
    if (this.ready.length === 0) return undefined;
    const vm = this.vm as QuickJSContext;
    const answers: string[] = [];
    for (const { index, result } of this.ready) {
      if (this.waiting.delete(index)) answers.push(`${index}:${encodeAnswer(result.text, result.error, result.value)}`);
    }
    this.ready = [];
    if (answers.length === 0) return undefined;
    this.release();
    const framed = vm.newString(frame(answers));
    const delivered = vm.callFunction(this.deliverAnswers as QuickJSHandle, vm.undefined, framed);
    framed.dispose();
    if (delivered.error) return this.consumeError(delivered.error);
    delivered.value.dispose();
    return this.retake() ? undefined : { kind: 'memory' };
  }

  /** Free the reserve, so the host's own writes into the sandbox find room. */
  private release(): void {
    if (this.reserve === 0) return;
    this.module.free(this.reserve);
    this.reserve = 0;
  }

  /** Take the reserve back; false when the heap has no room for it (the script filled it). */
  private retake(): boolean {
    this.reserve = this.module.malloc(this.reserveBytes);
    return this.reserve !== 0;
  }

  /**
   * Read the script's outcome, once its promise has settled, through the prelude's `finish`: at
   * once for a plain answer, else with the ending functions.
   */
  private finish(): SandboxOutcome {
    this.release();
    let text = this.finishWith();
    if (text === '?') {
      const ending = this.endingFunctions();
      if ('kind' in ending) return ending;
      text = this.finishWith(ending.encodeReturn, ending.describeError);
    }
    if (typeof text !== 'string') return text;
    const body = text.slice(1);
    switch (text[0]) {
      case 'O':
        this.callsOverLimit = this.countOverLimit();
        return { kind: 'returned', text: body };
      case 'L':
        return { kind: 'return_too_large', length: Number(body) };
      case 'P':
        return { kind: 'return_pending' };
      case 'I':
        return body === 'out of memory' ? { kind: 'memory' } : { kind: 'return_invalid', reason: body };
      case 'X':
        return this.classify(parseDescribed(body));
      default:
        return { kind: 'crashed', message: 'the answer could not be read from the sandbox' };
    }
  }

  /** How many calls the script made past `maxCalls` (0 when it cannot be read). */
  private countOverLimit(): number {
    const vm = this.vm as QuickJSContext;
    const counted = vm.callFunction(this.overLimit as QuickJSHandle, vm.undefined);
    if (counted.error) {
      counted.error.dispose();
      return 0;
    }
    const count = vm.typeof(counted.value) === 'number' ? vm.getNumber(counted.value) : 0;
    counted.value.dispose();
    return count;
  }

  /** The prelude's `finish`, with the ending functions when given: its text, or how the run ended. */
  private finishWith(...ending: QuickJSHandle[]): string | SandboxOutcome {
    const vm = this.vm as QuickJSContext;
    const finished = vm.callFunction(this.finishRun as QuickJSHandle, vm.undefined, ...ending);
    if (finished.error) return this.consumeError(finished.error);
    const text = vm.typeof(finished.value) === 'string' ? vm.getString(finished.value) : '';
    finished.value.dispose();
    return text;
  }

  /** Evaluate the ending functions (see `ENDING_SOURCE`) the first time a run needs them. */
  private endingFunctions(): NonNullable<ScriptRun['ending']> | SandboxOutcome {
    if (this.ending) return this.ending;
    const vm = this.vm as QuickJSContext;
    const factory = this.preludePart(ENDING_SOURCE);
    if ('kind' in factory) return factory;
    const maxChars = this.own(vm.newNumber(this.request.maxReturnChars));
    const made = vm.callFunction(factory, vm.undefined, this.captured as QuickJSHandle, maxChars);
    if (made.error) {
      made.error.dispose();
      return { kind: 'memory' };
    }
    const list = this.own(made.value);
    this.ending = { encodeReturn: this.own(vm.getProp(list, 0)), describeError: this.own(vm.getProp(list, 1)) };
    return this.ending;
  }

  /** Classify an exception (and dispose its handle): time, memory, or the script's error. */
  private consumeError(error: QuickJSHandle): SandboxOutcome {
    try {
      if (this.timedOut) return this.stopOutcome();
      this.release();
      return this.classify(this.describe(error));
    } finally {
      if (error.alive) error.dispose();
    }
  }

  /** Time, memory, or the script's error, from the error as the prelude described it. */
  private classify(described: DescribedError | undefined): SandboxOutcome {
    if (this.timedOut) return this.stopOutcome();
    // describeError catches everything a getter can throw; failing anyway means no memory.
    if (!described) return { kind: 'memory' };
    const { name, message, stack } = described;
    if (name === 'InternalError' && message === 'out of memory') return { kind: 'memory' };
    // When QuickJS runs out of memory making the error itself, it throws null instead: a null
    // thrown in a run that found its heap full is taken for that.
    if (name === 'Thrown value' && message === 'null' && this.module.heap.exhausted) return { kind: 'memory' };
    return { kind: 'threw', name, message, ...positionOf(stack) };
  }

  /** The error's name, message and stack, read through the prelude; `undefined` when that failed. */
  private describe(error: QuickJSHandle): DescribedError | undefined {
    const vm = this.vm as QuickJSContext;
    const ending = this.endingFunctions();
    if ('kind' in ending) return undefined;
    const described = vm.callFunction(ending.describeError, vm.undefined, error);
    if (described.error) {
      described.error.dispose();
      return undefined;
    }
    const text = vm.typeof(described.value) === 'string' ? vm.getString(described.value) : '';
    described.value.dispose();
    return parseDescribed(text);
  }

  private own<T extends QuickJSHandle>(handle: T): T {
    this.handles.push(handle);
    return handle;
  }

  /** Dispose everything the run made. False when the module failed doing so. */
  private dispose(): boolean {
    try {
      for (const handle of this.handles.reverse()) if (handle.alive) handle.dispose();
      this.handles.length = 0;
      this.vm?.dispose();
      this.runtime?.dispose();
      this.release();
      return true;
    } catch {
      return false;
    } finally {
      this.vm = undefined;
      this.runtime = undefined;
    }
  }
}

/** An error as the prelude's `describeError` writes it. */
interface DescribedError {
  name: string;
  message: string;
  stack: string;
}

/** Read what `describeError` wrote. */
function parseDescribed(text: string): DescribedError {
  try {
    const parsed = JSON.parse(text) as { name?: unknown; message?: unknown; stack?: unknown };
    return {
      name: typeof parsed.name === 'string' ? parsed.name : 'Error',
      message: typeof parsed.message === 'string' ? parsed.message : '',
      stack: typeof parsed.stack === 'string' ? parsed.stack : '',
    };
  } catch {
    return { name: 'Error', message: 'the error could not be read', stack: '' };
  }
}

/** A trap or abort of the WebAssembly module itself, or the host's stack running out inside it. */
function isModuleFailure(error: unknown): boolean {
  return error instanceof RangeError || (error instanceof Error && error.name === 'RuntimeError');
}
