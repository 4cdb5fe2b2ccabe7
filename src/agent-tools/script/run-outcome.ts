/**
 * How a run ended, read out of the sandbox: the settled script's answer, and any exception
 * classified as the time limit, memory, or the script's own error (with its position in the
 * script). Apart from the run's loop because every step of a run (its start, a
 * take of calls, a delivery of answers, a read of its values) can end in an exception, and each
 * is read the same way.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { ENDING_SOURCE } from './prelude-source.js';
import { loadPreludePart, type PreludeHelpers } from './prelude-loading.js';
import type { SandboxOutcome } from './run-contract.js';
import type { RunDeadline } from './run-deadline.js';
import type { RunResources } from './run-resources.js';
import { positionOf } from './script-wrapper.js';

/** The functions `ENDING_SOURCE` makes, once a run has needed them. */
interface EndingFunctions {
  encodeReturn: QuickJSHandle;
  describeError: QuickJSHandle;
}

/** Reads one run's outcome. */
export class OutcomeReader {
  /** The ending functions (see `ENDING_SOURCE`), once a run has needed them. */
  private ending: EndingFunctions | undefined;

  constructor(
    private readonly resources: RunResources,
    private readonly vm: QuickJSContext,
    private readonly deadline: RunDeadline,
    private readonly helpers: PreludeHelpers,
    private readonly maxReturnChars: number,
  ) {}

  /**
   * Read the script's outcome, once its promise has settled: a string, number, boolean, `null` or
   * `undefined` answer at once, anything else through the ending functions, which write it (or
   * describe the error it was rejected with) inside the sandbox.
   */
  finish(promise: QuickJSHandle): SandboxOutcome {
    const { resources, vm } = this;
    resources.release();
    const state = vm.getPromiseState(promise);
    if (state.type === 'pending') return { kind: 'crashed', message: 'the answer could not be read from the sandbox' };
    if (state.type === 'rejected') return this.classify(this.describe(resources.own(state.error)));
    // A value comes as a handle of its own (the promise itself, for what is not a promise).
    const value = state.value === promise ? promise : resources.own(state.value);
    const plain = this.plainAnswer(value);
    if (plain !== undefined) return plain;
    const ending = this.endingFunctions();
    if ('kind' in ending) return ending;
    const encoded = vm.callFunction(ending.encodeReturn, vm.undefined, value);
    if (encoded.error) return this.consumeError(encoded.error);
    const text = vm.typeof(encoded.value) === 'string' ? vm.getString(encoded.value) : '';
    encoded.value.dispose();
    const body = text.slice(1);
    switch (text[0]) {
      case 'O':
        return { kind: 'returned', text: body };
      case 'L':
        return { kind: 'return_too_large', length: Number(body) };
      case 'P':
        return { kind: 'return_pending' };
      case 'I':
        return body === 'out of memory' ? { kind: 'memory' } : { kind: 'return_invalid', reason: body };
      default:
        return { kind: 'crashed', message: 'the answer could not be read from the sandbox' };
    }
  }

  /**
   * A string, number, boolean, `null` or `undefined` answer, as the ending functions would write
   * it (a string as it is, anything else as JSON, `undefined` as `""`), read without them; a
   * string's length is checked before it is copied out. `undefined` for any other answer.
   */
  private plainAnswer(value: QuickJSHandle): SandboxOutcome | undefined {
    const vm = this.vm;
    let text: string;
    switch (vm.typeof(value)) {
      case 'undefined':
        return { kind: 'returned', text: '' };
      case 'string': {
        const length = this.resources.own(vm.getProp(value, 'length'));
        const chars = vm.getNumber(length);
        if (chars > this.maxReturnChars) return { kind: 'return_too_large', length: chars };
        return { kind: 'returned', text: vm.getString(value) };
      }
      case 'number':
        // The host's JSON writes a number as QuickJS's does (both follow the standard's Number::toString).
        text = JSON.stringify(vm.getNumber(value));
        break;
      case 'boolean':
        text = vm.sameValue(value, vm.true) ? 'true' : 'false';
        break;
      case 'object':
        if (!vm.sameValue(value, vm.null)) return undefined;
        text = 'null';
        break;
      default:
        return undefined;
    }
    return text.length > this.maxReturnChars ? { kind: 'return_too_large', length: text.length } : { kind: 'returned', text };
  }

  /** Classify an exception (and dispose its handle): time, memory, or the script's error. */
  consumeError(error: QuickJSHandle): SandboxOutcome {
    try {
      if (this.deadline.timedOut) return this.deadline.stopOutcome();
      this.resources.release();
      return this.classify(this.describe(error));
    } finally {
      if (error.alive) error.dispose();
    }
  }

  /** Evaluate the ending functions (see `ENDING_SOURCE`) the first time a run needs them. */
  private endingFunctions(): EndingFunctions | SandboxOutcome {
    if (this.ending) return this.ending;
    const { resources, vm } = this;
    const factory = loadPreludePart(resources, vm, ENDING_SOURCE);
    if ('kind' in factory) return factory;
    const maxChars = resources.own(vm.newNumber(this.maxReturnChars));
    const made = vm.callFunction(factory, vm.undefined, this.helpers.intrinsics, maxChars);
    if (made.error) {
      made.error.dispose();
      return { kind: 'memory' };
    }
    const list = resources.own(made.value);
    this.ending = { encodeReturn: resources.own(vm.getProp(list, 0)), describeError: resources.own(vm.getProp(list, 1)) };
    return this.ending;
  }

  /** Time, memory, or the script's error, from the error as the prelude described it. */
  private classify(described: DescribedError | undefined): SandboxOutcome {
    if (this.deadline.timedOut) return this.deadline.stopOutcome();
    // describeError catches everything a getter can throw; failing anyway means no memory.
    if (!described) return { kind: 'memory' };
    const { name, message, stack } = described;
    if (name === 'InternalError' && message === 'out of memory') return { kind: 'memory' };
    // When QuickJS runs out of memory making the error itself, it throws null instead: a null
    // thrown in a run that found its heap full is taken for that.
    if (name === 'Thrown value' && message === 'null' && this.resources.module.heap.exhausted) return { kind: 'memory' };
    return { kind: 'threw', name, message, ...positionOf(stack) };
  }

  /** The error's name, message and stack, read through the ending functions; `undefined` when that failed. */
  private describe(error: QuickJSHandle): DescribedError | undefined {
    const vm = this.vm;
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
}

/** An error as the ending functions' `describeError` writes it. */
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
