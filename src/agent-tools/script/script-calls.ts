/**
 * The calls of one `run_js` run: each `callTool` (or `tools.<name>()`) the script makes goes through
 * the call pipeline from `chainable` on, after the door's own refusals (a script cannot call run_js,
 * nor a tool that needs its own moment with a person); `searchTools` and `describeTools` are
 * answered from the catalog. Each side-effecting call that starts is followed into the run's
 * effects ledger, and in a run that may pause, every call in flight is followed until it ends.
 */
import { failure, type ErrorCode } from '../../codes.js';
import { GateCall, type CallDoor } from '../../gate/call-record.js';
import { observeRefusal } from '../../gate/events.js';
import { ENTRY, startCall } from '../../gate/pipeline.js';
import type { RunFrame } from '../../gate/run-frame.js';
import { isChainable } from '../../gate/stages/chainable.js';
import { ticksFor } from '../../gate/watchdog.js';
import type { ScriptDiscovery } from '../../discovery/script-discovery.js';
import type { RunSettings } from '../../engine/run-settings.js';
import { resultsReadAsText } from '../../results-as-text.js';
import type { RunRecord } from '../../runs/run-record.js';
import { isRecord } from '../../spec/nodes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { SCRIPT_TOOL_NAME } from '../batching-names.js';
import { CallLedger } from './call-ledger.js';
import { refusedCall, toScriptCallResult, toScriptValueResult, type ScriptCallResult } from './call-result.js';
import type { ScriptLimits } from './options.js';
import type { ScriptLabels } from './script-labels.js';
import type { ScriptClock } from './pooled-run.js';
import type { SandboxCall } from './run-contract.js';

/**
 * How long past the run's limit a call's own gate time-out fires. The run's deadline must win (a
 * tool that never settles ends the run with `script_timeout`, not an error the script carries
 * on with); the call's time-out then only lets the abandoned call's promise settle and be freed.
 */
export const CALL_TIMEOUT_GRACE_MS = 1000;

/** What the calls of one run share: set once, when the run has entered its door. */
export interface ScriptRunCalls {
  /** What the run takes from its door (the gate every call passes among them). */
  settings: RunSettings;
  /** The run_js tool itself, which a script may not call. */
  self: ITool;
  /** The run's limits (the chainable and interactive tools among them). */
  limits: ScriptLimits;
  /** The catalog scripts search. */
  discovery: () => ScriptDiscovery;
  /** The context the run's calls get (one level deeper than the run's). */
  context: ToolExecutionContext;
  /** The run's frame. */
  frame: RunFrame;
  /** The run's own signal: it fires when the run ends, and no call starts after. */
  signal: AbortSignal;
  /** A dry run the host asked for. */
  dry: { stepOutputs: Record<string, unknown> } | undefined;
  /** The run's effects ledger. */
  ledger: CallLedger;
  /** The record of the run, when it may pause. */
  record: RunRecord | undefined;
  /** In a run that may pause: the calls in flight, so a pause lets each end and be recorded. */
  inFlight: Set<Promise<unknown>> | undefined;
  /** Ends the script's sandbox run when its run stops (it paused, or its replay diverged). */
  stopScript: () => void;
  /**
   * With `flows`, the run's labels (see `script-labels.ts`): each call's arguments, and what
   * decided that it is made, carry what they may depend on (for a script that is not
   * instrumented, all it has read so far: a call made before an answer came in cannot depend on
   * it), and each answer is joined in as the host has it, before the script can read it.
   */
  labels: ScriptLabels | undefined;
}

/** Answer the script's calls of one run: see the module comment. */
export function scriptCalls(run: ScriptRunCalls): (call: SandboxCall, clock: ScriptClock) => Promise<ScriptCallResult> {
  const { self, limits, frame, ledger } = run;
  const gate = run.settings.gate;
  const settings = run.settings.gateSettings;
  const nested = run.context;
  // What the stages before the gate's own need of this door: made once per run.
  const door: CallDoor = { gate, sideEffectingTools: limits.sideEffectingTools, validateArgs: true, dry: run.dry, version: undefined, resolved: undefined };
  return async (call, clock) => {
    const step = `call ${call.index}`;
    // A call the door refuses before the pipeline is told to whoever watches the run, as the gate's own refusals are.
    const refuse = (code: ErrorCode, message: string, tool: ITool | undefined): ScriptCallResult => {
      observeRefusal(nested, frame, call.name, tool, step, failure(code, message, { tool: call.name, step }));
      run.labels?.answeredBy(call.site, true);
      return refusedCall(code, message);
    };
    const callArgs = parseArgs(call.args);
    if (!callArgs) {
      return refuse('input_invalid', 'callTool args must be a plain object that JSON can write (no cycles, no BigInt).', undefined);
    }
    // The catalog answers without a tool: no gate, no ledger (a search changes nothing); what it answers depends on what it was asked.
    if (call.mode === 'search' || call.mode === 'describe') {
      const found = discover(run.discovery(), call.mode, callArgs, limits.maxCallResultBytes);
      run.labels?.answeredBy(call.site, found.error !== null);
      return found;
    }
    const resolved = gate.resolve(call.name);
    const answer = (result: ToolExecutionResult): ScriptCallResult =>
      call.mode === 'value'
        ? toScriptValueResult(result, call.name, resolved !== undefined && resultsReadAsText(resolved), limits.maxCallResultBytes)
        : toScriptCallResult(result, limits.maxCallResultBytes);
    if (call.name === SCRIPT_TOOL_NAME || (resolved !== undefined && resolved === self)) {
      return refuse('pipeline_self_call', 'A script cannot call run_js; write the work into this script instead.', resolved);
    }
    if (limits.interactiveTools.has(call.name) || resolved?.interactive === true) {
      return refuse('tool_interactive', `Tool "${call.name}" needs its own moment with a person or the host; call it directly, not from a script.`, resolved);
    }
    // A slow tool the script may call stretches the run's limit before its call's own time-out is set.
    if (limits.slowTools.has(call.name) && isChainable(call.name, resolved, limits.sideEffectingTools)) clock.extendTo(limits.slowTimeoutMs);
    const record = new ScriptCall();
    const timeoutMs = clock.remainingMs() + CALL_TIMEOUT_GRACE_MS;
    record.aim(call.name, step, timeoutMs, ticksFor(timeoutMs), callArgs, nested, run.signal, settings);
    record.door = door;
    record.frame = frame;
    // The instance resolved above is the one the pipeline checks and runs.
    record.tool = resolved;
    const labels = run.labels;
    if (labels !== undefined) {
      record.argLabels = labels.argsOf(call.site);
      record.control = labels.controlOf(call.site);
    }
    const pending = labels === undefined ? record.start() : record.start().then((result) => {
      // The script reads the answer: from now on what is built from it carries it.
      labels.answered(call.site, record.outputLabel, result);
      return result;
    });
    if (record.answered === 'dry') {
      // A dry run: the call was not made; it is listed with its arguments.
      const result = await pending;
      if (result.success) ledger.wouldRun(step, call.name, callArgs);
      return answer(result);
    }
    if (run.inFlight !== undefined) {
      const inFlight = run.inFlight;
      inFlight.add(pending);
      void pending.finally(() => inFlight.delete(pending)).catch(() => undefined);
    }
    const result = await ledger.track(step, call.name, resolved, pending);
    // The run paused at this call (or its replay diverged): the script ends here, and never sees the answer.
    if (run.record?.stopped === true) run.stopScript();
    return answer(result);
  };
}

/** The record of one call of a script: its result, as a promise. */
class ScriptCall extends GateCall {
  // Declared and set in the constructor, not a class field: see GateCall.
  private declare done: (result: ToolExecutionResult) => void;

  constructor() {
    super();
    this.done = IGNORE;
  }

  /** Send the call through the pipeline from `chainable` (the door resolved its tool). */
  start(): Promise<ToolExecutionResult> {
    return new Promise((resolve) => {
      this.done = resolve;
      const now = startCall(this, ENTRY.chainable);
      if (now) resolve(now);
    });
  }

  override deliver(result: ToolExecutionResult): void {
    this.done(result);
  }
}

const IGNORE = (): void => undefined;

/**
 * A script's `searchTools(query, limit?)` or `describeTools(names)`, answered from the catalog of
 * the tools it may call, as a value; wrong arguments are the error the call throws.
 */
function discover(discovery: ScriptDiscovery, mode: 'search' | 'describe', args: Record<string, unknown>, maxBytes: number): ScriptCallResult {
  let answer: unknown;
  if (mode === 'search') {
    const { query, limit } = args;
    if (typeof query !== 'string') return refusedCall('input_invalid', 'searchTools(query, limit?) needs the query as a string, such as searchTools("read a file").');
    if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit > 0)) return refusedCall('input_invalid', 'searchTools(query, limit?): the limit is a whole number of tools, at least 1.');
    answer = discovery.catalog.search(query, limit);
  } else {
    const { names } = args;
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) return refusedCall('input_invalid', 'describeTools(names) needs a list of tool names, such as describeTools(["read_file"]).');
    answer = discovery.catalog.describe(names);
  }
  return toScriptValueResult({ success: true, output: answer }, mode === 'search' ? 'searchTools' : 'describeTools', false, maxBytes);
}

/** The script's args as an object, or `undefined` when they are not a plain JSON object. */
function parseArgs(json: string | null): Record<string, unknown> | undefined {
  if (json === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(json);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

