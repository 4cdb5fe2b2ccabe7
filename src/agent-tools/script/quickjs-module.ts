/**
 * The QuickJS WebAssembly module, compiled once per process, and the instances made from it: one
 * per sandbox worker, kept from run to run (each run gets a fresh runtime and context of its own).
 *
 * Why an instance's memory is its own, fixed-size `WebAssembly.Memory`: in quickjs-emscripten
 * 0.32, `runtime.setMemoryLimit` bounds each single allocation but not a runtime's total (QuickJS
 * cannot measure a block's size under Emscripten, so its running total barely moves; see
 * justjake/quickjs-emscripten#271). The one hard bound is the memory itself: a script that keeps
 * allocating gets QuickJS's own "out of memory" error instead of growing the host.
 *
 * Why fixed-size (its initial size is its maximum): the library reads some results through a
 * typed-array view made before the call that produces them (`newPromise`, `executePendingJobs`).
 * When that call grows the memory, the view is detached: the read throws "detached ArrayBuffer" or
 * quietly yields `undefined`, and the runtime is left with objects it never frees. A memory that
 * never grows never detaches a view. Its pages are only mapped, not touched, until QuickJS uses
 * them, so the host's resident memory grows with what a script uses, not with the cap.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/** A WebAssembly page. */
const PAGE_BYTES = 64 * 1024;
/** The memory the QuickJS build starts with (its static data, stack and first heap): 16 MB. */
const BASE_PAGES = 256;
/** WebAssembly's 32-bit ceiling as this build allows it: 2 GB. */
const MAX_PAGES = 32_768;
/** The most lines of the module's own output kept (see {@link SandboxInstance.output}). */
const MAX_OUTPUT_LINES = 8;
/** The longest line of the module's own output kept, in characters. */
const MAX_OUTPUT_LINE_CHARS = 500;

/**
 * The slice of the `WebAssembly` global used here. Node has it, but this project's `lib` and
 * `@types/node` 20 do not declare it, so it is typed locally.
 */
interface WasmGlobal {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
}
/** A `WebAssembly.Memory`. */
type WasmMemory = object;
/** A compiled `WebAssembly.Module`: plain data a worker can be sent. */
export type WasmModule = object;
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

/** The allocator functions of an instance's Emscripten module. */
interface EmscriptenHeap {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/** One QuickJS instance: its module, its allocator, and what it printed. */
export interface SandboxInstance {
  /** The module a run makes its runtime from. */
  quickjs: QuickJSWASMModule;
  /** Take a block of the instance's heap; 0 when there is no room. */
  malloc(bytes: number): number;
  /** Give a block taken with {@link SandboxInstance.malloc} back. */
  free(pointer: number): void;
  /**
   * The last lines the module printed (an Emscripten abort says why here). Captured rather than
   * written to the host's stdout or stderr, where a sandbox has no business writing.
   */
  output: string[];
  /** The heap limit the instance was made for, in bytes. */
  heapLimitBytes: number;
  /**
   * `exhausted` is set when the heap was found full: an allocation asked the fixed-size memory to
   * grow. A run clears it when it starts. (Never set for the debug build, whose memory is its own.)
   */
  heap: { exhausted: boolean };
}

let compiling: Promise<WasmModule | undefined> | undefined;

/**
 * The compiled module, once per process. `undefined` when the `.wasm` file cannot be found
 * (an unusual package layout): each instance then compiles its own, slower but still correct.
 */
export function compiledModule(): Promise<WasmModule | undefined> {
  compiling ??= (async () => {
    try {
      // Resolved from quickjs-emscripten's own location, where its variant package always is.
      const fromHere = createRequire(import.meta.url);
      const fromQuickJS = createRequire(fromHere.resolve('quickjs-emscripten/package.json'));
      const path = fromQuickJS.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
      return await wasm.compile(await readFile(path));
    } catch {
      return undefined;
    }
  })();
  return compiling;
}

/**
 * A QuickJS instance whose whole memory is fixed at the build's 16 MB base plus `heapLimitBytes`.
 *
 * @param heapLimitBytes - how much the heap may hold beyond the base
 * @param wasmModule - the compiled module (from {@link compiledModule}, possibly in another thread)
 * @param variant - the build: the release build, unless a test asks for the debug one, which
 *   checks for leaks with a sanitizer that lays out its memory itself, so it keeps its own
 */
export async function newSandboxInstance(
  heapLimitBytes: number,
  wasmModule: WasmModule | undefined,
  variant: QuickJSSyncVariant = RELEASE_SYNC,
): Promise<SandboxInstance> {
  const pages = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(heapLimitBytes / PAGE_BYTES));
  const wasmMemory = variant === RELEASE_SYNC ? new wasm.Memory({ initial: pages, maximum: pages }) : undefined;
  const heap = { exhausted: false };
  // The memory is at its maximum from the start, so the allocator asks it to grow only when the
  // heap has no room left; this records that before failing the way `grow` itself would.
  if (wasmMemory) {
    Object.defineProperty(wasmMemory, 'grow', {
      value: () => {
        heap.exhausted = true;
        throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
      },
    });
  }
  const output: string[] = [];
  const capture = (...parts: unknown[]): void => {
    if (output.length >= MAX_OUTPUT_LINES) output.shift();
    output.push(parts.map(String).join(' ').slice(0, MAX_OUTPUT_LINE_CHARS));
  };
  let allocator: EmscriptenHeap | undefined;
  const emscriptenModule = {
    print: capture,
    printErr: capture,
    // Emscripten calls this as a method of the module once it is ready: `this` is the module.
    onRuntimeInitialized(this: EmscriptenHeap) {
      allocator = this;
    },
  };
  const quickjs = await newQuickJSWASMModule(
    newVariant(variant, {
      // The library's types list only the documented loader options; print, printErr and
      // onRuntimeInitialized are Emscripten's own, passed through as they are.
      emscriptenModule: emscriptenModule as object,
      ...(wasmMemory ? { wasmMemory: wasmMemory as never } : {}),
      ...(wasmModule ? { wasmModule: wasmModule as never } : {}),
    }),
  );
  if (!allocator) throw new Error('the QuickJS module did not report its allocator');
  const { _malloc, _free } = allocator;
  return { quickjs, malloc: (bytes) => _malloc(bytes), free: (pointer) => _free(pointer), output, heapLimitBytes, heap };
}
