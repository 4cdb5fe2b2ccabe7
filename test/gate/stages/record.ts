/** A call record for testing one stage at a time: aimed at a tool, its result kept. */
import { CallBudget, DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/gate/budget.js';
import { GateCall, type CallDoor } from '../../../src/gate/call-record.js';
import type { StepGate } from '../../../src/gate/options.js';
import { RunFrame } from '../../../src/gate/run-frame.js';
import { gateSettings } from '../../../src/gate/settings.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../../src/tool.js';
import type { DoorInfo } from '../../../src/tool-events.js';

/** A record that keeps what it was delivered. */
export class TestCall extends GateCall {
  readonly delivered: ToolExecutionResult[] = [];
  override deliver(result: ToolExecutionResult): void {
    this.delivered.push(result);
  }
}

/** What a test may set of a call. */
export interface CallSetup {
  gate: StepGate;
  tool?: ITool;
  name?: string;
  args?: Record<string, unknown>;
  context?: ToolExecutionContext;
  signal?: AbortSignal;
  timeoutMs?: number;
  door?: Partial<CallDoor>;
  frame?: RunFrame;
}

/** A call aimed as a door aims it, through `gate`. */
export function callOf(setup: CallSetup): TestCall {
  const call = new TestCall();
  const name = setup.name ?? setup.tool?.name ?? 'tool';
  call.aim(name, 'step', setup.timeoutMs, 0, setup.args ?? {}, setup.context ?? {}, setup.signal, gateSettings(setup.gate));
  call.tool = setup.tool;
  call.door = { gate: setup.gate, sideEffectingTools: new Set(), validateArgs: false, dry: undefined, version: undefined, resolved: undefined, ...setup.door };
  call.frame = setup.frame;
  return call;
}

/** A frame of a call from outside, with `limits` and the door `door`. */
export function frameOf(limits: Partial<BudgetLimits> = {}, door?: DoorInfo, path: string[] = []): RunFrame {
  return new RunFrame(new CallBudget({ ...DEFAULT_BUDGET_LIMITS, ...limits }), undefined, door, undefined, false, undefined, 1, path, undefined, undefined);
}
