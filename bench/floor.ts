/**
 * Reference points for bench/overhead.ts, bench/combinators.ts and bench/instructions.ts: the
 * rules the engine applies to every run and call of a chain (and of a for_each and a gather,
 * below), written inline for one workload and nothing else. It is not a library; it is what a
 * host would have to write by hand to keep the same guarantees, so the gap between it and the
 * bare hand-written code is the least any engine can add.
 *
 * The chain, per run: the input checked against the composite's inputSchema, the host's context copied with
 * the run's frame and budget in `sessionData`, a promise for the result, the trace and effects
 * ledger. Per step: the registry version checked, the tool's side-effect grade checked, its
 * arguments mapped from the step before, the abort signal, the call budget and the in-flight
 * count, a deadline the tool races, the result's shape checked, the trace entry, the ledger.
 * No generality: no other node kinds, no names, no dry runs, no listeners, no host checks.
 */
import { Ajv } from 'ajv';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../dist/index.js';

/** How the inline chain reads its registry: the host's version, and the instances resolved at it. */
export interface FloorRegistry {
  version: () => unknown;
  resolve: (name: string) => ITool | undefined;
}

const TICK_MS = 10;
let tick = 0;
let armed = 0;
let interval: NodeJS.Timeout | undefined;
/** What the watchdog looks at: each entry keeps its place (`listedAt`), so leaving is a swap and a pop. */
const listed: Watched[] = [];

/** A chain of `tools`, each step given `{ n: <the step before's n> }`, with the rules inline. */
export function inlineChain(names: readonly string[], registry: FloorRegistry, inputSchema: object, timeoutMs = 120_000) {
  const checkInput = new Ajv().compile(inputSchema);
  const ticks = Math.ceil(timeoutMs / TICK_MS) + 1;
  const okTrace = names.map((name, i) => Object.freeze({ step: `steps[${i}]`, tool: name, ok: true }));
  let seen: unknown;
  let resolved: (ITool | undefined)[] = [];
  /** Start step `i` of `run`: its result when known at once, else `undefined` and the tool's promise calls back. */
  function step(run: FloorRun, i: number): ToolExecutionResult | undefined {
    if (registry.version() !== run.version) return { success: false, error: 'registry changed' };
    const tool = resolved[i];
    if (!chainable(tool)) return { success: false, error: 'step_not_chainable' };
    const args = { n: i === 0 ? run.input.n : (run.prev as { n: number }).n };
    return launch(run, tool, args, run.context, run.budget, run.ticks);
  }

  /** One run: its own record, reused for every step, holds the tool's callbacks and the deadline. */
  class FloorRun {
    // Set in the constructor rather than as class fields: compiled class fields are defined one by
    // one with Object.defineProperty, which costs more than this whole run's own work.
    declare tool: ITool | undefined;
    declare prev: unknown;
    declare at: number;
    declare expiresAt: number;
    declare armed: boolean;
    /** Its place on the watchdog's list; -1 while not listed. */
    declare listedAt: number;
    declare readonly effects: { step: string; tool: string; ran: true }[];
    declare readonly onResult: (result: unknown) => void;
    declare readonly onError: () => void;
    declare readonly steps: number;
    declare readonly input: { n: number };
    declare readonly context: ToolExecutionContext;
    declare readonly budget: { calls: number; inFlight: number; maxCalls: number; maxInFlight: number };
    declare readonly resolve: (result: ToolExecutionResult) => void;
    declare readonly version: unknown;
    declare readonly ticks: number;
    declare readonly okTrace: readonly object[];

    constructor(
      steps: number,
      input: { n: number },
      context: ToolExecutionContext,
      budget: { calls: number; inFlight: number; maxCalls: number; maxInFlight: number },
      resolve: (result: ToolExecutionResult) => void,
      version: unknown,
      ticks: number,
      okTrace: readonly object[],
    ) {
      this.tool = undefined;
      this.prev = undefined;
      this.at = 0;
      this.expiresAt = 0;
      this.armed = false;
      this.listedAt = -1;
      this.effects = [];
      this.onResult = (result) => {
        if (this.disarm()) this.go(result as ToolExecutionResult);
      };
      this.onError = () => {
        if (this.disarm()) this.go({ success: false, error: 'step_threw' });
      };
      this.steps = steps;
      this.input = input;
      this.context = context;
      this.budget = budget;
      this.resolve = resolve;
      this.version = version;
      this.ticks = ticks;
      this.okTrace = okTrace;
    }

    disarm(): boolean {
      if (!disarm(this)) return false;
      this.budget.inFlight--;
      return true;
    }

    expire(): void {
      this.armed = false;
      this.budget.inFlight--;
      this.go({ success: false, error: 'step_timeout' });
    }

    go(result: ToolExecutionResult | undefined): void {
      for (;;) {
        if (result !== undefined) {
          if (!succeeded(result)) return this.end(result);
          if (this.tool!.hasSideEffects === true) this.effects.push({ step: `steps[${this.at}]`, tool: this.tool!.name, ran: true });
          this.prev = result.output;
          this.at++;
        }
        if (this.at >= this.steps) return this.end(undefined);
        result = step(this, this.at);
        if (result === undefined) return;
      }
    }

    end(failed: ToolExecutionResult | undefined): void {
      release(this);
      const trace = this.okTrace.slice(0, this.at);
      if (failed) return this.resolve({ success: false, error: String(failed.error), details: { trace, effects: this.effects } });
      this.resolve({ success: true, output: this.prev, effects: this.effects, details: { trace } });
    }
  }

  return (input: { n: number }, context: ToolExecutionContext): Promise<ToolExecutionResult> => {
    if (!checkInput(input)) return Promise.resolve({ success: false, error: 'input_invalid' });
    // The whole chain is checked against the registry before its first step, once per version.
    const version = registry.version();
    if (version !== seen) {
      resolved = names.map((name) => registry.resolve(name));
      if (!resolved.every(chainable)) return Promise.resolve({ success: false, error: 'step_not_chainable' });
      seen = version;
    }
    const budget = newBudget(5000);
    return new Promise((resolve) => new FloorRun(names.length, input, runContext(context, budget), budget, resolve, version, ticks, okTrace).go(undefined));
  };
}

/** A run's call budget: calls in all, and calls at once. */
type FloorBudget = { calls: number; inFlight: number; maxCalls: number; maxInFlight: number };

function newBudget(maxCalls: number): FloorBudget {
  return { calls: 0, inFlight: 0, maxCalls, maxInFlight: 64 };
}

/** The context a run's calls get: the host's, copied, with the run's frame and budget in `sessionData`. */
function runContext(context: ToolExecutionContext, budget: FloorBudget): ToolExecutionContext {
  const nested: ToolExecutionContext = Object.assign({}, context);
  nested.sessionData = { emergentDepth: 1, compositionPath: [], toolweave: budget };
  return nested;
}

/** Whether `tool` may run in a chain: it declares no side effects and is not a composition. */
function chainable(tool: ITool | undefined): tool is ITool {
  return tool !== undefined && tool.hasSideEffects === false && tool.composition !== true;
}

/** Whether `result` is a well-formed success. */
function succeeded(result: unknown): result is ToolExecutionResult & { success: true } {
  return typeof result === 'object' && result !== null && (result as ToolExecutionResult).success === true;
}

/**
 * A for_each over `$input.items`, each item given to `toolName` as `{ n: item }`, `concurrency`
 * at a time, with the rules inline. Per run: the input checked, the items read and counted
 * against `maxItems`, the tool resolved and checked before any item starts, the context and
 * budget, one trace entry. Per item: the tool resolved by name and checked (the combinators'
 * gate has no registry version), the abort signal, the budget, a deadline, the result's shape,
 * the ledger, the output in the item's place.
 */
export function inlineForEach(toolName: string, registry: Pick<FloorRegistry, 'resolve'>, inputSchema: object, concurrency: number, maxItems: number, timeoutMs = 120_000) {
  const checkInput = new Ajv().compile(inputSchema);
  const ticks = Math.ceil(timeoutMs / TICK_MS) + 1;

  /** One worker: its own record for the deadline and the tool's callbacks, reused item after item. */
  class Worker {
    declare tool: ITool | undefined;
    declare index: number;
    declare expiresAt: number;
    declare armed: boolean;
    /** Its place on the watchdog's list; -1 while not listed. */
    declare listedAt: number;
    declare readonly onResult: (result: unknown) => void;
    declare readonly onError: () => void;

    constructor(readonly run: ForEachFloorRun) {
      this.tool = undefined;
      this.index = -1;
      this.expiresAt = 0;
      this.armed = false;
      this.listedAt = -1;
      this.onResult = (result) => {
        if (this.disarm()) this.go(result);
      };
      this.onError = () => {
        if (this.disarm()) this.go({ success: false, error: 'step_threw' });
      };
    }

    disarm(): boolean {
      if (!disarm(this)) return false;
      this.run.budget.inFlight--;
      return true;
    }

    expire(): void {
      this.armed = false;
      this.run.budget.inFlight--;
      this.go({ success: false, error: 'step_timeout' });
    }

    /** Record `result` (the item's in flight, if any), then start items until one is in flight or none is left. */
    go(result: unknown): void {
      const run = this.run;
      for (;;) {
        if (result !== undefined) {
          run.active--;
          if (!succeeded(result)) return run.fail(this, result);
          if (this.tool!.hasSideEffects === true) run.effects.push({ step: 'steps[0]', tool: toolName, ran: true });
          run.results[this.index] = result.output;
        }
        if (run.failed !== undefined || run.next >= run.items.length) return run.retire(this);
        this.index = run.next++;
        run.active++;
        result = this.step();
        if (result === undefined) return;
      }
    }

    /** Start the worker's item: its result when known at once, else `undefined` and the tool's promise calls back. */
    step(): ToolExecutionResult | undefined {
      const run = this.run;
      const tool = registry.resolve(toolName);
      if (!chainable(tool)) return { success: false, error: 'step_not_chainable' };
      return launch(this, tool, { n: run.items[this.index] }, run.context, run.budget, ticks);
    }
  }

  /** One for_each run: its items, their outputs in order, and how many are in flight. */
  class ForEachFloorRun {
    declare next: number;
    declare active: number;
    declare failed: unknown;
    declare readonly results: unknown[];
    declare readonly effects: { step: string; tool: string; ran: true }[];

    constructor(
      readonly items: readonly unknown[],
      readonly context: ToolExecutionContext,
      readonly budget: FloorBudget,
      readonly resolve: (result: ToolExecutionResult) => void,
    ) {
      this.next = 0;
      this.active = 0;
      this.failed = undefined;
      this.results = new Array<unknown>(items.length);
      this.effects = [];
    }

    start(): void {
      const workers = Math.min(concurrency, this.items.length);
      for (let w = 0; w < workers; w++) new Worker(this).go(undefined);
      if (workers === 0) this.end();
    }

    fail(worker: Worker, result: unknown): void {
      this.failed ??= result;
      this.retire(worker);
    }

    retire(worker: Worker): void {
      release(worker);
      if (this.active === 0) this.end();
    }

    end(): void {
      const trace = [{ step: 'steps[0]', ok: this.failed === undefined, items: this.next }];
      if (this.failed !== undefined) return this.resolve({ success: false, error: String((this.failed as ToolExecutionResult).error), details: { trace, effects: this.effects } });
      this.resolve({ success: true, output: this.results, effects: this.effects, details: { trace } });
    }
  }

  return (input: { items?: unknown }, context: ToolExecutionContext): Promise<ToolExecutionResult> => {
    if (!checkInput(input)) return Promise.resolve({ success: false, error: 'input_invalid' });
    const items = Object.hasOwn(input, 'items') ? input.items : undefined;
    if (!Array.isArray(items) || items.length > maxItems) return Promise.resolve({ success: false, error: 'input_invalid' });
    // The tool is checked before any item starts.
    if (!chainable(registry.resolve(toolName))) return Promise.resolve({ success: false, error: 'step_not_chainable' });
    const budget = newBudget(20_000);
    return new Promise((resolve) => new ForEachFloorRun(items, runContext(context, budget), budget, resolve).start());
  };
}

/**
 * A gather of one call per name in `names`, the call at place `i` given `{ n: i }`, with the rules
 * inline. Per run: the input checked, every tool resolved and checked before any call starts,
 * the context and budget, the output with every name in order, one trace entry. Per call: the
 * tool resolved by name and checked, the abort signal, the call budget, a place in flight (the
 * calls past the in-flight limit wait in order), a deadline, the result's shape, the ledger.
 */
export function inlineGather(names: readonly string[], registry: Pick<FloorRegistry, 'resolve'>, inputSchema: object, timeoutMs = 120_000) {
  const checkInput = new Ajv().compile(inputSchema);
  const ticks = Math.ceil(timeoutMs / TICK_MS) + 1;
  const shape: Record<string, unknown> = {};
  for (const name of names) Object.defineProperty(shape, name, { value: undefined, enumerable: true, writable: true, configurable: true });

  /** One call's record: the deadline and the tool's callbacks. */
  class Call {
    declare tool: ITool | undefined;
    /** It waits for a place in flight. */
    declare waiting: boolean;
    declare expiresAt: number;
    declare armed: boolean;
    /** Its place on the watchdog's list; -1 while not listed. */
    declare listedAt: number;
    declare readonly onResult: (result: unknown) => void;
    declare readonly onError: () => void;

    constructor(
      readonly run: GatherFloorRun,
      readonly index: number,
    ) {
      this.tool = undefined;
      this.waiting = false;
      this.expiresAt = 0;
      this.armed = false;
      this.listedAt = -1;
      this.onResult = (result) => {
        if (disarm(this)) this.run.settled(this, result, true);
      };
      this.onError = () => {
        if (disarm(this)) this.run.settled(this, { success: false, error: 'step_threw' }, true);
      };
    }

    expire(): void {
      this.armed = false;
      // One still waiting never held a place, and never starts now.
      const held = !this.waiting;
      this.waiting = false;
      this.run.settled(this, { success: false, error: held ? 'step_timeout' : 'budget_exceeded' }, held);
    }

    /** Resolve and check the tool, then start it or queue it for a place: a result known at once, or `undefined`. */
    start(): ToolExecutionResult | undefined {
      const run = this.run;
      const tool = registry.resolve(names[this.index]);
      if (!chainable(tool)) return { success: false, error: 'step_not_chainable' };
      if (run.budget.inFlight >= run.budget.maxInFlight) {
        if (run.context.signal?.aborted) return { success: false, error: 'step_aborted' };
        // It waits at most its own timeout for a place, and is counted when it starts.
        this.waiting = true;
        arm(this, ticks);
        run.waiting.push(this);
        run.pendingTools.push(tool);
        return undefined;
      }
      return this.launch(tool);
    }

    /** Run the tool, holding a place in flight (see {@link launch}). */
    launch(tool: ITool): ToolExecutionResult | undefined {
      this.waiting = false;
      return launch(this, tool, { n: this.index }, this.run.context, this.run.budget, ticks);
    }
  }

  /** One gather run: the outputs by place, the first failure in order, and the calls waiting for a place. */
  class GatherFloorRun {
    declare pending: number;
    declare failedAt: number;
    declare failure: unknown;
    declare head: number;
    declare readonly outputs: unknown[];
    declare readonly waiting: Call[];
    declare readonly pendingTools: ITool[];
    declare readonly effects: { step: string; tool: string; ran: true }[];

    constructor(
      readonly context: ToolExecutionContext,
      readonly budget: FloorBudget,
      readonly resolve: (result: ToolExecutionResult) => void,
    ) {
      this.pending = names.length;
      this.failedAt = -1;
      this.failure = undefined;
      this.head = 0;
      this.outputs = new Array<unknown>(names.length);
      this.waiting = [];
      this.pendingTools = [];
      this.effects = [];
    }

    start(): void {
      for (let i = 0; i < names.length; i++) {
        const call = new Call(this, i);
        const now = call.start();
        if (now) this.settled(call, now, false);
      }
    }

    /** Call `call` ended with `result`; `held` when it held a place in flight, which passes to the next call waiting. */
    settled(call: Call, result: unknown, held: boolean): void {
      release(call);
      if (held) {
        this.budget.inFlight--;
        while (this.head < this.waiting.length && this.budget.inFlight < this.budget.maxInFlight) {
          const next = this.waiting[this.head];
          const tool = this.pendingTools[this.head++];
          if (!next.waiting) continue;
          const now = next.launch(tool);
          if (now) this.settled(next, now, false);
        }
      }
      if (succeeded(result)) {
        if (call.tool!.hasSideEffects === true) this.effects.push({ step: names[call.index], tool: names[call.index], ran: true });
        this.outputs[call.index] = result.output;
      } else if (this.failedAt < 0 || call.index < this.failedAt) {
        this.failure = result;
        this.failedAt = call.index;
      }
      if (--this.pending > 0) return;
      const trace = [{ step: 'steps[0]', ok: this.failedAt < 0 }];
      if (this.failedAt >= 0) return this.resolve({ success: false, error: String((this.failure as ToolExecutionResult).error), details: { trace, effects: this.effects } });
      const output = { ...shape };
      for (let i = 0; i < names.length; i++) output[names[i]] = this.outputs[i];
      this.resolve({ success: true, output, effects: this.effects, details: { trace } });
    }
  }

  return (input: unknown, context: ToolExecutionContext): Promise<ToolExecutionResult> => {
    if (!checkInput(input)) return Promise.resolve({ success: false, error: 'input_invalid' });
    // Every call is checked before the first starts.
    for (const name of names) if (!chainable(registry.resolve(name))) return Promise.resolve({ success: false, error: 'step_not_chainable' });
    const budget = newBudget(5000);
    return new Promise((resolve) => new GatherFloorRun(runContext(context, budget), budget, resolve).start());
  };
}

/** A call's record: its deadline, and the callbacks that hear its tool. */
type FloorCall = Watched & { tool: ITool | undefined; readonly onResult: (result: unknown) => void; readonly onError: () => void };

/**
 * Start `tool` with `args` for `call`, after the abort signal and the budget (calls in all, calls
 * at once): its result when known at once, else `undefined` and the call's callbacks hear it,
 * racing a deadline `ticks` ticks away.
 */
function launch(call: FloorCall, tool: ITool, args: Record<string, unknown>, context: ToolExecutionContext, budget: FloorBudget, ticks: number): ToolExecutionResult | undefined {
  if (context.signal?.aborted) return { success: false, error: 'step_aborted' };
  if (budget.calls >= budget.maxCalls || budget.inFlight >= budget.maxInFlight) return { success: false, error: 'budget_exceeded' };
  budget.calls++;
  budget.inFlight++;
  call.tool = tool;
  let pending: unknown;
  try {
    pending = tool.execute(args, context);
  } catch {
    budget.inFlight--;
    return { success: false, error: 'step_threw' };
  }
  if (!(pending instanceof Promise)) {
    budget.inFlight--;
    return pending as ToolExecutionResult;
  }
  pending.then(call.onResult, call.onError);
  arm(call, ticks);
  return undefined;
}

/** Give `entry` a deadline `ticks` ticks from now: a flag, a number and a set entry, no timer per call. */
function arm(entry: Watched, ticks: number): void {
  entry.expiresAt = tick + ticks;
  if (entry.armed) return;
  entry.armed = true;
  if (armed++ === 0 && !interval) interval = setInterval(onTick, TICK_MS);
  if (entry.listedAt < 0) {
    entry.listedAt = listed.length;
    listed.push(entry);
  }
}

/** Take `entry` off the watchdog's list for good, disarming it if armed: its call is over. */
function release(entry: Watched): void {
  disarm(entry);
  const at = entry.listedAt;
  if (at < 0) return;
  const last = listed.pop()!;
  if (last !== entry) {
    listed[at] = last;
    last.listedAt = at;
  }
  entry.listedAt = -1;
}

/** Take `entry`'s deadline off: false when it had none (it expired first). */
function disarm(entry: Watched): boolean {
  if (!entry.armed) return false;
  entry.armed = false;
  armed--;
  return true;
}

function onTick(): void {
  tick++;
  for (const run of listed.filter((entry) => entry.armed && entry.expiresAt <= tick)) {
    armed--;
    run.expire();
  }
  if (armed === 0 && interval) {
    clearInterval(interval);
    interval = undefined;
  }
}

/** What the deadline check sees of a run. */
type Watched = { armed: boolean; expiresAt: number; listedAt: number; expire(): void };
