/**
 * A gated call of a run that may pause: a record of its own (the caller's record is left as it
 * is), whose delivery notes the call's outcome in the run's record before it goes on to the caller.
 */
import type { RunRecord } from '../runs/run-record.js';
import type { ToolExecutionResult } from '../tool.js';
import { GateCall } from './gate-call.js';

/** See the module comment. */
export class RecordedCall extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall.
  declare readonly outer: GateCall;
  declare readonly run: RunRecord;
  declare readonly position: string;
  declare readonly args: Record<string, unknown>;

  constructor(outer: GateCall, run: RunRecord, position: string, args: Record<string, unknown>) {
    super();
    this.outer = outer;
    this.run = run;
    this.position = position;
    this.args = args;
    this.aim(outer.tool, outer.step, outer.timeoutMs, outer.ticks);
    this.frame = outer.frame;
  }

  /** The call ended: noted in the run, then delivered to the caller's record. */
  override deliver(result: ToolExecutionResult): void {
    this.run.ended(this.position, this.tool.name, this.args, result);
    this.outer.deliver(result);
  }
}
