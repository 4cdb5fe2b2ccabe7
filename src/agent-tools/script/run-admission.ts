/**
 * Admission to the pool: a bound on the runs alive at once and on the memory they may hold, a fair
 * queue for the runs past them, and each scope's share of each. A run waiting on its calls holds memory, not a thread, so the
 * bound counts runs, not threads: hundreds can wait at once. Past the bound a run waits in the
 * queue, for at most its own time limit; past the queue it is refused and never started. Each
 * scope (a session, a user: see `createScriptTool`'s `scope`) may hold at most its share of the
 * places and of the queue, and places that come free go to the waiting scopes in turn, so one
 * busy tenant cannot starve the others.
 */

/**
 * The scope of runs that name no session or user: one tenant, so a scope's share of memory, which
 * keeps tenants from one another, does not bound it (the pool's whole budget does).
 */
const ONE_TENANT = '';

/** Why a run got no place (`too_large`: it may hold more memory than the pool, or its scope, may ever give). */
export type Refusal = { kind: 'queue_full' } | { kind: 'wait_timeout' } | { kind: 'aborted' } | { kind: 'too_large' };

/** What {@link RunAdmission.enter} gives: a place counted for the run (give it back with `release`), or why there is none. */
export type Admission = { kind: 'counted'; release: () => void } | Refusal;

/** What watches over the runs while any is alive: started as each is counted in, stopped when none is left. */
export interface RunsWatcher {
  /** A run was counted in (starting again when already started does nothing). */
  start(): void;
  /** No run is alive any more. */
  stop(): void;
}

/** The bounds admission keeps. */
export interface AdmissionBounds {
  /** The most runs alive at once. */
  maxRuns: number;
  /** The most runs of one scope alive at once. */
  maxRunsPerScope: number;
  /** The most runs waiting for a place. */
  maxQueuedRuns: number;
  /** The most runs of one scope waiting for a place. */
  maxQueuedPerScope: number;
  /** The most memory the runs alive may hold together, in bytes. */
  maxBytes: number;
  /** The most memory one scope's runs alive may hold together, in bytes. */
  maxBytesPerScope: number;
}

/** A run waiting for a place. */
interface Waiter {
  /** The memory it may hold. */
  bytes: number;
  /** Give it the place that came free. */
  admit(): void;
}

/** One scope's runs: how many are alive and the memory they may hold, and those waiting, in order. */
interface Scope {
  live: number;
  bytes: number;
  waiting: Waiter[];
}

/** The pool's count of runs alive and waiting, by scope. */
export class RunAdmission {
  private readonly scopes = new Map<string, Scope>();
  /** Scopes with runs waiting, in the order they are served. */
  private turn: string[] = [];
  private runs = 0;
  private queued = 0;
  /** The memory the runs alive may hold together. */
  private bytes = 0;

  /**
   * @param placesOf - the most runs of a scope alive at once, now (a held-back scope gets fewer);
   *   by default `bounds.maxRunsPerScope` for every scope
   */
  constructor(
    private readonly bounds: AdmissionBounds,
    private readonly watcher: RunsWatcher,
    private readonly placesOf: (scope: string) => number = () => bounds.maxRunsPerScope,
  ) {}

  /** How many runs are alive, and how many wait for a place. */
  counts(): { runs: number; queued: number; bytes: number } {
    return { runs: this.runs, queued: this.queued, bytes: this.bytes };
  }

  /**
   * A place for one run of `scope`: at once while the pool and the scope are under their bounds,
   * else the first to come free within `waitMs`. Refused at once when the queue (or the scope's
   * share of it) is full.
   */
  enter(scopeKey: string, waitMs: number, signal?: AbortSignal, bytes = 0): Admission | Promise<Admission> {
    if (signal?.aborted) return { kind: 'aborted' };
    if (bytes > this.bounds.maxBytes || (scopeKey !== ONE_TENANT && bytes > this.bounds.maxBytesPerScope)) return { kind: 'too_large' };
    const scope = this.scopeOf(scopeKey);
    if (this.fits(scopeKey, scope, bytes)) {
      this.count(scope, bytes);
      return this.counted(scopeKey, scope, bytes);
    }
    if (this.queued >= this.bounds.maxQueuedRuns || scope.waiting.length >= this.bounds.maxQueuedPerScope) {
      this.forgetIfIdle(scopeKey, scope);
      return { kind: 'queue_full' };
    }
    // Counted by `serve` when the place comes free.
    return this.wait(scopeKey, scope, waitMs, signal, bytes);
  }

  /** Whether a run of `scope` that may hold `bytes` fits under every bound now. */
  private fits(scopeKey: string, scope: Scope, bytes: number): boolean {
    return (
      this.runs < this.bounds.maxRuns &&
      scope.live < this.placesOf(scopeKey) &&
      this.bytes + bytes <= this.bounds.maxBytes &&
      (scopeKey === ONE_TENANT || scope.bytes + bytes <= this.bounds.maxBytesPerScope)
    );
  }

  /** Count a run in: its place, and the memory it may hold, are taken from now on. */
  private count(scope: Scope, bytes: number): void {
    this.runs++;
    this.bytes += bytes;
    scope.live++;
    scope.bytes += bytes;
    this.watcher.start();
  }

  /** A counted run's place, and the way to give it back (once; later calls do nothing). */
  private counted(scopeKey: string, scope: Scope, bytes: number): Admission {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.runs--;
      this.bytes -= bytes;
      scope.live--;
      scope.bytes -= bytes;
      this.forgetIfIdle(scopeKey, scope);
      this.serve();
      if (this.runs === 0) this.watcher.stop();
    };
    return { kind: 'counted', release };
  }

  /** Queue the run; its place once one is counted for it, else why it was not. */
  private wait(scopeKey: string, scope: Scope, waitMs: number, signal: AbortSignal | undefined, bytes: number): Promise<Admission> {
    return new Promise((resolve) => {
      const settle = (refused: Refusal | undefined): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = scope.waiting.indexOf(waiter);
        if (at >= 0) {
          scope.waiting.splice(at, 1);
          this.queued--;
        }
        if (scope.waiting.length === 0) {
          const inTurn = this.turn.indexOf(scopeKey);
          if (inTurn >= 0) this.turn.splice(inTurn, 1);
        }
        // A run refused from the queue leaves its scope as it found it.
        if (refused !== undefined) this.forgetIfIdle(scopeKey, scope);
        resolve(refused ?? this.counted(scopeKey, scope, bytes));
      };
      const waiter: Waiter = { bytes, admit: () => settle(undefined) };
      const onAbort = (): void => settle({ kind: 'aborted' });
      const timer = setTimeout(() => settle({ kind: 'wait_timeout' }), Math.min(2 ** 31 - 1, Math.max(0, waitMs)));
      signal?.addEventListener('abort', onAbort, { once: true });
      scope.waiting.push(waiter);
      this.queued++;
      if (scope.waiting.length === 1) this.turn.push(scopeKey);
    });
  }

  /** Places came free: hand them to the waiting scopes in turn, each within its share. */
  private serve(): void {
    let passed = 0;
    while (this.runs < this.bounds.maxRuns && passed < this.turn.length) {
      const key = this.turn.shift()!;
      const scope = this.scopes.get(key)!;
      const waiter = scope.waiting[0];
      if (!this.fits(key, scope, waiter.bytes)) {
        // At its share, or its next run needs more memory than is free: it waits for runs to end;
        // the next scope is served.
        this.turn.push(key);
        passed++;
        continue;
      }
      passed = 0;
      // Back in line behind the others, if it has more waiting (the waiter leaves the list itself).
      if (scope.waiting.length > 1) this.turn.push(key);
      this.count(scope, waiter.bytes);
      waiter.admit();
    }
  }

  private scopeOf(key: string): Scope {
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { live: 0, bytes: 0, waiting: [] };
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private forgetIfIdle(key: string, scope: Scope): void {
    if (scope.live === 0 && scope.waiting.length === 0) this.scopes.delete(key);
  }
}
