/**
 * The QuickJS instances a sandbox thread keeps for its runs. Each run has an instance of its own
 * while it lives (its own memory, so its heap cap is its own); an instance whose run ended
 * soundly goes back on the shelf for the next run with the same heap limit, which then starts
 * without making one (making one takes milliseconds).
 *
 * An instance keeps every page its runs touched (its memory cannot shrink), so the shelf is
 * bounded three ways: at most {@link MAX_IDLE} idle instances, each dropped after {@link IDLE_MS}
 * unused, and none kept while the process's resident memory is past {@link KEEP_BELOW_RSS_BYTES}
 * (the runs alive then have it). A burst of runs leaves no lasting memory behind. One spare of
 * the size just taken is made in the background, so a run after a run finds one ready.
 *
 * While the thread has nothing else to do, each idle instance gets a runtime prepared for its
 * next run (see `prepareRuntime`): most of what a run costs before its first instruction; and,
 * once the thread is quiet, the parts a script that calls a tool needs (see `compilePartsAhead`).
 */
import { newSandboxInstance, type SandboxInstance, type WasmModule } from './quickjs-module.js';
import { compilePartsAhead, prepareRuntime, type PreparedRuntime } from './prelude-loading.js';

/** The most idle instances a thread keeps. */
export const MAX_IDLE = 256;
/** How long an idle instance is kept unused, in milliseconds. */
export const IDLE_MS = 30_000;
/** Past this resident memory of the process, an instance whose run ended is let go, not kept. */
export const KEEP_BELOW_RSS_BYTES = 1024 * 1024 * 1024;
/** How old a reading of the resident memory may be, in milliseconds. */
const RSS_READ_MS = 250;

/** An idle instance, since when, and the runtime prepared in it for its next run. */
interface Idle {
  instance: SandboxInstance;
  since: number;
  prepared?: PreparedRuntime;
}

/** What a run takes from the shelf. */
export interface Taken {
  instance: SandboxInstance;
  /** A runtime made ready for it, if the thread had time to. */
  prepared?: PreparedRuntime;
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

  /** An instance for a run: an idle one at once, else a new one. Rejects when none can be made. */
  take(heapLimitBytes: number): Taken | Promise<Taken> {
    const idle = this.idle.get(heapLimitBytes)?.pop();
    if (idle) {
      this.count--;
      this.spare(heapLimitBytes);
      return idle;
    }
    return newSandboxInstance(heapLimitBytes, this.wasmModule).then((instance) => ({ instance }));
  }

  /**
   * One step of preparing the idle instances, the next to be taken first: a runtime with the
   * prelude in one that has none; else, with `withParts`, the parts a script that calls a tool
   * needs compiled into one whose runtime has none (see `compilePartsAhead`). False when there was
   * nothing to do. An instance whose preparation fails is let go.
   */
  prepareOne(withParts: boolean): boolean {
    return this.step((idle) => !idle.prepared, (idle) => (idle.prepared = prepareRuntime(idle.instance)) !== undefined) ||
      (withParts && this.step((idle) => idle.prepared !== undefined && idle.prepared.parts === undefined, (idle) => compilePartsAhead(idle.prepared!)));
  }

  /** Whether an idle instance is not fully prepared: it has no runtime, or no parts compiled ahead. */
  wantsPreparing(): boolean {
    for (const list of this.idle.values()) for (const idle of list) if (idle.prepared?.parts === undefined) return true;
    return false;
  }

  /** Do `prepare` for the first idle instance `wanted` picks; false when it picks none. */
  private step(wanted: (idle: Idle) => boolean, prepare: (idle: Idle) => boolean): boolean {
    for (const [limit, list] of this.idle) {
      for (let at = list.length - 1; at >= 0; at--) {
        const idle = list[at];
        if (!wanted(idle)) continue;
        try {
          if (prepare(idle)) return true;
        } catch {
          // The module failed: the instance is no longer sound.
        }
        list.splice(at, 1);
        this.count--;
        if (list.length === 0) this.idle.delete(limit);
        return true;
      }
    }
    return false;
  }

  /** Keep an instance whose run ended soundly (with the runtime prepared in it, if unused), if there is room. */
  put(instance: SandboxInstance, prepared?: PreparedRuntime): void {
    if (this.count >= MAX_IDLE || this.rssAbove()) return;
    const list = this.idle.get(instance.heapLimitBytes) ?? [];
    list.push({ instance, since: Date.now(), ...(prepared ? { prepared } : {}) });
    this.idle.set(instance.heapLimitBytes, list);
    this.count++;
    this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS).unref();
  }

  /** The process's resident memory, read at most every {@link RSS_READ_MS} (a read costs a system call). */
  private rss = { bytes: 0, at: 0 };

  private rssAbove(): boolean {
    const now = Date.now();
    if (now - this.rss.at > RSS_READ_MS) this.rss = { bytes: process.memoryUsage.rss(), at: now };
    return this.rss.bytes > KEEP_BELOW_RSS_BYTES;
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
