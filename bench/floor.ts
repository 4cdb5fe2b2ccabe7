/**
 * A reference point for bench/overhead.ts: the rules the engine applies to every run and step of
 * a chain, written inline for one chain of tools and nothing else. It is not a library; it is
 * what a host would have to write by hand to keep the same guarantees, so the gap between it and
 * the bare hand-written loop is the least any engine can add.
 *
 * Per run: the input checked against the composite's inputSchema, the host's context copied with
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
const listed = new Set<Watched>();

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
    if (tool === undefined || tool.hasSideEffects !== false || tool.composition === true) return { success: false, error: 'step_not_chainable' };
    const args = { n: i === 0 ? run.input.n : (run.prev as { n: number }).n };
    if (run.context.signal?.aborted) return { success: false, error: 'step_aborted' };
    const budget = run.budget;
    if (budget.calls >= budget.maxCalls || budget.inFlight >= budget.maxInFlight) return { success: false, error: 'budget_exceeded' };
    budget.calls++;
    budget.inFlight++;
    run.tool = tool;
    let pending: unknown;
    try {
      pending = tool.execute(args, run.context);
    } catch {
      budget.inFlight--;
      return { success: false, error: 'step_threw' };
    }
    if (!(pending instanceof Promise)) {
      budget.inFlight--;
      return pending as ToolExecutionResult;
    }
    pending.then(run.onResult, run.onError);
    run.expiresAt = tick + run.ticks;
    if (!run.armed) {
      run.armed = true;
      if (armed++ === 0 && !interval) interval = setInterval(onTick, TICK_MS);
      listed.add(run);
    }
    return undefined;
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
      if (!this.armed) return false;
      this.armed = false;
      armed--;
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
          if (typeof result !== 'object' || result === null || result.success !== true) return this.end(result);
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
      listed.delete(this);
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
      if (resolved.some((tool) => tool?.hasSideEffects !== false)) return Promise.resolve({ success: false, error: 'step_not_chainable' });
      seen = version;
    }
    const budget = { calls: 0, inFlight: 0, maxCalls: 5000, maxInFlight: 64 };
    const nested: ToolExecutionContext = Object.assign({}, context);
    nested.sessionData = { emergentDepth: 1, compositionPath: [], toolweave: budget };
    return new Promise((resolve) => new FloorRun(names.length, input, nested, budget, resolve, version, ticks, okTrace).go(undefined));
  };
}

function onTick(): void {
  tick++;
  for (const run of listed) {
    if (run.armed && run.expiresAt <= tick) {
      armed--;
      run.expire();
    }
  }
  if (armed === 0 && interval) {
    clearInterval(interval);
    interval = undefined;
  }
}

/** What the deadline check sees of a run. */
type Watched = { armed: boolean; expiresAt: number; expire(): void };
