/**
 * Recording calls as they happen: each tool wrapped so its arguments and output are written to a
 * sink when it ends, grouped by the observation scope of the call (one session's calls stay
 * apart from another's). The wrapper changes nothing of the call; a sink that throws is ignored.
 */
import { randomUUID } from 'node:crypto';
import { resolveScope, type ObservationScope } from '../agent-tools/observations/observation-scope.js';
import { defaultObservationScope } from '../session-scope.js';
import type { ToolCallStarted, ToolEvent } from '../tool-events.js';
import { messageOf } from '../gate/message-of.js';
import { frameOf } from '../gate/run-frame.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { copyTool } from '../tool-copy.js';
import { DEFAULT_MAX_OUTPUT_CHARS, RECORD_VERSION, type CallRecord } from './record-format.js';

/**
 * Options of {@link recordCalls}.
 *
 * @category Forge: composites from recordings
 */
export interface RecordCallsOptions {
  /** Which session a call belongs to (default: the observation store's default scope, `session:<id>`). */
  scope?: ObservationScope;
  /** The most characters of an output (or of its JSON text) a record keeps (default 65536). */
  maxOutputChars?: number;
}

/**
 * What {@link recordCalls} gives: the tools to register, and the listener to set as `context.onEvent`.
 *
 * @category Forge: composites from recordings
 */
export interface CallRecording {
  /** The tools, each recording its calls; register these instead of the originals. */
  tools: ITool[];
  /**
   * Set as (or call from) `context.onEvent` on the calls the host makes: it tells each record the
   * step and door of its call. Without it a record names the tool as its step.
   */
  onEvent(event: ToolEvent): void;
  /** Wrap one more tool the same way (the same tool gives the same wrapper). */
  wrap(tool: ITool): ITool;
  /**
   * Wrap a door (run_js, run_pipeline, compose, a script served as a tool): a call to it from
   * outside is recorded as a run (`isRun`, with an id in `run`), and every recorded call made
   * inside it carries that id, through every door nested in it. A call to it from inside another
   * run is not recorded itself: its calls belong to the outer run.
   */
  wrapRun(tool: ITool): ITool;
}

/**
 * Where a run's id travels with the calls made inside it: a key of `sessionData`, which every door
 * copies into the calls it makes. A symbol, so no tool reads it by name and no JSON carries it.
 */
const RUN_ID: unique symbol = Symbol('toolweave.recordedRun');

/**
 * Record every call of `tools` into `sink`.
 *
 * A record holds the arguments as given, the output (bounded, with its
 * size when cut), the outcome and code, the time it took, the step and door, and the session's
 * scope. A host registers the returned tools with its gate and passes `onEvent` in the context.
 *
 * @param tools - the tools to record
 * @param sink - told each finished call; it routes records by `scope` (one file per session, say)
 * @param options - the scope function and the output bound
 *
 * @category Forge: composites from recordings
 */
export function recordCalls(tools: readonly ITool[], sink: (record: CallRecord) => void, options: RecordCallsOptions = {}): CallRecording {
  const scopeOf = options.scope ?? defaultObservationScope;
  const maxChars = Math.max(1, options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const seqs = new Map<string, number>();
  const wrapped = new WeakMap<ITool, ITool>();
  // The gate tells a call's start to the listener just before it calls the tool, with nothing
  // awaited between: the start waiting here belongs to the next call that begins.
  let started: { tool: string; step: string; door?: string; provenance?: CallRecord['provenance'] } | undefined;

  function wrap(tool: ITool): ITool {
    const known = wrapped.get(tool);
    if (known) return known;
    const recording: ITool = copyTool(tool, async (args, context: ToolExecutionContext) => {
      const told = started?.tool === tool.name ? started : undefined;
      started = undefined;
      const time = new Date().toISOString();
      const begin = performance.now();
      let result: ToolExecutionResult;
      try {
        result = await tool.execute(args, context);
      } catch (error) {
        write(tool, args, context, told, time, performance.now() - begin, { success: false, error: messageOf(error), details: { code: 'step_threw' } });
        throw error;
      }
      write(tool, args, context, told, time, performance.now() - begin, result);
      return result;
    });
    wrapped.set(tool, recording);
    return recording;
  }

  const runsWrapped = new WeakMap<ITool, ITool>();
  // Per run in progress: how many of its calls were recorded as failed.
  const recordedFailures = new Map<string, number>();
  let runs = 0;
  // Ids unique across recordings too, so one names its run in a whole folder of them.
  const runPrefix = randomUUID().slice(0, 8);

  function wrapRun(tool: ITool): ITool {
    const known = runsWrapped.get(tool);
    if (known) return known;
    const recording = copyTool(tool, async (args, context: ToolExecutionContext) => {
      // Inside another run: its calls are that run's, and the frame on its context must stay.
      if (frameOf(context) !== undefined) return tool.execute(args, context);
      const told = started?.tool === tool.name ? started : undefined;
      started = undefined;
      const run = `run-${runPrefix}-${++runs}`;
      // Every call under the run ends with an event; those that failed without a record of their
      // own (refused before reaching a tool) are counted on the run's record.
      let failedCalls = 0;
      const listener = context?.onEvent;
      // A copy: a resumption on its way into the door rides along with the rest of it.
      const sessionData = { ...context?.sessionData, [RUN_ID]: run };
      const tagged: ToolExecutionContext = {
        ...context,
        sessionData,
        onEvent(event) {
          if (event.type === 'call_ended' && !event.ok) failedCalls++;
          listener?.(event);
        },
      };
      recordedFailures.set(run, 0);
      const time = new Date().toISOString();
      const begin = performance.now();
      let result: ToolExecutionResult;
      try {
        result = await tool.execute(args, tagged);
      } catch (error) {
        write(tool, args, context, told, time, performance.now() - begin, { success: false, error: messageOf(error), details: { code: 'step_threw' } }, run, failedCalls);
        throw error;
      }
      write(tool, args, context, told, time, performance.now() - begin, result, run, failedCalls);
      return result;
    });
    // A description read when listed (a code-only run_js's) stays read when listed.
    const description = Object.getOwnPropertyDescriptor(tool, 'description');
    if (description?.get) Object.defineProperty(recording, 'description', description);
    runsWrapped.set(tool, recording);
    return recording;
  }

  function write(tool: ITool, args: unknown, context: ToolExecutionContext, told: typeof started, time: string, ms: number, result: ToolExecutionResult, ownRun?: string, failedCalls = 0): void {
    const scope = resolveScope(scopeOf, context) ?? '';
    const tag = ownRun ?? (context?.sessionData as { [RUN_ID]?: unknown } | undefined)?.[RUN_ID];
    const run = typeof tag === 'string' ? tag : undefined;
    let unrecorded = 0;
    if (ownRun !== undefined) {
      unrecorded = Math.max(0, failedCalls - (recordedFailures.get(ownRun) ?? 0));
      recordedFailures.delete(ownRun);
    } else if (run !== undefined && result?.success !== true && recordedFailures.has(run)) {
      recordedFailures.set(run, recordedFailures.get(run)! + 1);
    }
    const seq = seqs.get(scope) ?? 0;
    seqs.set(scope, seq + 1);
    const door = told?.door ?? frameOf(context)?.door?.kind;
    const record: CallRecord = {
      v: RECORD_VERSION,
      seq,
      time,
      scope,
      tool: tool.name,
      ...(run !== undefined ? { run } : {}),
      ...(ownRun !== undefined ? { isRun: true as const } : {}),
      ...(unrecorded > 0 ? { failedUnrecorded: unrecorded } : {}),
      ...(door ? { door } : {}),
      step: told?.step ?? tool.name,
      ...(tool.hasSideEffects !== undefined ? { hasSideEffects: tool.hasSideEffects } : {}),
      ...(ownRun !== undefined ? boundedArgs(args, maxChars) : { args: args ?? {} }),
      ...(ownRun === undefined && told?.provenance !== undefined ? { provenance: told.provenance } : {}),
      ok: result?.success === true,
      ms: Math.round(ms * 10) / 10,
    };
    const code = result?.details?.code;
    if (typeof code === 'string') record.code = code;
    if (record.ok) Object.assign(record, boundedOutput(result.output, maxChars));
    else if (typeof result?.error === 'string') record.error = result.error.slice(0, maxChars);
    try {
      sink(record);
    } catch {
      // A recording is told; it cannot change or stop the call.
    }
  }

  return {
    tools: tools.map(wrap),
    wrap,
    wrapRun,
    onEvent(event) {
      if (event.type === 'call_started') {
        started = { tool: event.tool, step: event.step, ...(event.door ? { door: event.door } : {}), ...(event.provenance ? { provenance: provenanceOf(event.provenance) } : {}) };
      }
    },
  };
}

/** The output as a record holds it: whole when its text fits `maxChars`, else its text cut, with the full length. */
function boundedOutput(output: unknown, maxChars: number): Pick<CallRecord, 'output' | 'outputCut' | 'outputChars'> {
  if (output === undefined) return {};
  let text: string;
  try {
    text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
  } catch {
    return { outputCut: '', outputChars: 0 };
  }
  if (text.length <= maxChars) return { output };
  return { outputCut: text.slice(0, maxChars), outputChars: text.length };
}

/** A run's arguments as its record holds them: whole when their JSON text fits `maxChars`, else that text cut, with its length. */
function boundedArgs(args: unknown, maxChars: number): Pick<CallRecord, 'args' | 'argsCut' | 'argsChars'> {
  let text: string;
  try {
    text = JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    return { args: {}, argsCut: '', argsChars: 0 };
  }
  if (text.length <= maxChars) return { args: args ?? {} };
  return { args: {}, argsCut: text.slice(0, maxChars), argsChars: text.length };
}

/** Where each argument came from, as a record keeps it: the sources, not who may read them. */
function provenanceOf(provenance: NonNullable<ToolCallStarted['provenance']>): CallRecord['provenance'] {
  const kept: NonNullable<CallRecord['provenance']> = {};
  for (const [name, origin] of Object.entries(provenance)) {
    // Defined, not assigned: an argument named `__proto__` is a name like any other.
    Object.defineProperty(kept, name, { enumerable: true, value: { trusted: origin.trusted, sources: origin.sources.map((s) => ({ tool: s.tool, step: s.step })), ...(origin.moreSources ? { moreSources: origin.moreSources } : {}) } });
  }
  return kept;
}
