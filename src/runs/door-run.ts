/**
 * How a door takes part in pausing: it registers the gate it runs through (so `resumeRun` finds
 * its journal), and the outermost door of a run makes the run's record, hands it to the run's
 * frame and turns the run's end into the door's result (see `RunRecord.finish`).
 */
import { gateSettings } from '../gate/settings.js';
import { frameOf, handRun } from '../gate/run-frame.js';
import type { StepGate } from '../gate/options.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { RunRecord } from './run-record.js';
import { newRunId, runIdOf } from './run-token.js';
import type { Pausing } from './pausing.js';

export { gateOfDoor, registerDoor } from './door-registry.js';

/** Resumptions on their way into their door, keyed by the `sessionData` `resumeRun` made for them. */
const RESUMES = new WeakMap<object, RunRecord>();

/** Send `record` into the door called with a context whose `sessionData` is `sessionData`. */
export function sendResumption(sessionData: object, record: RunRecord): void {
  RESUMES.set(sessionData, record);
}

/**
 * The record of a run of door `door` with `input`, when it is the outermost door of a run that may
 * pause (its gate, made by `createStepGate`, has an approval hook): a resumption's record when
 * `resumeRun` sent one, else a new one. `undefined` for a nested door (its caller's run records
 * its calls) and for a gate that cannot pause.
 */
export function beginRun(gate: StepGate, context: ToolExecutionContext, door: string, input: unknown): RunRecord | undefined {
  if (frameOf(context) !== undefined) return undefined;
  const pausing = gateSettings(gate)?.pausing;
  if (pausing === undefined) return undefined;
  const sessionData = context.sessionData;
  if (sessionData !== undefined && sessionData !== null) {
    const resumed = RESUMES.get(sessionData);
    if (resumed !== undefined) {
      RESUMES.delete(sessionData);
      return resumed;
    }
  }
  const name: unknown = context.runName;
  const runId = typeof name === 'string' && name !== '' ? runIdOf(name) : newRunId();
  return new RunRecord(pausing, runId, 0, door, input, scopeIn(pausing, context), undefined);
}

/** What a scope that could not be told reads as: no resumption's scope is ever this. */
const NO_SCOPE = '\u0000no scope';

/** The scope of `context` by the gate's setting; one no context matches when the setting throws or answers something else than text. */
export function scopeIn(pausing: Pausing, context: ToolExecutionContext): string {
  try {
    const scope: unknown = pausing.scope(context ?? {});
    return typeof scope === 'string' ? scope : NO_SCOPE;
  } catch {
    return NO_SCOPE;
  }
}

/**
 * Run `enter` (which makes the door's outermost frame synchronously) with `run` handed to that
 * frame, and turn the run's end into the door's result. Without a record, `enter` runs as it is.
 */
export function runRecorded(run: RunRecord | undefined, enter: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
  if (run === undefined) return enter();
  let running: Promise<ToolExecutionResult>;
  handRun(run);
  try {
    running = enter();
  } finally {
    handRun(undefined);
  }
  return running.then((result) => run.finish(result));
}
