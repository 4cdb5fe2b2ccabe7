/**
 * A QuickJS WebAssembly instance per run, over a WebAssembly module compiled once.
 *
 * Why an instance per run rather than one shared module: in quickjs-emscripten 0.32,
 * `runtime.setMemoryLimit` bounds each single allocation but not a runtime's total (QuickJS
 * cannot measure a block's size under Emscripten, so its running total barely moves; see
 * justjake/quickjs-emscripten#271). The one hard bound is the WebAssembly memory itself: each run
 * gets its own `WebAssembly.Memory` with a `maximum`, so a script that keeps allocating gets
 * QuickJS's own "out of memory" error instead of growing the host. A fresh instance also means a
 * run that breaks its module (a host stack overflow inside WebAssembly) breaks nothing else.
 * Compiling is the slow part and happens once; an instance costs a few milliseconds.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';

/** A WebAssembly page. */
const PAGE_BYTES = 64 * 1024;
/** The memory the QuickJS build starts with (its static data, stack and first heap): 16 MB. */
const BASE_PAGES = 256;
/** WebAssembly's 32-bit ceiling as this build allows it: 2 GB. */
const MAX_PAGES = 32_768;

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
/** A compiled `WebAssembly.Module`. */
type WasmModule = object;
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

let compiling: Promise<WasmModule | undefined> | undefined;

/**
 * The compiled module, once per process. `undefined` when the `.wasm` file cannot be found
 * (an unusual package layout): each instance then compiles its own, slower but still correct.
 */
function compiledModule(): Promise<WasmModule | undefined> {
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
 * A fresh QuickJS instance whose whole memory is capped at the build's 16 MB base plus
 * `heapLimitBytes`: the script's heap can grow by at most that much.
 */
export async function newSandboxModule(heapLimitBytes: number): Promise<QuickJSWASMModule> {
  const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(heapLimitBytes / PAGE_BYTES));
  const wasmMemory = new wasm.Memory({ initial: BASE_PAGES, maximum });
  const wasmModule = await compiledModule();
  const variant = newVariant(RELEASE_SYNC, wasmModule ? { wasmModule, wasmMemory } : { wasmMemory });
  return newQuickJSWASMModule(variant);
}
