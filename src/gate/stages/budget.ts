/**
 * Budget: the last checks before a tool starts, after any person was asked. The run was not
 * aborted; an interactive tool is not called from under a script; the budget of the call from
 * outside has room for one more call in all, and a place in flight (or the call waits for one, at
 * most its own timeout). A composition holds no place while its own calls run (they would wait
 * on it forever).
 */
import { failure } from '../../codes.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import { budgetRefusal, type CallBudget, type WaitingCall } from '../budget.js';
import { Later, type GateCall, type Verdict } from '../call-record.js';
import type { RunFrame } from '../run-frame.js';
import { unwatch, watch } from '../watchdog.js';

/** The stage: the refusal, a wait for a place in flight, or `undefined` with the call counted and placed. */
export function takeBudget(call: GateCall): Verdict {
  const frame = call.frame;
  const tool = call.tool!;
  // The common call, in a few tests: not aborted, counted here, no tool forbidden below, room in
  // all and in flight. Everything else takes the long way, kept out of line.
  if (frame === undefined || call.counted || frame.noInteractive !== undefined || tool.composition === true || (call.signal ?? call.context.signal)?.aborted === true) return budgetOf(call, frame, tool);
  const budget = frame.budget;
  const limits = budget.limits;
  if (budget.calls >= limits.calls || budget.inFlight >= limits.inFlight) return budgetOf(call, frame, tool);
  budget.calls++;
  budget.inFlight++;
  call.slot = budget;
  return undefined;
}

/** {@link takeBudget} for every other call. */
function budgetOf(call: GateCall, frame: RunFrame | undefined, tool: ITool): Verdict {
  const abort = call.signal ?? call.context.signal;
  if (abort?.aborted) return aborted(call);
  if (frame === undefined) return undefined;
  const budget = frame.budget;
  // A call a person was asked about was checked and counted before they were (countBeforeAsking).
  if (!call.counted) {
    if (frame.noInteractive !== undefined && frame.refusesInteractive(tool.name, tool.interactive)) return interactive(call);
    if (budget.calls >= budget.limits.calls) return budgetRefusal('calls', budget, `Tool "${tool.name}" was not started`);
    budget.calls++;
  }
  if (tool.composition === true) return undefined;
  if (budget.inFlight >= budget.limits.inFlight) return waitForPlace(call, budget);
  budget.inFlight++;
  call.slot = budget;
  return undefined;
}

/**
 * Before a person is asked about a call: the checks that would refuse it anyway (the abort, an
 * interactive tool under a script, the budget's count of calls), so no one is asked about a call
 * that cannot run. The call is counted here, not when it starts: calls asked about at once cannot
 * all pass a budget with room for one, and a call the person refuses stays counted, so a model
 * cannot put questions to a person without end. Returns the refusal, or `undefined` with the call
 * counted ({@link GateCall.counted}).
 */
export function countBeforeAsking(call: GateCall, abort: AbortSignal | undefined): ToolExecutionResult | undefined {
  if (abort?.aborted) return aborted(call);
  call.counted = true;
  const frame = call.frame;
  if (frame === undefined) return undefined;
  const tool = call.tool!;
  if (frame.noInteractive !== undefined && frame.refusesInteractive(tool.name, tool.interactive)) return interactive(call);
  const budget = frame.budget;
  if (budget.calls >= budget.limits.calls) return budgetRefusal('calls', budget, `Tool "${tool.name}" was not started`);
  budget.calls++;
  return undefined;
}

/** A call waiting for a place in flight: the pipeline goes on once the budget gives it one. */
class Waiting extends Later implements WaitingCall {
  // Declared and set in the constructor, not class fields: see GateCall.
  declare live: boolean;
  declare readonly budget: CallBudget;
  private declare readonly call: GateCall;

  constructor(call: GateCall, budget: CallBudget) {
    super();
    this.live = true;
    this.budget = budget;
    this.call = call;
  }

  /** A place is free (the budget counted it): go on at once, unless the call was aborted meanwhile. */
  start(): void {
    const call = this.call;
    if (call.timed) unwatch(call, call.reused);
    call.wait = undefined;
    call.slot = this.budget;
    const abort = call.signal ?? call.context.signal;
    this.settle(abort?.aborted ? aborted(call) : undefined);
  }
}

/** Queue the call until a place in flight is free; it waits at most its own timeout. */
function waitForPlace(call: GateCall, budget: CallBudget): Waiting {
  const wait = new Waiting(call, budget);
  call.wait = wait;
  budget.wait(wait);
  const ticks = call.ticks;
  call.timed = ticks > 0;
  if (ticks > 0) watch(call, ticks);
  return wait;
}

/** The refusal of a call whose run was aborted before its tool ran. */
export function aborted(call: GateCall): ToolExecutionResult {
  const name = call.tool?.name ?? call.name;
  return failure('step_aborted', `Aborted before tool "${name}" ran.`, { tool: name, step: call.step });
}

function interactive(call: GateCall): ToolExecutionResult {
  const name = call.tool!.name;
  return failure('tool_interactive', `Tool "${name}" needs its own moment with a person or the host, and this call comes from a script; call it directly.`, {
    tool: name,
    step: call.step,
  });
}
