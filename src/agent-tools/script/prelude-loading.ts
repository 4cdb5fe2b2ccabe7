/**
 * The prelude on the host's side: evaluated in a fresh runtime ahead of a run (most of what a run
 * costs before its script's first instruction, done while the thread has nothing else to do),
 * started with the run's bounds once a run takes the runtime, and its later parts evaluated only
 * for a run that needs them, since every source costs its parse.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { encodeAnswer } from './boundary-codec.js';
import { tooManyCalls } from './call-result.js';
import { PRELUDE_FILENAME, PRELUDE_SOURCE } from './prelude-source.js';
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

/** The functions the started prelude hands the host (see `PRELUDE_SOURCE`), each owned by the run. */
export interface PreludeHelpers {
  /** `take`: the calls made since the last take, and whether the script's promise has settled. */
  takeCalls: QuickJSHandle;
  /** `deliver`: hands answers to the script's calls. */
  deliverAnswers: QuickJSHandle;
  /** `finish`: the settled script's outcome. */
  finishRun: QuickJSHandle;
  /** The intrinsics the prelude captured, for the ending functions. */
  captured: QuickJSHandle;
  /** `overLimit`: how many calls were past `maxCalls`. */
  overLimit: QuickJSHandle;
  /** `sites`: the functions an instrumented script's call sites call. */
  sites: QuickJSHandle;
}

/**
 * Call the prelude's function with the run's bounds: it installs `callTool` and the other globals,
 * and hands back the helpers; how the run ended when it failed.
 */
export function startPrelude(resources: RunResources, vm: QuickJSContext, prelude: QuickJSHandle, limits: SandboxLimits): PreludeHelpers | SandboxOutcome {
  const preludeFn = resources.own(prelude);
  const { maxReturnChars, maxCallArgsBytes, maxCalls } = limits;
  const args = [maxReturnChars, maxCallArgsBytes, maxCalls].map((n) => resources.own(vm.newNumber(n)));
  const tooMany = tooManyCalls(maxCalls);
  args.push(resources.own(vm.newString(encodeAnswer(tooMany.text, tooMany.error))));
  const helpers = vm.callFunction(preludeFn, vm.undefined, ...args);
  if (helpers.error) {
    helpers.error.dispose();
    return { kind: 'crashed', message: 'the sandbox prelude failed to start' };
  }
  const list = resources.own(helpers.value);
  return {
    takeCalls: resources.own(vm.getProp(list, 0)),
    deliverAnswers: resources.own(vm.getProp(list, 1)),
    finishRun: resources.own(vm.getProp(list, 2)),
    captured: resources.own(vm.getProp(list, 3)),
    overLimit: resources.own(vm.getProp(list, 4)),
    sites: resources.own(vm.getProp(list, 5)),
  };
}

/** Evaluate a part of the prelude loaded only when a run needs it: its factory function, owned by the run, or how the run ended. */
export function loadPreludePart(resources: RunResources, vm: QuickJSContext, source: string): QuickJSHandle | SandboxOutcome {
  const evaluated = vm.evalCode(source, PRELUDE_FILENAME, { type: 'global', strict: true });
  if (evaluated.error) {
    evaluated.error.dispose();
    return { kind: 'crashed', message: 'the sandbox prelude failed to load' };
  }
  return resources.own(evaluated.value);
}
