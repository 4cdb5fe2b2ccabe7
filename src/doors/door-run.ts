/**
 * How a door takes part in pausing: the outermost door of a run through a gate that can pause makes
 * the run's record (or takes the one `resumeRun` sent), hands it to the run's frame and turns the
 * run's end into the door's result (see `RunRecord.finish`).
 */
import { dryRunOf } from '../engine/run-settings.js';
import { readStoredLabel, UNREADABLE_LABEL } from '../flows/stored-labels.js';
import { labelResult, resultLabel, RunFlow } from '../flows/run-flow.js';
import { frameOf, handRun } from '../gate/run-frame.js';
import type { GateSettings } from '../gate/settings.js';
import { scopeIn } from '../runs/pausing.js';
import { RunRecord } from '../runs/run-record.js';
import { newRunId, runIdOf } from '../runs/run-token.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/**
 * Where a resumption rides into its door: a key of the `sessionData` `resumeRun` makes for it. A
 * symbol, so it is no field a host or a journal sees, and copied with the rest by a wrapper that
 * calls the door with a copy of `sessionData` (a recording that tags the calls).
 */
const RESUMPTION = Symbol('toolweave resumption');

/** Records a door has taken: a copy of the `sessionData` that carried one cannot start it again. */
const TAKEN = new WeakSet<RunRecord>();

/** Send `record` into the door called with a context whose `sessionData` is `sessionData`. */
export function sendResumption(sessionData: Record<string | symbol, unknown>, record: RunRecord): void {
  sessionData[RESUMPTION] = record;
}

/** The resumption `sessionData` carries into its door, once. */
function takeResumption(sessionData: unknown): RunRecord | undefined {
  if (typeof sessionData !== 'object' || sessionData === null) return undefined;
  const record = (sessionData as Record<symbol, unknown>)[RESUMPTION];
  if (!(record instanceof RunRecord) || TAKEN.has(record)) return undefined;
  TAKEN.add(record);
  return record;
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
  const resumed = takeResumption(context.sessionData);
  if (resumed !== undefined) return resumed;
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
    // A resumption judges its calls by what its caller gave the first run, as that run did (a
    // label stored but unreadable reads as untrusted, never as the session's label now).
    const stored = run?.inputLabel;
    const input = stored === undefined ? flows.argumentsOf(context) : (readStoredLabel(stored) ?? UNREADABLE_LABEL);
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
    const said = resultLabel(result);
    const label = said ?? flow.label;
    flows!.handedBack(context, label);
    if (said === undefined && typeof result === 'object' && result !== null) labelResult(result, label);
    return result;
  });
}
