/**
 * The prelude on the host's side: evaluated in a fresh runtime ahead of a run (most of what a run
 * costs before its script's first instruction, done while the thread has nothing else to do),
 * started with the run's bounds once a run takes the runtime, and its later parts evaluated only
 * for a run that needs them, since every source costs its parse: a part of the calls when the
 * script first uses a global that needs it (the sandbox asks for it through a host function),
 * the ending functions when the answer is not plain.
 */
import { performance } from 'node:perf_hooks';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from 'quickjs-emscripten';
import { encodeAnswer } from './boundary-codec.js';
import { tooManyCalls } from './call-result.js';
import { CALLS_PART, PART_SOURCES, PRELUDE_FILENAME, PRELUDE_SOURCE, SITES_PART, VALUES_PART } from './prelude-source.js';
import type { SandboxLimits, SandboxModule, SandboxOutcome } from './run-contract.js';
import type { RunResources } from './run-resources.js';

/**
 * The sandbox's stack. QuickJS's frames sit on the host's own stack inside WebAssembly, so a
 * deep recursion must stop (as a catchable `RangeError` in the script) well before Node's stack
 * does; 256 KB leaves room under a Node thread's stack (about 1 MB on the main thread, 4 MB in
 * a worker).
 */
const MAX_STACK_BYTES = 256 * 1024;

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
  /** The functions of the first parts (see `PART_SOURCES`), when they were compiled ahead too. */
  parts?: QuickJSHandle[];
}

/**
 * Prepare a runtime in `module` for the next run; `undefined` when the prelude failed. Throws
 * what the module throws (a failure of the module itself, which the caller must not use again).
 */
export function prepareRuntime(module: SandboxModule): PreparedRuntime | undefined {
  const runtime = module.quickjs.newRuntime();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  const vm = runtime.newContext();
  const prelude = evalPrelude(vm, PRELUDE_SOURCE);
  if (prelude.error) {
    prelude.error.dispose();
    vm.dispose();
    runtime.dispose();
    return undefined;
  }
  return { runtime, vm, prelude: prelude.value };
}

/** The parts compiled ahead when there is time: those a script that calls a tool needs. */
const PARTS_AHEAD = [CALLS_PART, VALUES_PART];

/**
 * Compile the parts a script that calls a tool needs into a prepared runtime, so such a script
 * does not compile them; false when one failed (the runtime is then unusable). Throws what the
 * module throws.
 */
export function compilePartsAhead(prepared: PreparedRuntime): boolean {
  const parts: QuickJSHandle[] = [];
  for (const part of PARTS_AHEAD) {
    const evaluated = evalPrelude(prepared.vm, PART_SOURCES[part]);
    if (evaluated.error) {
      evaluated.error.dispose();
      for (const handle of parts) handle.dispose();
      return false;
    }
    parts.push(evaluated.value);
  }
  prepared.parts = parts;
  return true;
}

/** Let go of a prepared runtime no run took. */
export function disposePrepared(prepared: PreparedRuntime): void {
  try {
    for (const part of prepared.parts ?? []) part.dispose();
    prepared.prelude.dispose();
    prepared.vm.dispose();
    prepared.runtime.dispose();
  } catch {
    // Its instance goes with it.
  }
}

/** The calls part's functions the host calls (see `CALLS_SOURCE`), each owned by the run. */
export interface CallsHelpers {
  /** `take`: the calls made since the last take. */
  takeCalls: QuickJSHandle;
  /** `deliver`: hands answers to the script's calls. */
  deliverAnswers: QuickJSHandle;
  /** `overLimit`: how many calls were past `maxCalls`. */
  overLimit: QuickJSHandle;
}

/**
 * What the started prelude hands the host (see `PRELUDE_SOURCE`), each owned by the run, and the
 * parts made for the run, each the first time the script (or, for the sites, the host) needs it.
 */
export class PreludeHelpers {
  /** The intrinsics the prelude captured, for the parts and the ending functions. */
  readonly intrinsics: QuickJSHandle;
  /** The prelude's `part`: the way the host asks for a part, so the prelude knows it too. */
  private readonly part: QuickJSHandle;
  /** The parts made, by number. */
  private readonly parts: QuickJSHandle[] = [];
  /** The calls part's functions, once it is made: with none, the script made no call. */
  calls: CallsHelpers | undefined;

  constructor(
    private readonly resources: RunResources,
    private readonly vm: QuickJSContext,
    list: QuickJSHandle,
    private readonly limits: SandboxLimits,
    /** The functions of the parts compiled ahead (owned by the run already). */
    private readonly compiled: QuickJSHandle[],
  ) {
    this.intrinsics = resources.own(vm.getProp(list, 0));
    this.part = resources.own(vm.getProp(list, 1));
  }

  /** The sites function of an instrumented script (see `SITES_SOURCE`), made through the prelude. */
  sites(): VmCallResult<QuickJSHandle> {
    const vm = this.vm;
    return vm.callFunction(this.part, vm.undefined, this.resources.own(vm.newNumber(SITES_PART)));
  }

  /**
   * Part `n`, made now if it was not (with the parts before it), the prelude's `load`; the error
   * that stopped it when it could not be made.
   */
  load(n: number): QuickJSHandle | { error: QuickJSHandle } {
    const made = this.parts[n];
    if (made !== undefined) return made;
    const { resources, vm, limits } = this;
    const args = [this.intrinsics];
    if (n === CALLS_PART) {
      const tooMany = tooManyCalls(limits.maxCalls);
      args.push(resources.own(vm.newNumber(limits.maxCallArgsBytes)), resources.own(vm.newNumber(limits.maxCalls)));
      args.push(resources.own(vm.newString(encodeAnswer(tooMany.text, tooMany.error))));
    } else {
      for (let before = 0; before < n; before++) {
        const part = this.load(before);
        if ('error' in part) return part;
        args.push(part);
      }
    }
    let factory = this.compiled[n];
    if (factory === undefined) {
      const evaluated = evalPrelude(vm, PART_SOURCES[n]);
      if (evaluated.error) return evaluated;
      factory = resources.own(evaluated.value);
    }
    const called = vm.callFunction(factory, vm.undefined, ...args);
    if (called.error) return called;
    const part = resources.own(called.value);
    this.parts[n] = part;
    if (n === CALLS_PART) {
      const helper = (name: string): QuickJSHandle => resources.own(vm.getProp(part, name));
      this.calls = { takeCalls: helper('take'), deliverAnswers: helper('deliver'), overLimit: helper('overLimit') };
    }
    return part;
  }
}

/**
 * Call the prelude's function with the run's bounds: it installs `callTool` and the other globals,
 * and hands back the helpers; how the run ended when it failed. `parts` are the functions of the
 * parts compiled ahead, if any; `hostTime` is told how long each part took to make, in
 * milliseconds, time the script spent waiting for the host rather than computing.
 */
export function startPrelude(
  resources: RunResources,
  vm: QuickJSContext,
  prelude: QuickJSHandle,
  limits: SandboxLimits,
  parts: QuickJSHandle[] = [],
  hostTime?: (ms: number) => void,
): PreludeHelpers | SandboxOutcome {
  const preludeFn = resources.own(prelude);
  for (const part of parts) resources.own(part);
  let helpers: PreludeHelpers | undefined;
  // The prelude's `load`, called inside the script the first time it needs a part. The handle
  // returned is the library's to dispose, so it is a copy; the part stays the run's.
  const load = resources.own(
    vm.newFunction('load', (n) => {
      const start = performance.now();
      const made = helpers!.load(vm.getNumber(n));
      hostTime?.(performance.now() - start);
      return 'error' in made ? made : made.dup();
    }),
  );
  const started = vm.callFunction(preludeFn, vm.undefined, load);
  if (started.error) {
    started.error.dispose();
    return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
  }
  helpers = new PreludeHelpers(resources, vm, resources.own(started.value), limits, parts);
  return helpers;
}

/** Evaluate a part of the prelude loaded only when a run needs it: its factory function, owned by the run, or how the run ended. */
export function loadPreludePart(resources: RunResources, vm: QuickJSContext, source: string): QuickJSHandle | SandboxOutcome {
  const evaluated = evalPrelude(vm, source);
  if (evaluated.error) {
    evaluated.error.dispose();
    return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
  }
  return resources.own(evaluated.value);
}

/** Evaluate prelude source in `vm`, under the prelude's file name (so its frames are never taken for the script's). */
function evalPrelude(vm: QuickJSContext, source: string): VmCallResult<QuickJSHandle> {
  return vm.evalCode(source, PRELUDE_FILENAME, { type: 'global', strict: true });
}
