/**
 * The bridge between the script's calls and whoever answers them, so that `callTool` calls run
 * concurrently outside the VM: each turn the calls the script made are taken out of the sandbox
 * in one crossing, checked against the bounds on their arguments before anything leaves (a call
 * past one is answered here and never sent), and sent as one batch; the answers that arrived go
 * back in in one crossing. It also knows which calls are still in flight when the run ends.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { decodeCall, encodeAnswer, type EncodedCall, frame, unframe } from './boundary-codec.js';
import { argsTooLarge, type ScriptCallResult } from './call-result.js';
import type { PreludeHelpers } from './prelude-loading.js';
import type { SandboxAnswer, SandboxCall, SandboxChannel, SandboxLimits, SandboxOutcome } from './run-contract.js';
import type { OutcomeReader } from './run-outcome.js';
import type { RunResources } from './run-resources.js';
import type { ValueRecording } from './value-recording.js';

/** The calls of one run, between its script and its channel. */
export class CallBridge {
  /** The bytes of arguments the run's calls have sent so far. */
  private argsBytes = 0;
  /** The tool name of each call sent and not yet answered, by call index. */
  private readonly waiting = new Map<number, string>();
  /** Calls the script made that are not sent yet. */
  private outbox: SandboxCall[] = [];
  /** Answers that arrived and wait for the loop to hand them to the script. */
  private ready: SandboxAnswer[] = [];
  /** A call was answered here for a bound on the run's arguments since the last batch (see `SandboxChannel.send`). */
  private bounded = false;
  /** The script's promise, given with the first take. */
  private promise: QuickJSHandle | undefined;

  constructor(
    private readonly resources: RunResources,
    private readonly vm: QuickJSContext,
    private readonly reader: OutcomeReader,
    private readonly helpers: PreludeHelpers,
    private readonly limits: SandboxLimits,
    private readonly channel: SandboxChannel,
    /** Set in a run whose values are recorded: what the script drew goes out with its calls. */
    private readonly recording: ValueRecording | undefined,
  ) {}

  /** The calls in flight, by index and tool. */
  inFlight(): { index: number; name: string }[] {
    return [...this.waiting].map(([index, name]) => ({ index, name }));
  }

  /** Whether answers wait to be handed to the script. */
  hasAnswers(): boolean {
    return this.ready.length > 0;
  }

  /** Whether any call waits for its answer: with none, nothing can settle the script's promise. */
  awaitsAnswers(): boolean {
    return this.waiting.size > 0;
  }

  /** Keep answers that arrived, for the next delivery. */
  arrived(answers: SandboxAnswer[]): void {
    for (const answer of answers) this.ready.push(answer);
  }

  /**
   * Take the calls the script made since the last take: each is refused here when it is past a
   * bound on the bytes of its arguments (its answer then waits for the next delivery), else
   * queued to be sent. Gives whether the script's promise (given with the first take) has
   * settled, or how the run ended when the calls could not be read.
   */
  take(promise?: QuickJSHandle): boolean | SandboxOutcome {
    const vm = this.vm;
    if (promise) this.promise = promise;
    const calls = this.helpers.calls;
    if (calls !== undefined) {
      const taken = vm.callFunction(calls.takeCalls, vm.undefined);
      if (taken.error) return this.reader.consumeError(taken.error);
      // Reading the text copies it inside the sandbox first: the reserve makes room for that.
      this.resources.release();
      const text = vm.getString(taken.value);
      taken.value.dispose();
      if (!this.resources.retake()) return { kind: 'memory' };
      for (const request of unframe(text)) this.accept(decodeCall(request));
    }
    return settled(vm, this.promise!);
  }

  /** Send the calls taken and not sent yet, with the values drawn since the last batch when they are recorded. */
  send(): SandboxOutcome | undefined {
    // A bound answered here is told even with no call to send: the host must hear it before any call that follows it.
    if (this.outbox.length === 0 && !this.bounded) return undefined;
    const calls = this.outbox;
    const bounded = this.bounded;
    this.outbox = [];
    this.bounded = false;
    if (this.recording === undefined) {
      this.channel.send(calls, undefined, bounded || undefined);
    } else {
      const drawn = this.recording.drawn();
      if (drawn !== undefined && 'kind' in drawn) return drawn;
      this.channel.send(calls, drawn, bounded || undefined);
    }
    return undefined;
  }

  /**
   * Hand every answer that arrived to the script, writing into the reserve's room. When the
   * reserve cannot be taken back, the script has filled its heap: the run ends as out of memory.
   */
  deliver(): SandboxOutcome | undefined {
    if (this.ready.length === 0) return undefined;
    const vm = this.vm;
    const answers: string[] = [];
    for (const { index, result } of this.ready) {
      if (this.waiting.delete(index)) answers.push(`${index}:${encodeAnswer(result.text, result.error, result.value)}`);
    }
    this.ready = [];
    if (answers.length === 0) return undefined;
    this.resources.release();
    const framed = vm.newString(frame(answers));
    // Answers are only ever to calls, so the calls part is there.
    const delivered = vm.callFunction(this.helpers.calls!.deliverAnswers, vm.undefined, framed);
    framed.dispose();
    if (delivered.error) return this.reader.consumeError(delivered.error);
    delivered.value.dispose();
    return this.resources.retake() ? undefined : { kind: 'memory' };
  }

  /** How many calls the script made past `maxCalls` (0 when it cannot be read, or it made no call). */
  countOverLimit(): number {
    const vm = this.vm;
    const overLimit = this.helpers.calls?.overLimit;
    if (overLimit === undefined) return 0;
    const counted = vm.callFunction(overLimit, vm.undefined);
    if (counted.error) {
      counted.error.dispose();
      return 0;
    }
    const count = vm.typeof(counted.value) === 'number' ? vm.getNumber(counted.value) : 0;
    counted.value.dispose();
    return count;
  }

  /** Queue one call to be sent, or refuse it (its answer goes into the next delivery). */
  private accept(call: EncodedCall): void {
    const { index } = call;
    if (call.tooLong !== undefined) {
      // Args the prelude kept back: longer in units than a call may carry in bytes.
      this.ready.push({ index, result: argsTooLarge(call.tooLong, this.limits.maxCallArgsBytes, 'call') });
      this.bounded = true;
    } else {
      const bytes = call.args === null ? 0 : Buffer.byteLength(call.args);
      const tooLarge = this.argsRefusal(bytes);
      if (tooLarge) {
        this.ready.push({ index, result: tooLarge });
        this.bounded = true;
      } else {
        this.argsBytes += bytes;
        this.outbox.push({ index, mode: call.mode, name: call.name, args: call.args, ...(call.site !== undefined ? { site: call.site } : {}) });
      }
    }
    this.waiting.set(index, call.name);
  }

  /** The refusal for arguments of `bytes` (a lower bound, or the exact count), if they are past a bound. */
  private argsRefusal(bytes: number): ScriptCallResult | undefined {
    const { maxCallArgsBytes, maxRunArgsBytes } = this.limits;
    if (bytes > maxCallArgsBytes) return argsTooLarge(bytes, maxCallArgsBytes, 'call');
    if (this.argsBytes + bytes > maxRunArgsBytes) return argsTooLarge(this.argsBytes + bytes, maxRunArgsBytes, 'run');
    return undefined;
  }
}

/** Whether `promise` has settled (the host reads its state: the sandbox holds nothing for it). */
function settled(vm: QuickJSContext, promise: QuickJSHandle): boolean {
  const state = vm.getPromiseState(promise);
  if (state.type === 'pending') return false;
  // Its value comes as a handle of its own (the promise itself, for what is not a promise).
  const value = state.type === 'fulfilled' ? state.value : state.error;
  if (value !== promise) value.dispose();
  return true;
}
