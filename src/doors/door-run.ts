/**
 * How a door takes part in pausing: the outermost door of a run through a gate that can pause makes
 * the run's record (or takes the one `resumeRun` sent), hands it to the run's frame and turns the
 * run's end into the door's result (see `RunRecord.finish`).
 */
import { dryRunOf } from '../engine/run-settings.js';
import { isLabel } from '../flows/label.js';
import { labelResult, resultLabel, RunFlow } from '../flows/run-flow.js';
import { frameOf, handRun } from '../gate/run-frame.js';
import type { GateSettings } from '../gate/settings.js';
import { scopeIn } from '../runs/pausing.js';
import { RunRecord } from '../runs/run-record.js';
import { newRunId, runIdOf } from '../runs/run-token.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/** Resumptions on their way into their door, keyed by the `sessionData` `resumeRun` made for them. */
const RESUMES = new WeakMap<object, RunRecord>();

/** Send `record` into the door called with a context whose `sessionData` is `sessionData`. */
export function sendResumption(sessionData: object, record: RunRecord): void {
  RESUMES.set(sessionData, record);
}

/**
 * A wrapper that calls a door with a copy of its context's `sessionData` (a recording that tags
 * the calls) hands the resumption on with it: else the door would start the run anew and pause
 * again at the call the person approved.
 */
export function carryResumption(from: unknown, to: object): void {
  if (typeof from !== 'object' || from === null) return;
  const record = RESUMES.get(from);
  if (record === undefined) return;
  RESUMES.delete(from);
  RESUMES.set(to, record);
}

/**
 * The record of a run of door `door` with `input`, when it is the outermost door of a run that may
 * pause (its gate, made by `createStepGate`, has an approval hook): a resumption's record when
 * `resumeRun` sent one, else a new one. `undefined` for a nested door (its caller's run records
 * its calls) and for a gate that cannot pause.
 */
export function beginRun(settings: GateSettings | undefined, context: ToolExecutionContext, door: string, input: unknown): RunRecord | undefined {
  if (frameOf(context) !== undefined) return undefined;
  const pausing = settings?.pausing;
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

/**
 * Run `enter` as a run of door `name` through a gate with `settings`, called with `context` and
 * `input`: it makes the door's outermost frame synchronously, and gets what this run keeps handed
 * to that frame. The outermost door of a run through a gate that can pause records it (a dry run
 * never is), and turns the run's end into the door's result; one through a gate with `flows`
 * follows the labels the run handles, and marks the caller's session with its result's.
 */
export function runAsDoor(
  settings: GateSettings | undefined,
  context: ToolExecutionContext,
  name: string,
  input: unknown,
  enter: () => Promise<ToolExecutionResult>,
): Promise<ToolExecutionResult> {
  const flows = settings?.flows;
  const outermost = frameOf(context) === undefined;
  const run = dryRunOf(context) ? undefined : beginRun(settings, context, name, input);
  let flow: RunFlow | undefined;
  if (flows !== undefined && outermost) {
    // A resumption judges its calls by what its caller gave the first run, as that run did.
    const input = run?.inputLabel !== undefined && isLabel(run.inputLabel) ? run.inputLabel : flows.argumentsOf(context);
    if (run !== undefined) run.inputLabel = input;
    flow = new RunFlow(input);
  }
  if (run === undefined && flow === undefined) return enter();
  let running: Promise<ToolExecutionResult>;
  handRun(run, flow);
  try {
    running = enter();
  } finally {
    handRun(undefined, undefined);
  }
  const finished = run === undefined ? running : running.then((result) => run.finish(result));
  if (flow === undefined) return finished;
  return finished.then((result) => {
    // The caller (a model, through its host) reads the result: its session has seen what it carries.
    // A door that did not say what its result carries is taken to carry all its run read, and the
    // result keeps that label for whoever shows it (the gate's own call record, an MCP server's `_meta`).
    const label = resultLabel(result) ?? flow.label;
    flows!.handedBack(context, label);
    if (typeof result === 'object' && result !== null) labelResult(result, label);
    return result;
  });
}
