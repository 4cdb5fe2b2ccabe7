/**
 * `run_js`: the model writes one async function body, the body calls tools through `callTool`,
 * and only its answer comes back. Every call passes the same StepGate a declarative pipeline
 * uses, so the chainability rule, permissions, approvals, depth and abort hold here too.
 */
import { SCRIPT_TOOL_NAME } from '../batching-names.js';
import { failure, type ErrorCode } from '../../codes.js';
import { argsRefusal } from '../../gate/stages/arguments.js';
import { callResolved } from '../../gate/call.js';
import { checkChainable, namesOf } from '../../gate/stages/chainable.js';
import { dryRunOf } from '../../engine/run-settings.js';
import { isRecord } from '../../spec/nodes.js';
import { budgetRefusal } from '../../gate/budget.js';
import { enterComposition } from '../../gate/depth.js';
import { observeRefusal } from '../../gate/events.js';
import { gateSettings } from '../../gate/settings.js';
import { frameOf } from '../../gate/run-frame.js';
import { messageOf } from '../../gate/message-of.js';
import type { StepGate } from '../../gate/options.js';
import type { EffectRecord, ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { CallLedger } from './call-ledger.js';
import { refusedCall, toScriptCallResult, toScriptValueResult, type ScriptCallResult } from './call-result.js';
import { createScriptDiscovery, type ScriptDiscovery, type ScriptDiscoveryOptions } from '../../discovery/script-discovery.js';
import { resultsReadAsText } from '../../results-as-text.js';
import { errorPosition, excerpt } from './error-position.js';
import { resolveScriptLimits, type ScriptLimits, type ScriptToolOptions } from './options.js';
import { resolveScope } from '../observations/observation-scope.js';
import { defaultObservationScope } from '../../session-scope.js';
import type { SandboxCall, SandboxOutcome } from './run-contract.js';
import { defaultSandboxPool, type SandboxPool } from './pool.js';
import { runOnPool, type ScriptClock, type ScriptRunResult } from './pooled-run.js';
import { beginRun, registerDoor, runRecorded } from '../../runs/door-run.js';
import type { RunRecord } from '../../runs/run-record.js';
import { keepDrawn, MAX_SANDBOX_VALUES } from '../../runs/sandbox-values.js';

/**
 * The arguments of `run_js`.
 *
 * @category Code mode / discovery
 */
export interface ScriptToolInput {
  /** The body of an async function; `callTool(name, args)` is in scope. */
  code: string;
}

/**
 * The description the model reads. Kept to three short sentences: the definition is sent on
 * every turn, so each word costs every request.
 */
function description(maxCalls: number): string {
  return (
    'Run an async JS function body in a sandbox. await callTool(name, args) gives {text, error} (error null if ok); ' +
    `Promise.all runs calls at once. Max ${maxCalls} calls. Return only the answer.`
  );
}

/**
 * Only `code`: the tool reads nothing else, and the definition is sent on every turn. (An
 * `intention` field, once listed, is not asked for; a model that still sends one is not refused.)
 */
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string' },
  },
  required: ['code'],
};

/**
 * How long past the run's limit a call's own gate time-out fires. The run's deadline must win (a
 * tool that never settles ends the run with `script_timeout`, not an error the script carries
 * on with); the call's time-out then only lets the abandoned call's promise settle and be freed.
 */
const CALL_TIMEOUT_GRACE_MS = 1000;

/**
 * How long a run that has ended waits for the calls it left in flight (a `callTool` the script
 * did not await, a call the deadline cut off), so that how they ended can be listed in `effects`.
 * An aborted run does not wait: the host asked it to stop.
 */
const IN_FLIGHT_GRACE_MS = 200;

/** The most abandoned calls listed in a failure's `details.abandoned`; `abandonedCount` has them all. */
const MAX_LISTED_ABANDONED = 20;

/**
 * Make the `run_js` tool: the model's scripts, every call they make through `gate`.
 *
 * It runs one JavaScript body in a fresh QuickJS sandbox, whose only way
 * out is `callTool(name, args)`, which resolves every call through `gate`. The sandbox runs on a
 * worker thread from a bounded pool, so a script never blocks the host's event loop, and the time
 * limit holds whatever the script does: at the deadline the worker is stopped.
 *
 * - Inside the script a call resolves to `{ text, error }`: `text` is the output (a string as
 *   written, anything else as JSON, cut to `maxCallResultBytes` with a note), always a string;
 *   `error` is `null` on success, else `{ code, message, innerCode? }`. A refused or failed call
 *   is data; the script decides what to do with it.
 * - Only a thrown exception (`script_error`, with the message, the script's line and column), the
 *   time limit (`script_timeout`), the memory limit (`script_memory`) or an answer that is too
 *   long (`script_return_too_large`), not JSON or holding a promise nobody awaited
 *   (`script_return_invalid`) fails the run. A script that waits on a promise nothing will settle
 *   fails at once as `script_error`; so does reading `.text` or `.error` of a call not awaited.
 * - The answer: a string is the output as written; `undefined` is `""`; anything else is its JSON.
 * - Calls past `maxCalls`, and calls whose arguments pass `maxCallArgsBytes` (or bring the run's
 *   to more than `maxRunArgsBytes`), are not made; they resolve to `script_too_many_calls` and
 *   `script_args_too_large` errors.
 * - Interactive tools (see {@link ScriptToolOptions.interactiveTools} and `ITool.interactive`)
 *   are refused with `tool_interactive`, and `run_js` itself with `pipeline_self_call`.
 * - No call starts after the run ends, however it ends: the calls get the run's own abort signal
 *   (which also fires with the host's), and the gate checks it after the host's checks, so an
 *   approval that comes late starts nothing.
 * - The result's `effects` lists each call to a side-effecting tool that started, in the order
 *   the calls finished, with its `outcome` (a tool that failed after it started is listed: it may
 *   have changed something). Calls still in flight when the run ends are waited for briefly; those
 *   still running are listed with the outcome `unknown`, and named in a failure's
 *   `details.abandoned`.
 * - When every sandbox of the pool is busy, the run waits for one, at most its time limit (its
 *   script then still has the whole limit); past the pool's queue, or when none comes free in
 *   time, it is refused with `budget_exceeded` (`details.limit: 'sandboxes'`) and never started.
 * - An abort ends the run at once with `step_aborted`.
 * - A call whose approval is pending (the hook answered `{ pending: true }`) pauses the run: the
 *   call does not run, the script is ended (its sandbox let go), the calls in flight finish and
 *   are recorded, and the result is `approval_pending` with a token; `resumeRun` runs the script
 *   again from its start, its calls up to the pause answered from the journal. In a run that may
 *   pause, the script's `Math.random` and clock are recorded so that the replay draws the same.
 *
 * `hasSideEffects` is `true` exactly when `sideEffectingTools` lists a tool: only then can a
 * script reach a side-effecting tool, since the gate refuses every unlisted one. A host that
 * chains `run_js` itself must therefore list it when it lists anything for it.
 *
 * @param gate - the gate every call passes
 * @param options - the limits and the pool; see {@link ScriptToolOptions}
 *
 * @example
 * ```ts
 * const runJs = createScriptTool(gate, { sideEffectingTools: ['write_file'], timeoutMs: 10_000 });
 * registry.set(runJs.name, runJs);
 * const result = await runJs.execute({ code: "const r = await callTool('read_file', { path: 'a.ts' }); return r.text.length;" }, {});
 * ```
 *
 * @category Code mode / discovery
 */
export function createScriptTool(gate: StepGate, options: ScriptToolOptions = {}): ITool {
  const limits = resolveScriptLimits(options);
  const pool = options.pool ?? defaultSandboxPool();
  const scope = options.scope ?? defaultObservationScope;
  // The catalog scripts search: made on the first search (its index is built then), or given.
  const given = options.discovery;
  let made: ScriptDiscovery | undefined = given !== undefined && isScriptDiscovery(given) ? given : undefined;
  const discovery = (): ScriptDiscovery =>
    (made ??= createScriptDiscovery(gate, given !== undefined && !isScriptDiscovery(given) ? given : {}, {
      sideEffectingTools: limits.sideEffectingTools,
      interactiveTools: limits.interactiveTools,
    }));
  const codeOnly = given !== undefined && (isScriptDiscovery(given) ? given.codeOnly : given.codeOnly === true);
  const tool: ITool = {
    id: SCRIPT_TOOL_NAME,
    name: SCRIPT_TOOL_NAME,
    displayName: 'Run JavaScript',
    description: description(limits.maxCalls),
    inputSchema: INPUT_SCHEMA,
    hasSideEffects: limits.sideEffectingTools.size > 0,
    composition: true,
    async execute(args, context) {
      try {
        const ctx = context ?? {};
        // The outermost door of a run that may pause (its gate asks for approvals) records it.
        return await runRecorded(dryRunOf(ctx) ? undefined : beginRun(gate, ctx, SCRIPT_TOOL_NAME, args), () =>
          execute(gate, tool, limits, pool, discovery, resolveScope(scope, ctx) ?? '', args, ctx),
        );
      } catch (error) {
        // Errors are data: nothing is thrown across the tool boundary.
        return failure('script_error', `run_js failed on the host: ${messageOf(error)}`, { message: messageOf(error) });
      }
    },
  };
  // Code-only: the model is offered this tool alone, and its description says how to find the
  // rest, read again at each listing so a registry that changes is described as it is.
  if (codeOnly) Object.defineProperty(tool, 'description', { get: () => discovery().description(), enumerable: true });
  registerDoor(tool, () => gate);
  return tool;
}

/** Whether the `discovery` option is a discovery made already, rather than its options. */
function isScriptDiscovery(value: ScriptDiscovery | ScriptDiscoveryOptions): value is ScriptDiscovery {
  return typeof (value as ScriptDiscovery).description === 'function' && typeof (value as ScriptDiscovery).catalog === 'object';
}

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

async function execute(
  gate: StepGate,
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
  const internals = gateSettings(gate);
  const entered = enterComposition(context, { reader: 'code', noInteractive: limits.interactiveTools, limits: internals?.limits, tracer: internals?.tracer, traceMessages: internals?.traceMessages, door, dryRun: context.dryRun !== undefined }, signal);
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

  const onCall = async (call: SandboxCall, clock: ScriptClock): Promise<ScriptCallResult> => {
    const step = `call ${call.index}`;
    // A call the script refuses before the gate is told to whoever watches the run, as the gate's own refusals are.
    const refuse = (code: ErrorCode, message: string, tool: ITool | undefined): ScriptCallResult => {
      observeRefusal(nested, frame, call.name, tool, step, failure(code, message, { tool: call.name, step }));
      return refusedCall(code, message);
    };
    const callArgs = parseArgs(call.args);
    if (!callArgs) {
      return refuse('input_invalid', 'callTool args must be a plain object that JSON can write (no cycles, no BigInt).', undefined);
    }
    // The catalog answers without a tool: no gate, no ledger (a search changes nothing).
    if (call.mode === 'search' || call.mode === 'describe') return discover(discovery(), call.mode, callArgs, limits.maxCallResultBytes);
    const answer = (result: ToolExecutionResult, tool: ITool | undefined): ScriptCallResult =>
      call.mode === 'value'
        ? toScriptValueResult(result, call.name, tool !== undefined && resultsReadAsText(tool), limits.maxCallResultBytes)
        : toScriptCallResult(result, limits.maxCallResultBytes);
    const resolved = gate.resolve(call.name);
    if (call.name === SCRIPT_TOOL_NAME || (resolved !== undefined && resolved === self)) {
      return refuse('pipeline_self_call', 'A script cannot call run_js; write the work into this script instead.', resolved);
    }
    if (limits.interactiveTools.has(call.name) || resolved?.interactive === true) {
      return refuse('tool_interactive', `Tool "${call.name}" needs its own moment with a person or the host; call it directly, not from a script.`, resolved);
    }
    // The rule first, then the arguments against the tool's own schema, as run_pipeline and compose check them.
    const rule = checkChainable(call.name, resolved, limits.sideEffectingTools, namesOf(gate), gate.advice);
    const refusal = rule.ok ? argsRefusal(rule.tool, call.name, step, callArgs) : rule.refusal;
    if (refusal || !rule.ok) {
      const refused = refusal ?? failure('step_missing', `No tool named "${call.name}".`);
      observeRefusal(nested, frame, call.name, resolved, step, refused);
      return answer(refused, resolved);
    }
    if (dry && (rule.tool.hasSideEffects === true || rule.tool.composition === true)) {
      // A dry run: the rule decided above, but the call is not made; it is listed with its arguments.
      ledger.wouldRun(step, call.name, callArgs);
      const outputs = dry.stepOutputs;
      const output = Object.hasOwn(outputs, step) ? outputs[step] : Object.hasOwn(outputs, call.name) ? outputs[call.name] : `dry run: "${call.name}" was not run`;
      return answer({ success: true, output }, rule.tool);
    }
    if (limits.slowTools.has(call.name)) clock.extendTo(limits.slowTimeoutMs);
    // The instance checked above is the one the rule checks and the gate runs.
    const pending = callResolved(gate, call.name, resolved, callArgs, nested, {
      sideEffectingTools: limits.sideEffectingTools,
      signal,
      step,
      timeoutMs: clock.remainingMs() + CALL_TIMEOUT_GRACE_MS,
    });
    if (inFlight !== undefined) {
      inFlight.add(pending);
      void pending.finally(() => inFlight.delete(pending)).catch(() => undefined);
    }
    const { result } = await ledger.track(step, call.name, resolved, pending);
    // The run paused at this call (or its replay diverged): the script ends here, and never sees the answer.
    if (record?.stopped === true) stopScript?.abort();
    return answer(result, rule.tool);
  };

  let run: ScriptRunResult;
  budget.sandboxes++;
  try {
    const request = { code, limits, pool, scope, signal: stopScript?.signal ?? hostSignal };
    run = await runOnPool(values === undefined ? request : { ...request, values: values.given, maxValues: MAX_SANDBOX_VALUES, onDrawn: (drawn) => keepDrawn(values.kept, drawn) }, onCall);
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
  runEnded.abort();
  hostSignal?.removeEventListener('abort', onHostAbort);
  const effects = await ledger.close(run.outcome.kind === 'aborted' && !stopped ? 0 : IN_FLIGHT_GRACE_MS);
  const result = stopped ? { ...stoppedScript(record!), effects } : toResult(run, limits, pool, effects, code);
  // The script's span (when tracing) ends with its verdict; its calls' spans are its children.
  frame.end(result);
  return result;
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

/**
 * What a script whose run stopped gives: the divergence, or that it waits for a person (the
 * outermost door's result then carries the token; see `RunRecord.finish`).
 */
function stoppedScript(record: RunRecord): ToolExecutionResult {
  return record.diverged ?? failure('approval_pending', 'The script was ended where its run waits for a person\'s approval; resuming the run runs it again from its start.', { tool: SCRIPT_TOOL_NAME });
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

/** Turn a run's outcome into the tool's result; every failure names what to change. */
function toResult(run: ScriptRunResult, limits: ScriptLimits, pool: SandboxPool, effects: EffectRecord[], code: string): ToolExecutionResult {
  const outcome = run.outcome;
  if (outcome.kind === 'returned') {
    const over = run.callsOverLimit ?? 0;
    if (over === 0) return { success: true, output: outcome.text, effects };
    // The script carried on past calls that were never made: its answer may leave them out, and
    // the model reading it must know.
    return {
      success: true,
      output: `${outcome.text}\n[run_js: ${over} call${over === 1 ? '' : 's'} past the limit of ${limits.maxCalls} a run ${over === 1 ? 'was' : 'were'} not made (script_too_many_calls); this answer may be incomplete]`,
      details: { incomplete: true, callsOverLimit: over, maxCalls: limits.maxCalls },
      effects,
    };
  }
  const abandoned = run.abandoned.map(({ index, name }) => ({ step: `call ${index}`, tool: name }));
  const extra =
    abandoned.length === 0
      ? {}
      : abandoned.length <= MAX_LISTED_ABANDONED
        ? { abandoned }
        : { abandoned: abandoned.slice(0, MAX_LISTED_ABANDONED), abandonedCount: abandoned.length };
  let result: ToolExecutionResult;
  switch (outcome.kind) {
    case 'threw':
      result = thrownFailure(outcome, code, extra);
      break;
    case 'stalled':
      result = failure(
        'script_error',
        'The script waits on a promise that nothing will settle: only callTool promises settle in run_js (there are no timers). Await callTool results and return.',
        { message: 'the script awaits a promise that never settles' },
      );
      break;
    case 'timeout':
      result =
        outcome.computedMs === undefined
          ? failure('script_timeout', `The script ran past its ${formatMs(run.timeLimitMs)} limit. Do less per run (fewer calls, no long loops) or split the work.`, {
              timeoutMs: run.timeLimitMs,
              ...extra,
            })
          : failure(
              'script_timeout',
              `The script computed for ${formatMs(outcome.computedMs)} without awaiting while other scripts waited for its sandbox thread (at most ${formatMs(pool.sliceMs)} at a stretch). Do less per run, or await between parts of a long computation.`,
              { timeoutMs: run.timeLimitMs, computedMs: outcome.computedMs, sliceMs: pool.sliceMs, ...extra },
            );
      break;
    case 'thread_lost':
      result = failure(
        'script_sandbox_lost',
        'Another script on the same sandbox thread would not stop, and the thread was stopped with this run on it; the run ended early. details.effects lists the calls it made. Run it again.',
        { ...extra },
      );
      break;
    case 'memory':
      result = failure(
        'script_memory',
        `The script ran past its ${Math.round(limits.memoryLimitBytes / (1024 * 1024))} MB memory limit. Keep less in memory: reduce each result as it arrives and return a summary.`,
        { memoryLimitBytes: limits.memoryLimitBytes, ...extra },
      );
      break;
    case 'aborted':
      result = failure('step_aborted', 'The run was aborted.', { tool: SCRIPT_TOOL_NAME, ...extra });
      break;
    case 'return_too_large':
      result = failure(
        'script_return_too_large',
        `The script returned ${outcome.length} characters; the limit is ${limits.maxReturnChars}. Return something smaller: a count instead of a list, the first line instead of the file, the failing entry instead of the log.`,
        { length: outcome.length, limit: limits.maxReturnChars },
      );
      break;
    case 'return_invalid':
      result = failure(
        'script_return_invalid',
        `The returned value cannot be sent as JSON (${outcome.reason}). Return a string, or plain data without cycles, functions or BigInt.`,
        { reason: outcome.reason },
      );
      break;
    case 'return_pending':
      result = failure(
        'script_return_invalid',
        'The script returned a promise, or a value holding one: a callTool call was not awaited. Write `const r = await callTool(name, args)`, or `await Promise.all([...])` for several calls, and return what they resolve to.',
        { reason: 'a promise that was not awaited', ...extra },
      );
      break;
    case 'no_sandbox':
      result = failure(
        'budget_exceeded',
        outcome.reason === 'queue_full'
          ? `The sandbox pool is full (${pool.maxRuns} runs at once, ${pool.maxRunsPerScope} for one session) and so is its queue; this run was not started. Run fewer scripts at once, or do more in one script.`
          : `No place in the sandbox pool came free within the run's ${formatMs(limits.timeoutMs)} limit (${pool.maxRuns} runs at once, ${pool.maxRunsPerScope} for one session); this run was not started. Run fewer scripts at once, or do more in one script.`,
        { limit: 'sandboxes', reason: outcome.reason, maxRuns: pool.maxRuns, maxRunsPerScope: pool.maxRunsPerScope, maxQueuedRuns: pool.maxQueuedRuns, queuedMs: run.queuedMs },
      );
      break;
    case 'crashed':
      result = failure('script_error', `The JavaScript sandbox failed: ${outcome.message}. Simplify the script (less recursion) and send it again.`, {
        message: outcome.message,
        ...(run.output ? { output: run.output } : {}),
        ...extra,
      });
      break;
    case 'unavailable':
      result = failure('script_error', `The JavaScript sandbox could not start: ${outcome.message}`, { message: outcome.message });
      break;
  }
  return { ...result, effects };
}

/** The failure for an exception the script threw (a syntax error included), pointing at its place. */
function thrownFailure(
  outcome: Extract<SandboxOutcome, { kind: 'threw' }>,
  code: string,
  extra: Record<string, unknown>,
): ToolExecutionResult {
  // Only an error the compiler raised is the script's syntax: JSON.parse throws a SyntaxError too.
  const syntax = outcome.compile === true;
  const position = errorPosition(code, outcome.line, outcome.column, syntax);
  const said = position?.note ?? outcome.message;
  const message = outcome.name ? `${outcome.name}: ${said}` : said;
  let where = '';
  if (position) where = position.column === undefined ? ` at line ${position.line}` : ` at line ${position.line}, column ${position.column}`;
  const lead = syntax ? 'The script has a syntax error' : 'The script threw';
  const shown = position ? excerpt(code, position) : '';
  return failure('script_error', `${lead}${where}: ${message}.${shown}\n${hintFor(outcome.name, outcome.message, code, syntax)}Fix the code and send it again.`, {
    message,
    ...(position ? { line: position.line } : {}),
    ...(position?.column !== undefined ? { column: position.column } : {}),
    ...extra,
  });
}

/** Host globals a model reaches for that a sandbox does not have. */
const HOST_GLOBALS = new Set([
  'require', 'process', 'fetch', 'setTimeout', 'setInterval', 'setImmediate', 'console', 'Buffer',
  'module', 'exports', '__dirname', '__filename', 'window', 'document', 'global',
]);

/** A hint for the mistakes a model makes most in a sandbox: reaching for what is not there. */
function hintFor(name: string, message: string, code: string, compile: boolean): string {
  if (compile && /^\s*(import|export)\s/m.test(code)) {
    return 'Modules cannot be imported in run_js; callTool is the only interface. ';
  }
  if (!compile && name === 'SyntaxError') {
    return "A SyntaxError while the script ran comes from parsing text, most often JSON.parse of a tool's text that is not JSON: a call's text is always a string, JSON only when the tool wrote JSON. Check r.error first, and parse only what is JSON. ";
  }
  const missing = /^'([\w$]+)' is not defined/.exec(message)?.[1];
  if ((name === 'ReferenceError' && missing !== undefined && HOST_GLOBALS.has(missing)) || /could not load module/.test(message)) {
    return 'run_js has only standard JavaScript and callTool: no require, import, process, fetch, timers or console. ';
  }
  return '';
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
