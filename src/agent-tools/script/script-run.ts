/**
 * One `run_js` run: the door entered (one level of composition deeper, interactive tools refused
 * below it), a sandbox counted against the budget, the script run on the pool with its calls
 * answered (see `script-calls.ts`), and its end turned into the tool's result with its effects.
 */
import { failure } from '../../codes.js';
import type { ScriptDiscovery } from '../../discovery/script-discovery.js';
import { dryRunOf, type RunSettings } from '../../engine/run-settings.js';
import { budgetRefusal } from '../../gate/budget.js';
import { enterComposition } from '../../gate/depth.js';
import { frameOf } from '../../gate/run-frame.js';
import { keepDrawn, MAX_SANDBOX_VALUES } from '../../runs/sandbox-values.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { SCRIPT_TOOL_NAME } from '../batching-names.js';
import { CallLedger } from './call-ledger.js';
import type { ScriptLimits } from './options.js';
import type { SandboxPool } from './pool.js';
import { runOnPool, type ScriptCallHandler, type ScriptRunResult } from './pooled-run.js';
import { CALL_TIMEOUT_GRACE_MS, scriptCalls } from './script-calls.js';
import { inputLabelsOf } from '../../engine/labels.js';
import { flatten } from '../../flows/label-tree.js';
import { labelResult } from '../../flows/run-flow.js';
import { instrumentScript, type InstrumentedScript } from './script-instrument.js';
import { ScriptLabels } from './script-labels.js';
import { stoppedScript, toResult } from './script-result.js';

/**
 * How long a run that has ended waits for the calls it left in flight (a `callTool` the script
 * did not await, a call the deadline cut off), so that how they ended can be listed in `effects`.
 * An aborted run does not wait: the host asked it to stop.
 */
const IN_FLIGHT_GRACE_MS = 200;

/**
 * Run `args.code` as `self` (the run_js tool whose door's settings are `settings`): see `createScriptTool`.
 */
export async function runScript(
  settings: RunSettings,
  self: ITool,
  limits: ScriptLimits,
  pool: SandboxPool,
  discovery: () => ScriptDiscovery,
  scope: string,
  args: Record<string, unknown> | undefined,
  context: ToolExecutionContext,
): Promise<ToolExecutionResult> {
  const code = args?.code;
  if (typeof code !== 'string') {
    return failure('input_invalid', 'run_js needs `code`: the body of an async function, as a string.', {
      errors: ['code must be a string'],
    });
  }
  const hostSignal = context.signal;
  if (hostSignal?.aborted) return failure('step_aborted', 'Aborted before the script ran.', { tool: SCRIPT_TOOL_NAME });
  // The run's own signal: it fires when the run ends, whatever ends it, and when the host's does.
  // Every call gets it, so no call starts once the run is over.
  const runEnded = new AbortController();
  // In a run that may pause: ends the script's sandbox run when the host aborts or the run stops
  // (it paused, or its replay diverged), while its calls in flight go on to their ends.
  let stopScript: AbortController | undefined;
  const onHostAbort = (): void => {
    runEnded.abort(hostSignal?.reason);
    stopScript?.abort(hostSignal?.reason);
  };
  hostSignal?.addEventListener('abort', onHostAbort, { once: true });
  const signal = runEnded.signal;
  // Entered once per run: every call the script makes is one level deeper, as in a pipeline.
  // The script reads each result itself and returns only what the model should see.
  // Interactive tools are refused through every door nested under the script, not only here.
  // An intention, when a caller still sends one, goes to approvals as the model's words.
  const intention = typeof args?.intention === 'string' ? args.intention : undefined;
  const door = { kind: 'run_js' as const, ...(intention !== undefined ? { intention } : {}) };
  const entered = enterComposition(context, { reader: 'code', noInteractive: limits.interactiveTools, limits: settings.limits, tracer: settings.tracer, traceMessages: settings.traceMessages, door, dryRun: context.dryRun !== undefined }, signal);
  if (!entered.ok) {
    hostSignal?.removeEventListener('abort', onHostAbort);
    return entered.refusal;
  }
  const nested = entered.context;
  // A sandbox alive counts against the budget of the call from outside, across nested doors.
  const frame = frameOf(nested)!;
  const budget = frame.budget;
  if (budget.sandboxes >= budget.limits.sandboxes) {
    hostSignal?.removeEventListener('abort', onHostAbort);
    const refusal = budgetRefusal('sandboxes', budget, 'The script was not started');
    frame.end(refusal);
    return refusal;
  }
  const ledger = new CallLedger();
  // A run that may pause records the script's Math.random and clock, so that its replay draws the
  // same; its calls in flight are followed, so that a pause lets each end and be recorded.
  const record = frame.run;
  const values = record?.scriptValues(frame.path);
  const inFlight = record === undefined ? undefined : new Set<Promise<unknown>>();
  if (record !== undefined) {
    stopScript = new AbortController();
    if (hostSignal?.aborted) stopScript.abort(hostSignal.reason);
  }
  // A dry run the host asked for: side-effecting calls and compositions are listed, not made.
  const dry = dryRunOf(context);

  // A run through a gate with `flows` follows labels (see `script-labels.ts`): call site by call
  // site when its script is instrumented. A script whose code is untrusted already makes every
  // call untrusted: it is not analysed.
  const flows = settings.gateSettings?.flows;
  const own = flows === undefined ? undefined : flatten(inputLabelsOf(flows, frame, args, context));
  const instrumented = own !== undefined && own.trusted && limits.preciseLabels ? instrumentScript(code) : undefined;
  const labels = own === undefined ? undefined : new ScriptLabels(own, instrumented?.sites);
  const answer = scriptCalls({
    labels,
    settings,
    self,
    limits,
    discovery,
    context: nested,
    frame,
    signal,
    dry,
    ledger,
    record,
    inFlight,
    stopScript: () => stopScript?.abort(),
  });
  // Whether the script made a call: only a call is ever handed the run's signal.
  let called = false;
  const onCall: ScriptCallHandler = (call, clock) => {
    called = true;
    return answer(call, clock);
  };
  let run: ScriptRunResult;
  budget.sandboxes++;
  try {
    const request = {
      code: instrumented?.code ?? code,
      ...(instrumented !== undefined ? { sites: instrumented.kinds, onBound: () => labels!.bound() } : {}),
      limits,
      pool,
      scope,
      signal: stopScript?.signal ?? hostSignal,
    };
    run = await runOnPool(values === undefined ? request : { ...request, values: values.given, maxValues: MAX_SANDBOX_VALUES, onDrawn: (drawn) => keepDrawn(values.kept, drawn) }, onCall);
    // Another scope's run made the pool stop this run's thread. A run whose calls changed nothing
    // (the ledger saw only tools that declare no side effects) and is not recorded for a pause
    // starts again, once, on another thread (the one that caused the stop now computes apart).
    if (run.outcome.kind === 'thread_lost' && ledger.changedNothing && record === undefined && hostSignal?.aborted !== true) {
      run = await runOnPool(request, onCall);
    }
  } catch (error) {
    runEnded.abort();
    throw error;
  } finally {
    budget.sandboxes--;
  }
  const stopped = record?.stopped === true && hostSignal?.aborted !== true;
  if (stopped) {
    // A run that stopped lets the calls in flight end (each is recorded as it ends, so none runs
    // again on resume; each has its own time-out), and returns once its sandbox is let go, so a
    // paused run holds no thread and no runtime.
    await settledWithin([...inFlight!, run.released], run.timeLimitMs + CALL_TIMEOUT_GRACE_MS);
  }
  // With no call made, no one holds the signal: firing it (an event, and its error made, tens
  // of microseconds) would tell no one.
  if (called) runEnded.abort();
  hostSignal?.removeEventListener('abort', onHostAbort);
  const effects = await ledger.close(run.outcome.kind === 'aborted' && !stopped ? 0 : IN_FLIGHT_GRACE_MS);
  const result = stopped ? { ...stoppedScript(record!), effects } : toResult(positionsIn(run, instrumented), limits, pool, effects, code);
  // What the script answers is built from all it read.
  if (labels !== undefined) labelResult(result, labels.label);
  // The script's span (when tracing) ends with its verdict; its calls' spans are its children.
  frame.end(result);
  return result;
}

/** `run` with the position of an error in the instrumented script given in the script as written. */
function positionsIn(run: ScriptRunResult, instrumented: InstrumentedScript | undefined): ScriptRunResult {
  const outcome = run.outcome;
  if (instrumented === undefined || outcome.kind !== 'threw' || outcome.line === undefined) return run;
  const { line, column } = instrumented.position(outcome.line, outcome.column);
  const { column: _dropped, ...rest } = outcome;
  return { ...run, outcome: { ...rest, line, ...(column !== undefined ? { column } : {}) } };
}

/** Wait for `promises` to settle, at most `ms`. */
async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(promises), bound]);
  clearTimeout(timer);
}

