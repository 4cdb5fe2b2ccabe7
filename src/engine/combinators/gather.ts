/** gather: named calls run concurrently; the output is an object of their outputs by name. */
import type { RefScope } from '../../refs/scope.js';
import { Lane, startPlan, type LaneOwner, type NodeOutcome, type NodePlan, type RunState } from '../run-state.js';

/** Run every call at once; fail with the first failure (in key order) once all have settled. */
export function gather(calls: readonly (readonly [string, NodePlan])[]): NodePlan {
  const names = calls.map(([name]) => name);
  const plans = calls.map(([, plan]) => plan);
  const shape = outputShape(names);
  return (state, scope) => new Promise<NodeOutcome>((resolve) => new GatherRun(names, plans, shape, state, scope, resolve).start());
}

/**
 * An object with every call's name as an own data property, in call order, made once. A run
 * copies it and fills it in: far cheaper than defining a hundred properties one by one. The copy
 * (a spread) defines its properties, so a call named `__proto__` is an own field there too, and
 * storing into an own data property never reaches `Object.prototype`'s setter.
 */
function outputShape(names: readonly string[]): Record<string, unknown> {
  const shape: Record<string, unknown> = {};
  for (const name of names) Object.defineProperty(shape, name, { value: undefined, enumerable: true, writable: true, configurable: true });
  return shape;
}

/** One gather run: the calls' outcomes, and how many are still in flight. */
class GatherRun implements LaneOwner {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  private declare readonly names: readonly string[];
  private declare readonly plans: readonly NodePlan[];
  private declare readonly shape: Record<string, unknown>;
  private declare readonly runState: RunState;
  private declare readonly refs: RefScope;
  private declare readonly resolve: (outcome: NodeOutcome) => void;
  private declare readonly outcomes: NodeOutcome[];
  /** Calls still in flight. */
  private declare pending: number;

  constructor(
    names: readonly string[],
    plans: readonly NodePlan[],
    shape: Record<string, unknown>,
    runState: RunState,
    refs: RefScope,
    resolve: (outcome: NodeOutcome) => void,
  ) {
    this.names = names;
    this.plans = plans;
    this.shape = shape;
    this.runState = runState;
    this.refs = refs;
    this.resolve = resolve;
    this.outcomes = new Array<NodeOutcome>(plans.length);
    this.pending = plans.length;
  }

  start(): void {
    const plans = this.plans;
    for (let i = 0; i < plans.length; i++) {
      const lane = new Lane(this);
      lane.position = i;
      const now = startPlan(plans[i], this.runState, this.refs, lane);
      if (now) this.settled(i, now);
    }
  }

  /** A call in flight finished. */
  take(outcome: NodeOutcome, lane: Lane): void {
    this.settled(lane.position, outcome);
  }

  /** Call `index` finished; once every call has, the gather answers. */
  private settled(index: number, outcome: NodeOutcome): void {
    this.outcomes[index] = outcome;
    // Every call settles before the gather answers, so the effects ledger is complete.
    if (--this.pending > 0) return;
    const { names, outcomes } = this;
    const output: Record<string, unknown> = { ...this.shape };
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i];
      if (!o.ok) {
        this.resolve({ ok: false, failure: { ...o.failure, details: { ...o.failure.details, call: names[i] } } });
        return;
      }
      output[names[i]] = o.output;
    }
    this.resolve({ ok: true, output });
  }
}
