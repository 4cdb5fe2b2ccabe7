/**
 * One script run, start to end: its set-up in a fresh QuickJS runtime and context, the loop that
 * runs the script's jobs a turn at a time, hands its calls out and its answers in and waits for
 * them, and its end, told as soon as it is known and followed by the disposal of everything it
 * made, however it ends. The run's parts each have a file of their own; this is the one place
 * that puts them in order.
 *
 * This runs inside a sandbox worker (`worker.ts`), beside the other runs that thread hosts. A
 * run computes only between its awaits: while it waits for answers it holds no thread, and
 * `await` hands the thread to the next run that has work.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from 'quickjs-emscripten';
import { messageOf } from '../../gate/message-of.js';
import { CallBridge } from './call-bridge.js';
import { prepareRuntime, startPrelude, type PreludeHelpers, type PreparedRuntime } from './prelude-loading.js';
import type { SandboxChannel, SandboxModule, SandboxOutcome, SandboxRequest, SandboxResult } from './run-contract.js';
import { RunDeadline } from './run-deadline.js';
import { OutcomeReader } from './run-outcome.js';
import { RunResources } from './run-resources.js';
import { SCRIPT_FILENAME, wrapInstrumented, wrapScript } from './script-wrapper.js';
import { ValueRecording } from './value-recording.js';

/**
 * The most promise jobs a run executes before it looks up: a script that awaits in a loop
 * (`for (;;) await null`) never runs out of jobs, and would otherwise hold the thread until its
 * deadline while other runs wait.
 */
const JOBS_PER_TURN = 1000;

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

/** A run whose script has started: what its loop works with. */
interface Started {
  runtime: QuickJSRuntime;
  reader: OutcomeReader;
  bridge: CallBridge;
  /** The script's promise. */
  promise: QuickJSHandle;
}

/** One run: the parts it joins, made in its set-up and used by its loop. */
class ScriptRun {
  private readonly deadline: RunDeadline;
  private readonly resources: RunResources;
  /** The run's calls, once its prelude has started. */
  private bridge: CallBridge | undefined;
  /** Set when the module failed on the host side; see {@link SandboxResult.moduleBroken}. */
  moduleBroken = false;
  /** How many calls the script made past `maxCalls`, read when it returned. */
  callsOverLimit = 0;

  constructor(
    private readonly module: SandboxModule,
    private readonly request: SandboxRequest,
    private readonly channel: SandboxChannel,
    private prepared?: PreparedRuntime,
  ) {
    this.deadline = new RunDeadline(request);
    this.resources = new RunResources(module, request.maxCallResultBytes);
  }

  inFlight(): { index: number; name: string }[] {
    return this.bridge?.inFlight() ?? [];
  }

  async execute(): Promise<SandboxOutcome> {
    let outcome: SandboxOutcome;
    try {
      const started = this.setUp();
      outcome = 'kind' in started ? started : await this.loop(started);
    } catch (error) {
      // A failure inside WebAssembly (an Emscripten abort, the host's stack running out): the
      // module's state is no longer trustworthy, so nothing in it is touched again (disposing
      // could abort it a second time). Anything else thrown here leaves the module sound.
      if (isModuleFailure(error)) this.moduleBroken = true;
      outcome = this.deadline.timedOut ? this.deadline.stopOutcome() : { kind: 'crashed', message: messageOf(error) };
    }
    this.deadline.idle();
    // Told before the disposal, which the caller's answer need not wait for.
    try {
      this.request.onOutcome?.(outcome, this.callsOverLimit);
    } finally {
      if (!this.moduleBroken && !this.resources.dispose()) this.moduleBroken = true;
    }
    return outcome;
  }

  /** Take the reserve, make the runtime, install `callTool` and the helpers, and start the script. */
  private setUp(): Started | SandboxOutcome {
    const { module, request, resources } = this;
    module.heap.exhausted = false;
    if (!resources.retake()) {
      // A fresh run always finds room: no room means the instance kept memory it should not have.
      this.moduleBroken = true;
      return { kind: 'crashed', message: 'the sandbox has no room for its reserve' };
    }
    const prepared = this.prepared ?? prepareRuntime(module);
    this.prepared = undefined;
    if (!prepared) return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
    const { runtime, vm } = prepared;
    resources.runtime = runtime;
    resources.vm = vm;
    runtime.setMemoryLimit(request.memoryLimitBytes);
    // Making a part of the prelude the script asked for is the host's time, as the set-up is.
    const helpers = startPrelude(resources, vm, prepared.prelude, request, prepared.parts, (ms) => this.deadline.exclude(ms));
    if ('kind' in helpers) return helpers;
    const reader = new OutcomeReader(resources, vm, this.deadline, helpers, request.maxReturnChars);
    let recording: ValueRecording | undefined;
    if (request.values !== undefined) {
      const installed = ValueRecording.install(resources, vm, reader, request.values, request.maxValues);
      if ('kind' in installed) return installed;
      recording = installed;
    }
    const bridge = new CallBridge(resources, vm, reader, helpers, request, this.channel, recording);
    this.bridge = bridge;

    this.deadline.begin(runtime);
    // `type: 'global'` so an `import` statement is a syntax error rather than a module load.
    const started =
      request.sites === undefined ? vm.evalCode(wrapScript(request.code), SCRIPT_FILENAME, { type: 'global' }) : startInstrumented(resources, vm, helpers, request.code, request.sites);
    // Evaluating the wrapper only compiles the script and starts it (an async function turns
    // what it throws into a rejection): an error here is a syntax error, never one of its runtime.
    if (started.error) {
      const outcome = reader.consumeError(started.error);
      return outcome.kind === 'threw' ? { ...outcome, compile: true } : outcome;
    }
    // Each take reads whether the script's promise has settled.
    const promise = resources.own(started.value);
    const first = bridge.take(promise);
    return typeof first === 'boolean' ? { runtime, reader, bridge, promise } : first;
  }

  /**
   * Run jobs, send calls, hand answers in, and wait for answers, until the script's promise
   * settles. Every `await` here hands the thread to the other runs on it.
   */
  private async loop({ runtime, reader, bridge, promise }: Started): Promise<SandboxOutcome> {
    const deadline = this.deadline;
    for (;;) {
      const full = bridge.deliver();
      if (full) return full;
      const jobs = runtime.executePendingJobs(JOBS_PER_TURN);
      if (jobs.error) return reader.consumeError(jobs.error);
      // A full turn may have left jobs behind; fewer means none is left.
      const fullTurn = jobs.value === JOBS_PER_TURN;
      jobs.dispose();
      const taken = bridge.take();
      if (typeof taken !== 'boolean') return taken;
      const unsent = bridge.send();
      if (unsent) return unsent;
      if (taken) {
        const outcome = reader.finish(promise);
        if (outcome.kind === 'returned') this.callsOverLimit = bridge.countOverLimit();
        return outcome;
      }

      if (deadline.timedOut || Date.now() > deadline.at()) return deadline.stopOutcome();
      if (bridge.hasAnswers()) continue;
      if (fullTurn && runtime.hasPendingJob()) {
        // A turn's worth of jobs is done and more wait: other runs that wait for the thread go first.
        const turn = this.channel.yieldTurn?.();
        if (turn !== undefined) {
          deadline.idle();
          await turn;
          deadline.resumed();
          if (deadline.stopped !== undefined) return deadline.stopOutcome();
        }
        continue;
      }
      // Pending with nothing in flight: only a call's answer can settle anything here (there
      // are no timers), so the script would wait forever.
      if (!bridge.awaitsAnswers()) return { kind: 'stalled' };
      deadline.idle();
      const answers = await this.channel.receive(Math.max(0, deadline.at() - Date.now()) + 1);
      // An abort that came while the run waited ends it here.
      deadline.resumed();
      // Checked before anything is delivered: an answer that arrives at the deadline (a call's
      // own time-out, say) must not let the script run on past it.
      if (deadline.stopped !== undefined || Date.now() > deadline.at()) return deadline.stopOutcome();
      bridge.arrived(answers);
    }
  }
}

/**
 * Start an instrumented script: the prelude makes its site functions, and its function (evaluated
 * as `wrapInstrumented` writes it) is called with them, so no name of the script reaches them.
 */
function startInstrumented(resources: RunResources, vm: QuickJSContext, helpers: PreludeHelpers, code: string, sites: string): VmCallResult<QuickJSHandle> {
  const makeSites = helpers.sites();
  if (makeSites.error) return makeSites;
  const kinds = resources.own(vm.newString(sites));
  const made = vm.callFunction(resources.own(makeSites.value), vm.undefined, kinds);
  if (made.error) return made;
  const functions = resources.own(made.value);
  const fn = vm.evalCode(wrapInstrumented(code), SCRIPT_FILENAME, { type: 'global' });
  if (fn.error) return fn;
  return vm.callFunction(resources.own(fn.value), vm.undefined, functions);
}

/** A trap or abort of the WebAssembly module itself, or the host's stack running out inside it. */
function isModuleFailure(error: unknown): boolean {
  return error instanceof RangeError || (error instanceof Error && error.name === 'RuntimeError');
}
