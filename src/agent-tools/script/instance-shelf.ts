/**
 * The QuickJS instances a sandbox thread keeps for its runs. Each run has an instance of its own
 * while it lives (its own memory, so its heap cap is its own); an instance whose run ended
 * soundly goes back on the shelf for the next run with the same heap limit, which then starts
 * without making one (making one takes milliseconds).
 *
 * Bounded: at most {@link MAX_IDLE} idle instances, each dropped after {@link IDLE_MS} unused,
 * so a burst of runs leaves no lasting memory behind. One spare of the size just taken is made
 * in the background, so a run after a run finds one ready.
 */
import { newSandboxInstance, type SandboxInstance, type WasmModule } from './quickjs-module.js';

/** The most idle instances a thread keeps. */
export const MAX_IDLE = 256;
/** How long an idle instance is kept unused, in milliseconds. */
export const IDLE_MS = 30_000;

/** An idle instance, and since when. */
interface Idle {
  instance: SandboxInstance;
  since: number;
}

/** The idle instances of one thread, by heap limit. */
export class InstanceShelf {
  private readonly idle = new Map<number, Idle[]>();
  private count = 0;
  /** Heap limits a spare is being made for. */
  private readonly making = new Set<number>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly wasmModule: WasmModule | undefined) {}

  /** Make one instance of `heapLimitBytes` and keep it (a thread's first, made before it is ready). */
  async prepare(heapLimitBytes: number): Promise<void> {
    this.put(await newSandboxInstance(heapLimitBytes, this.wasmModule));
  }

  /** An instance for a run: an idle one, else a new one. Rejects when none can be made. */
  async take(heapLimitBytes: number): Promise<SandboxInstance> {
    const idle = this.idle.get(heapLimitBytes)?.pop();
    if (idle) {
      this.count--;
      this.spare(heapLimitBytes);
      return idle.instance;
    }
    return newSandboxInstance(heapLimitBytes, this.wasmModule);
  }

  /** Keep an instance whose run ended soundly, if there is room. */
  put(instance: SandboxInstance): void {
    if (this.count >= MAX_IDLE) return;
    const list = this.idle.get(instance.heapLimitBytes) ?? [];
    list.push({ instance, since: Date.now() });
    this.idle.set(instance.heapLimitBytes, list);
    this.count++;
    this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS).unref();
  }

  /** Make a spare of the size just taken, when none is left or being made. */
  private spare(heapLimitBytes: number): void {
    if ((this.idle.get(heapLimitBytes)?.length ?? 0) > 0 || this.making.has(heapLimitBytes) || this.count >= MAX_IDLE) return;
    this.making.add(heapLimitBytes);
    void newSandboxInstance(heapLimitBytes, this.wasmModule)
      .then((instance) => this.put(instance))
      .catch(() => undefined)
      .finally(() => this.making.delete(heapLimitBytes));
  }

  /** Drop the instances idle longer than {@link IDLE_MS}. */
  private sweep(): void {
    const before = Date.now() - IDLE_MS;
    for (const [limit, list] of this.idle) {
      const kept = list.filter((idle) => idle.since > before);
      this.count -= list.length - kept.length;
      if (kept.length > 0) this.idle.set(limit, kept);
      else this.idle.delete(limit);
    }
    if (this.count === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
