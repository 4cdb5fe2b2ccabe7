/**
 * One script run in a fresh QuickJS runtime: the memory limit, the time limit (an interrupt
 * handler for CPU loops, a timer for waiting), the bridge that lets `callTool` calls run
 * concurrently outside the VM, and the disposal of every handle when the run ends, however it ends.
 *
 * This runs inside a sandbox worker (`sandbox-worker.ts`). Its own time checks end the common
 * cases (a plain loop, a wait past the limit) cleanly, so the worker can be reused; the host
 * still terminates the worker at the deadline, since QuickJS checks its interrupt handler only
 * every so many operations and one large built-in call (`"x".repeat(1e6)`) counts as one.
 *
 * Only strings cross the boundary: a call's name and JSON args go out, a call's JSON answer, the
 * script's encoded answer and its described error come in. No host object is ever handed in.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { messageOf } from '../../gate/step-gate.js';
import { refusedCall, type ScriptCallResult } from './call-result.js';
import { PRELUDE_FILENAME, PRELUDE_SOURCE, SCRIPT_FILENAME, WRAPPER_LINES_BEFORE, wrapScript } from './prelude.js';

/**
 * The sandbox's stack. QuickJS's frames sit on the host's own stack inside WebAssembly, so a
 * deep recursion must stop (as a catchable `RangeError` in the script) well before Node's stack
 * does; 256 KB leaves room under a Node thread's stack (about 1 MB on the main thread, 4 MB in
 * a worker).
 */
const MAX_STACK_BYTES = 256 * 1024;

/**
 * The reserve the prelude holds for the host (see `PRELUDE_SOURCE`): room to write a call's
 * answer into the sandbox, and to read the script's error or answer, even when the script has
 * filled its heap. It covers the largest answer (48 KB of text, at most six JSON characters
 * each, then copied into a string) with room to spare. The module's memory cap adds it on top
 * of the script's own limit.
 */
export const SANDBOX_RESERVE_BYTES = 1024 * 1024;

/** The longest `setTimeout` Node accepts; longer waits are re-armed by the loop. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The part of a QuickJS module a run needs (a test can pass a leak-checking wrapper). */
export type SandboxModule = Pick<QuickJSWASMModule, 'newRuntime'>;

/** One `callTool` call, as the host handler gets it. */
export interface SandboxCall {
  /** 1 for the run's first call, 2 for the next, in the order the script made them. */
  index: number;
  /** The tool's name. */
  name: string;
  /** The arguments; `null` when the script passed something that is not a plain JSON object. */
  args: Record<string, unknown> | null;
}

/**
 * Runs one call outside the VM. Its answer is delivered to the script when the run next has the
 * sandbox's attention; after the run ends it is ignored.
 */
export type SandboxCallHandler = (call: SandboxCall) => Promise<ScriptCallResult>;

/** What one run needs. */
export interface SandboxRequest {
  /** The script: the body of an async function. */
  code: string;
  /**
   * The time limit from the script's start, in milliseconds. Read at every check rather than once,
   * because the host stretches it (a slow tool was called) from another thread while this runs.
   */
  timeLimitMs: () => number;
  /** Told the time (`Date.now()`) the script starts at, which its limit counts from. */
  onStart?: (at: number) => void;
  /** The heap limit, in bytes. */
  memoryLimitBytes: number;
  /** The longest answer, in characters. */
  maxReturnChars: number;
}

/** How a run ended. */
export type SandboxOutcome =
  | { kind: 'returned'; text: string }
  | { kind: 'threw'; name: string; message: string; line?: number }
  | { kind: 'stalled' }
  | { kind: 'timeout' }
  | { kind: 'memory' }
  | { kind: 'return_too_large'; length: number }
  | { kind: 'return_invalid'; reason: string }
  | { kind: 'crashed'; message: string };

/** A run's outcome and the time limit it ended with (stretched, when a slow tool was called). */
export interface SandboxResult {
  /** How the run ended. */
  outcome: SandboxOutcome;
  /** The run's limit in milliseconds from the script's start, as it stood when the run ended. */
  timeLimitMs: number;
  /** The calls still in flight when the run ended, by index and tool; their answers are ignored. */
  abandoned: { index: number; name: string }[];
  /** The module failed on the host side and must be dropped. */
  moduleBroken: boolean;
}

/**
 * Run one script in a new runtime of `module`. Never throws: every way a run can end is a
 * {@link SandboxOutcome}, and the runtime, the context and every handle are disposed before this
 * resolves; `moduleBroken` says the module failed on the host side (an Emscripten abort, a host
 * stack overflow inside WebAssembly), was left as it was, and must not be used again.
 */
export async function runScript(
  module: SandboxModule,
  request: SandboxRequest,
  onCall: SandboxCallHandler,
): Promise<SandboxResult> {
  const run = new ScriptRun(request, onCall);
  const outcome = await run.execute(module);
  return { outcome, timeLimitMs: run.timeLimitMs(), abandoned: run.inFlight(), moduleBroken: run.moduleBroken };
}

/** The state of one run. A class so the VM callbacks and the loop share it without closures everywhere. */
class ScriptRun {
  /** When the script started: its limit counts from here, not from the runtime's set-up. */
  private start = Date.now();
  private timedOut = false;
  private closed = false;
  /** Set when the module failed on the host side; see {@link SandboxResult.moduleBroken}. */
  moduleBroken = false;
  private callCount = 0;
  private runtime: QuickJSRuntime | undefined;
  private vm: QuickJSContext | undefined;
  /** Handles owned by the run, disposed in reverse order at the end. */
  private readonly handles: QuickJSHandle[] = [];
  /** Each call's tool name, by call index. */
  private readonly names = new Map<number, string>();
  /** The promise each call in flight returned to the script, by call index. */
  private readonly deferreds = new Map<number, QuickJSDeferredPromise>();
  /** Answers that arrived and wait for the loop to hand them to the script. */
  private readonly ready: { index: number; answer: string }[] = [];
  private wake: (() => void) | undefined;
  private describeError: QuickJSHandle | undefined;
  private encodeReturn: QuickJSHandle | undefined;
  private releaseReserve: QuickJSHandle | undefined;
  private restoreReserve: QuickJSHandle | undefined;

  constructor(
    private readonly request: SandboxRequest,
    private readonly onCall: SandboxCallHandler,
  ) {}

  timeLimitMs(): number {
    return this.request.timeLimitMs();
  }

  /** The run's deadline as it stands now (`Date.now()` time). */
  private deadline(): number {
    return this.start + this.request.timeLimitMs();
  }

  inFlight(): { index: number; name: string }[] {
    return [...this.deferreds.keys()].map((index) => ({ index, name: this.names.get(index) ?? '' }));
  }

  async execute(module: SandboxModule): Promise<SandboxOutcome> {
    try {
      const answer = this.setUp(module);
      if ('kind' in answer) return answer;
      return await this.loop(answer.promise);
    } catch (error) {
      // A failure inside WebAssembly (an Emscripten abort, the host's stack running out): the
      // module's state is no longer trustworthy, so nothing in it is touched again (disposing
      // could abort it a second time). Anything else thrown here leaves the module sound.
      if (isModuleFailure(error)) this.moduleBroken = true;
      if (this.timedOut) return { kind: 'timeout' };
      return { kind: 'crashed', message: messageOf(error) };
    } finally {
      this.closed = true;
      this.wake = undefined;
      if (!this.moduleBroken && !this.dispose()) this.moduleBroken = true;
    }
  }

  /** Make the runtime, install `callTool` and the helpers, and start the script. */
  private setUp(module: SandboxModule): { promise: QuickJSHandle } | SandboxOutcome {
    const runtime = module.newRuntime();
    this.runtime = runtime;
    runtime.setMemoryLimit(this.request.memoryLimitBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const vm = runtime.newContext();
    this.vm = vm;

    const hostCall = this.own(vm.newFunction('callTool', (name, args) => this.startCall(name, args)));
    const prelude = vm.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME, { type: 'global', strict: true });
    if (prelude.error) {
      prelude.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
    }
    const preludeFn = this.own(prelude.value);
    const maxChars = this.own(vm.newNumber(this.request.maxReturnChars));
    const reserve = this.own(vm.newNumber(SANDBOX_RESERVE_BYTES));
    const helpers = vm.callFunction(preludeFn, vm.undefined, hostCall, maxChars, reserve);
    if (helpers.error) {
      helpers.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
    }
    const list = this.own(helpers.value);
    this.describeError = this.own(vm.getProp(list, 0));
    this.encodeReturn = this.own(vm.getProp(list, 1));
    this.releaseReserve = this.own(vm.getProp(list, 2));
    this.restoreReserve = this.own(vm.getProp(list, 3));

    // The clock starts with the script: the set-up above is the host's time, and on a busy
    // machine it could otherwise eat a short limit (or be cut off by it) before the script runs.
    this.start = Date.now();
    this.request.onStart?.(this.start);
    runtime.setInterruptHandler(() => {
      if (Date.now() > this.deadline()) this.timedOut = true;
      return this.timedOut;
    });
    // `type: 'global'` so an `import` statement is a syntax error rather than a module load.
    const started = vm.evalCode(wrapScript(this.request.code), SCRIPT_FILENAME, { type: 'global' });
    if (started.error) return this.consumeError(started.error);
    return { promise: this.own(started.value) };
  }

  /** Run jobs, hand answers in, and wait for the host, until the script's promise settles. */
  private async loop(promise: QuickJSHandle): Promise<SandboxOutcome> {
    const runtime = this.runtime as QuickJSRuntime;
    const vm = this.vm as QuickJSContext;
    for (;;) {
      const full = this.deliver();
      if (full) return full;
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return this.consumeError(jobs.error);
      jobs.dispose();

      const state = vm.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        if (state.notAPromise) return this.encode(state.value);
        const value = state.value;
        try {
          return this.encode(value);
        } finally {
          value.dispose();
        }
      }
      if (state.type === 'rejected') return this.consumeError(state.error);

      if (this.timedOut || Date.now() > this.deadline()) return { kind: 'timeout' };
      if (this.ready.length > 0) continue;
      // Pending with nothing in flight: only a call's answer can settle anything here (there
      // are no timers), so the script would wait forever.
      if (this.deferreds.size === 0 && !runtime.hasPendingJob()) return { kind: 'stalled' };
      await this.waitForWork();
      // Checked before anything is delivered: an answer that arrives at the deadline (a call's
      // own time-out, say) must not let the script run on past it.
      if (Date.now() > this.deadline()) return { kind: 'timeout' };
    }
  }

  /** The host side of `callTool`: start the call, hand the script a promise for its answer. */
  private startCall(nameHandle: QuickJSHandle | undefined, argsHandle: QuickJSHandle | undefined): QuickJSHandle {
    const vm = this.vm as QuickJSContext;
    const index = ++this.callCount;
    const name = nameHandle && vm.typeof(nameHandle) === 'string' ? vm.getString(nameHandle) : '';
    let args: Record<string, unknown> | null = null;
    if (argsHandle && vm.typeof(argsHandle) === 'string') {
      try {
        const parsed: unknown = JSON.parse(vm.getString(argsHandle));
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
          args = parsed as Record<string, unknown>;
        }
      } catch {
        args = null;
      }
    }
    const deferred = vm.newPromise();
    this.deferreds.set(index, deferred);
    this.names.set(index, name);
    // Started on a microtask, so every call the script makes before its next await starts together.
    void Promise.resolve()
      .then(() => this.onCall({ index, name, args }))
      .catch((error: unknown) => refusedCall('step_threw', `The call failed on the host: ${messageOf(error)}`))
      .then((result) => {
        if (this.closed) return;
        this.ready.push({ index, answer: JSON.stringify(result) });
        this.wake?.();
      });
    // The library takes this handle over (it returns a copy to the VM); `deferred.resolve` stays valid.
    return deferred.handle;
  }

  /**
   * Hand every answer that arrived to the script (as JSON text its `callTool` parses), writing
   * into the reserve's room. When the reserve cannot be taken back, the script has filled its
   * heap: the run ends as out of memory.
   */
  private deliver(): SandboxOutcome | undefined {
    if (this.ready.length === 0) return undefined;
    const vm = this.vm as QuickJSContext;
    this.release();
    while (this.ready.length > 0) {
      const { index, answer } = this.ready.shift() as { index: number; answer: string };
      const deferred = this.deferreds.get(index);
      this.deferreds.delete(index);
      if (!deferred) continue;
      const text = vm.newString(answer);
      try {
        deferred.resolve(text);
      } finally {
        text.dispose();
        deferred.dispose();
      }
    }
    const restored = vm.callFunction(this.restoreReserve as QuickJSHandle, vm.undefined);
    if (restored.error) return this.consumeError(restored.error);
    const ok = vm.typeof(restored.value) === 'boolean' && vm.dump(restored.value) === true;
    restored.value.dispose();
    return ok ? undefined : { kind: 'memory' };
  }

  /** Free the reserve (see {@link SANDBOX_RESERVE_BYTES}); at the end of a run it is not taken back. */
  private release(): void {
    const vm = this.vm as QuickJSContext;
    const released = vm.callFunction(this.releaseReserve as QuickJSHandle, vm.undefined);
    if (released.error) released.error.dispose();
    else released.value.dispose();
  }

  /**
   * Wait for an answer or the deadline, whichever is first; no timer outlives it. When the host
   * stretches the limit meanwhile, the timer fires early and the loop simply waits again.
   */
  private waitForWork(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.min(MAX_TIMER_MS, Math.max(0, this.deadline() - Date.now()) + 1));
      this.wake = done;
    });
  }

  /** Read the script's answer through the prelude's `encodeReturn`. */
  private encode(value: QuickJSHandle): SandboxOutcome {
    const vm = this.vm as QuickJSContext;
    this.release();
    const encoded = vm.callFunction(this.encodeReturn as QuickJSHandle, vm.undefined, value);
    if (encoded.error) return this.consumeError(encoded.error);
    const text = vm.typeof(encoded.value) === 'string' ? vm.getString(encoded.value) : '';
    encoded.value.dispose();
    const body = text.slice(1);
    switch (text[0]) {
      case 'O':
        return { kind: 'returned', text: body };
      case 'L':
        return { kind: 'return_too_large', length: Number(body) };
      case 'I':
        return body === 'out of memory' ? { kind: 'memory' } : { kind: 'return_invalid', reason: body };
      default:
        return { kind: 'crashed', message: 'the answer could not be read from the sandbox' };
    }
  }

  /** Classify an exception (and dispose its handle): time, memory, or the script's error. */
  private consumeError(error: QuickJSHandle): SandboxOutcome {
    try {
      if (this.timedOut) return { kind: 'timeout' };
      this.release();
      const described = this.describe(error);
      if (this.timedOut) return { kind: 'timeout' };
      // describeError catches everything a getter can throw; failing anyway means no memory.
      if (!described) return { kind: 'memory' };
      const { name, message, stack } = described;
      if (name === 'InternalError' && message === 'out of memory') return { kind: 'memory' };
      const line = lineOf(stack, this.request.code);
      return { kind: 'threw', name, message, ...(line !== undefined ? { line } : {}) };
    } finally {
      if (error.alive) error.dispose();
    }
  }

  /** The error's name, message and stack, read through the prelude; `undefined` when that failed. */
  private describe(error: QuickJSHandle): { name: string; message: string; stack: string } | undefined {
    const vm = this.vm as QuickJSContext;
    const described = vm.callFunction(this.describeError as QuickJSHandle, vm.undefined, error);
    if (described.error) {
      described.error.dispose();
      return undefined;
    }
    const text = vm.typeof(described.value) === 'string' ? vm.getString(described.value) : '';
    described.value.dispose();
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

  private own<T extends QuickJSHandle>(handle: T): T {
    this.handles.push(handle);
    return handle;
  }

  /** Dispose everything the run made. False when the module failed doing so. */
  private dispose(): boolean {
    try {
      for (const deferred of this.deferreds.values()) deferred.dispose();
      for (const handle of this.handles.reverse()) if (handle.alive) handle.dispose();
      this.handles.length = 0;
      this.vm?.dispose();
      this.runtime?.dispose();
      return true;
    } catch {
      return false;
    } finally {
      // Keep the in-flight indexes for the report; drop the VM objects.
      this.vm = undefined;
      this.runtime = undefined;
    }
  }
}

/** A trap or abort of the WebAssembly module itself, or the host's stack running out inside it. */
function isModuleFailure(error: unknown): boolean {
  return error instanceof RangeError || (error instanceof Error && error.name === 'RuntimeError');
}

/**
 * The script's line from a QuickJS stack (`at f (run_js.js:LINE:COL)`): the first frame in the
 * script's file, minus the wrapper's line, clamped to the script (a syntax error found at the
 * closing wrapper line belongs to the script's last line).
 */
function lineOf(stack: string, code: string): number | undefined {
  const match = new RegExp(`${SCRIPT_FILENAME.replace(/\./g, '\\.')}:(\\d+)`).exec(stack);
  if (!match) return undefined;
  const line = Number(match[1]) - WRAPPER_LINES_BEFORE;
  if (!(line >= 1)) return undefined;
  const lines = code.split('\n').length;
  return Math.min(line, lines);
}
