/**
 * The host's side of recording a run that may pause: `Math.random` and the clock are put over
 * values the host gives and records (see `RECORDING_SOURCE`), and what the script drew is read
 * with each batch of its calls, so every value a call could depend on reaches the host before
 * the call does. A replay then hands the same values back and the script takes the same path.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { RECORDING_SOURCE } from './recording-source.js';
import { loadPreludePart } from './prelude-loading.js';
import type { SandboxOutcome } from './run-contract.js';
import type { OutcomeReader } from './run-outcome.js';
import type { RunResources } from './run-resources.js';
import type { SandboxValues } from '../../runs/journal.js';

/** The recording of one run's values. */
export class ValueRecording {
  private constructor(
    private readonly resources: RunResources,
    private readonly vm: QuickJSContext,
    private readonly reader: OutcomeReader,
    /** The recording's `drawn` (see `RECORDING_SOURCE`). */
    private readonly drawnValues: QuickJSHandle,
  ) {}

  /**
   * Put the recording over `Math.random` and the clock, with `values` handed back first and at
   * most `maxValues` of each kind recorded; how the run ended when that failed.
   */
  static install(resources: RunResources, vm: QuickJSContext, reader: OutcomeReader, values: SandboxValues, maxValues: number | undefined): ValueRecording | SandboxOutcome {
    const factory = loadPreludePart(resources, vm, RECORDING_SOURCE);
    if ('kind' in factory) return factory;
    const given = resources.own(vm.newString(JSON.stringify([values.random, values.clock])));
    const cap = resources.own(vm.newNumber(maxValues ?? 0));
    const made = vm.callFunction(factory, vm.undefined, given, cap);
    if (made.error) {
      made.error.dispose();
      return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
    }
    return new ValueRecording(resources, vm, reader, resources.own(made.value));
  }

  /** The values the script drew since the last batch, if any; how the run ended when they could not be read. */
  drawn(): SandboxValues | SandboxOutcome | undefined {
    const vm = this.vm;
    this.resources.release();
    const drawn = vm.callFunction(this.drawnValues, vm.undefined);
    if (drawn.error) {
      this.resources.retake();
      return this.reader.consumeError(drawn.error);
    }
    const text = vm.typeof(drawn.value) === 'string' ? vm.getString(drawn.value) : '';
    drawn.value.dispose();
    if (!this.resources.retake()) return { kind: 'memory' };
    if (text === '') return undefined;
    try {
      const [random, clock] = JSON.parse(text) as [number[], number[]];
      return { random, clock };
    } catch {
      return undefined;
    }
  }
}
