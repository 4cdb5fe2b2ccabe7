/**
 * What a `run_js` run answers: its outcome turned into the tool's result, each failure naming what
 * to change (the script's line for an exception, what to do less of for a limit).
 */
import { failure } from '../../codes.js';
import { endSentence } from '../../sentence.js';
import type { RunRecord } from '../../runs/run-record.js';
import type { EffectRecord, ToolExecutionResult } from '../../tool.js';
import { SCRIPT_TOOL_NAME } from '../batching-names.js';
import { formatBytes } from '../observations/format.js';
import { errorPosition, excerpt } from './error-position.js';
import type { ScriptLimits } from './options.js';
import type { SandboxPool } from './pool.js';
import type { ScriptRunResult } from './pooled-run.js';
import type { SandboxOutcome } from './run-contract.js';

/** The most abandoned calls listed in a failure's `details.abandoned`; `abandonedCount` has them all. */
const MAX_LISTED_ABANDONED = 20;

/**
 * What a script whose run stopped gives: the divergence, or that it waits for a person (the
 * outermost door's result then carries the token; see `RunRecord.finish`).
 */
export function stoppedScript(record: RunRecord): ToolExecutionResult {
  return record.diverged ?? failure('approval_pending', 'The script was ended where its run waits for a person\'s approval; resuming the run runs it again from its start.', { tool: SCRIPT_TOOL_NAME });
}

/** Turn a run's outcome into the tool's result; every failure names what to change. */
export function toResult(run: ScriptRunResult, limits: ScriptLimits, pool: SandboxPool, effects: EffectRecord[], code: string): ToolExecutionResult {
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
        outcome.reason === 'too_large'
          ? `The script may hold more memory (its memoryLimitBytes) than the sandbox pool gives its runs (${formatBytes(pool.maxMemoryBytesPerScope)} for one session, ${formatBytes(pool.maxMemoryBytes)} in all); this run was not started. Give run_js a smaller memoryLimitBytes, or the pool a larger maxMemoryBytes.`
          : outcome.reason === 'queue_full'
          ? `The sandbox pool is full (${pool.maxRuns} runs at once, ${pool.maxRunsPerScope} for one session) and so is its queue; this run was not started. Run fewer scripts at once, or do more in one script.`
          : `No place in the sandbox pool came free within the run's ${formatMs(limits.timeoutMs)} limit (${pool.maxRuns} runs at once, ${pool.maxRunsPerScope} for one session); this run was not started. Run fewer scripts at once, or do more in one script.`,
        {
          limit: outcome.reason === 'too_large' ? 'memory' : 'sandboxes',
          reason: outcome.reason,
          maxRuns: pool.maxRuns,
          maxRunsPerScope: pool.maxRunsPerScope,
          maxQueuedRuns: pool.maxQueuedRuns,
          maxMemoryBytes: pool.maxMemoryBytes,
          maxMemoryBytesPerScope: pool.maxMemoryBytesPerScope,
          queuedMs: run.queuedMs,
        },
      );
      break;
    case 'crashed':
      result = failure('script_error', `The JavaScript sandbox failed: ${endSentence(outcome.message)} Simplify the script (less recursion) and send it again.`, {
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
  return failure('script_error', `${lead}${where}: ${endSentence(message)}${shown}\n${hintFor(outcome.name, outcome.message, code, syntax)}Fix the code and send it again.`, {
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
