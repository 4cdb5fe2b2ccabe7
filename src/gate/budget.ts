/**
 * The budget of one call from outside: every tool call made under it (by a composite, a pipeline,
 * a compose tree, a script, and every door nested in them) draws on the same counts. Without it
 * one model call could fan out without limit: a gather of thousands of calls, nested for_each
 * multiplying their items, scripts each holding a sandbox.
 *
 * - `calls`: tool calls started under the budget; the next one past the limit is refused.
 * - `inFlight`: leaf calls running at once. A call past the limit waits for a free place (in
 *   order, at most its own timeout) instead of failing, so a wide gather runs as a bounded pool.
 *   Compositions do not hold a place while their own calls run: a parent waiting on children that
 *   wait on places it holds would never finish.
 * - `sandboxes`: `run_js` sandboxes alive at once under the budget.
 */
import { failure } from '../codes.js';
import type { ToolExecutionResult } from '../tool.js';

/**
 * The limits of the budget a call from outside carries through every door it enters.
 *
 * @category The gate
 */
export interface BudgetLimits {
  /** The most tool calls one call from outside may start, across every nested door. */
  calls: number;
  /** The most leaf calls running at once; more wait for a place. */
  inFlight: number;
  /** The most `run_js` sandboxes alive at once. */
  sandboxes: number;
}

/**
 * Which limit a refusal names.
 *
 * @category The gate
 */
export type BudgetLimitName = keyof BudgetLimits;

/**
 * The budget limits a gate applies unless told others.
 *
 * The defaults, sized for one host process serving a few agents: room for a for_each over a
 * thousand items with a call or two each, 64 calls at once (for_each's own ceiling), and a few
 * sandboxes per call. Set others with `createStepGate({ budget })`.
 *
 * @category The gate
 */
export const DEFAULT_BUDGET_LIMITS: Readonly<BudgetLimits> = Object.freeze({ calls: 5000, inFlight: 64, sandboxes: 4 });

/** Limits from a host's partial ones: a missing, non-numeric or non-positive value takes its default. */
export function budgetLimits(partial: Partial<BudgetLimits> | undefined): Readonly<BudgetLimits> {
  return Object.freeze({
    calls: positive(partial?.calls, DEFAULT_BUDGET_LIMITS.calls),
    inFlight: positive(partial?.inFlight, DEFAULT_BUDGET_LIMITS.inFlight),
    sandboxes: positive(partial?.sandboxes, DEFAULT_BUDGET_LIMITS.sandboxes),
  });
}

function positive(value: unknown, fallback: number): number {
  // Number.isFinite is false for anything that is not a number, text such as '2' included.
  return Number.isFinite(value) && (value as number) >= 1 ? Math.floor(value as number) : fallback;
}

/** A call waiting for a place in flight: started by {@link CallBudget.release} when one frees. */
export interface WaitingCall {
  /** Whether it may still start: false once it gave up at its timeout. */
  live: boolean;
  /** The budget it waits on. */
  budget: CallBudget;
  /** Start it now that it holds a place (the budget has counted it). */
  start(): void;
}

/** The counts of one call from outside, shared by reference by every door under it. */
export class CallBudget {
  // Declared and set in the constructor, not class fields: see GateCall (one per run from outside).
  /** The limits. */
  declare readonly limits: Readonly<BudgetLimits>;
  /** Tool calls started so far. */
  declare calls: number;
  /** Leaf calls running now. */
  declare inFlight: number;
  /** Sandboxes alive now. */
  declare sandboxes: number;
  /** Calls waiting for a place, in order; `head` is the next to start. Made when a call waits, dropped when none is left. */
  private declare queue: WaitingCall[] | undefined;
  private declare head: number;
  /** Set while {@link CallBudget.release} starts waiting calls, so a call it starts does not nest another loop. */
  private declare draining: boolean;

  /** @param limits - the limits it enforces */
  constructor(limits: Readonly<BudgetLimits>) {
    this.limits = limits;
    this.calls = 0;
    this.inFlight = 0;
    this.sandboxes = 0;
    this.queue = undefined;
    this.head = 0;
    this.draining = false;
  }

  /** Calls left before the `calls` limit. */
  callsLeft(): number {
    return this.limits.calls - this.calls;
  }

  /** Queue `call` until a place is free. */
  wait(call: WaitingCall): void {
    (this.queue ??= []).push(call);
  }

  /**
   * A leaf call ended: free its place and start the calls waiting for one, in order. The queue is
   * drained in a method of its own, so this stays small enough for V8 to inline into the gate's
   * result handler with room to spare (for_each: about 3% fewer instructions an item).
   */
  release(): void {
    this.inFlight--;
    // Nothing waits (the common case): nothing more to do.
    const queue = this.queue;
    if (queue !== undefined && !this.draining) this.drain(queue);
  }

  /**
   * Start the calls waiting for a place, in order, while places are free. The queue is read from
   * `head` rather than shifted (a shift moves every call behind it: about 3% more instructions for
   * a gather of 100), and dropped once every call in it has left, so `queue` is there only while
   * a call waits.
   */
  private drain(queue: WaitingCall[]): void {
    this.draining = true;
    try {
      while (this.inFlight < this.limits.inFlight && this.head < queue.length) {
        const next = queue[this.head++];
        // A call that gave up is skipped; one started here is never read again (it has left the queue).
        if (!next.live) continue;
        this.inFlight++;
        next.start();
      }
      if (this.head === queue.length) {
        this.queue = undefined;
        this.head = 0;
      }
    } finally {
      this.draining = false;
    }
  }
}

/** The refusal for a budget limit: `budget_exceeded`, naming the limit and what to do. */
export function budgetRefusal(limit: BudgetLimitName, budget: CallBudget, what: string): ToolExecutionResult<never> {
  const value = budget.limits[limit];
  return failure('budget_exceeded', `${what}: the call's budget allows ${value} ${LIMIT_WORDS[limit]}. Do the work in smaller calls, or raise the limit in createStepGate({ budget: { ${limit} } }).`, {
    limit,
    value,
  });
}

const LIMIT_WORDS: Record<BudgetLimitName, string> = {
  calls: 'tool calls in all',
  inFlight: 'calls at once',
  sandboxes: 'sandboxes at once',
};
