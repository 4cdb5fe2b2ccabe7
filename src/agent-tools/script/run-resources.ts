/**
 * Everything a run holds in its QuickJS instance: the runtime and the context, each handle it
 * made, and a block of the heap held back for the host. One place gives it all back, however the
 * run ends, so nothing of a run outlives it in an instance the next run reuses.
 *
 * The block held back exists because a script can fill its heap: the host must still write a
 * call's answer in, and read the script's error or answer out. It is freed just before each of
 * the host's own writes and reads, and taken back after; when it cannot be taken back, the
 * script has filled the heap.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import type { SandboxModule } from './run-contract.js';

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

/** What one run holds in its instance, and the way to give it back. */
export class RunResources {
  /** The run's runtime, once it has one. */
  runtime: QuickJSRuntime | undefined;
  /** The run's context, once it has one. */
  vm: QuickJSContext | undefined;
  /** Handles owned by the run, disposed in reverse order at the end. */
  private readonly handles: QuickJSHandle[] = [];
  /** The block held back for the host (see {@link reserveBytesFor}); 0 while released. */
  private reserve = 0;
  private readonly reserveBytes: number;

  constructor(
    /** The instance the run is in. */
    readonly module: SandboxModule,
    maxCallResultBytes: number,
  ) {
    this.reserveBytes = reserveBytesFor(maxCallResultBytes);
  }

  /** Own a handle: it is disposed with the run. */
  own<T extends QuickJSHandle>(handle: T): T {
    this.handles.push(handle);
    return handle;
  }

  /** Free the reserve, so the host's own writes into the sandbox find room. */
  release(): void {
    if (this.reserve === 0) return;
    this.module.free(this.reserve);
    this.reserve = 0;
  }

  /** Take the reserve back; false when the heap has no room for it (the script filled it). */
  retake(): boolean {
    this.reserve = this.module.malloc(this.reserveBytes);
    return this.reserve !== 0;
  }

  /** Dispose everything the run made. False when the module failed doing so. */
  dispose(): boolean {
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
