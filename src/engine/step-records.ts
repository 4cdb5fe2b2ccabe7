/**
 * What a run keeps of each step as it ends: the trace entry, the effects ledger for a
 * side-effecting call that started (whatever its outcome), the failure named with its step, and
 * the outputs later steps read. Every driver of a plan (a sequence, a chain, a for_each, a gather)
 * records through these, so a step reads the same in every run's report.
 */
import type { RefScope } from '../refs/scope.js';
import type { EffectOutcome, ITool, ToolExecutionResult } from '../tool.js';
import type { NodeOutcome, RunState, TraceEntry } from './run-state.js';
import type { LabelTree } from '../flows/label-tree.js';
import { recordLabel } from './labels.js';

/**
 * Record a leaf's failure in the trace and name the step in its details. When the call was
 * started (`ran`, the instance the gate ran) and its tool has side effects, the failure may have
 * changed something: it goes in the effects ledger too, with how it ended.
 */
export function failed(state: RunState, label: string, tool: string | undefined, result: ToolExecutionResult, ran?: ITool): NodeOutcome {
  const code = result.details?.code;
  if (ran !== undefined && tool !== undefined) recordStartedFailure(state, label, tool, ran, code);
  if (state.recording) state.trace.push(traceEntry(state, label, tool, false, code ? { code } : undefined));
  const note = state.annotations[state.annotations.length - 1];
  return {
    ok: false,
    failure: {
      ...result,
      error: namingStep(result.error, label, tool),
      details: { ...result.details, step: label, ...(tool ? { tool } : {}), ...(note ? { intent: note.intent, hypothesis: note.hypothesis } : {}) },
    },
  };
}

/** A failure's message with the step it happened at (and its tool) in front, unless it names one already. */
function namingStep(error: string | undefined, label: string, tool: string | undefined): string {
  const step = `Step "${label}"${tool ? ` (${tool})` : ''}`;
  if (typeof error !== 'string' || error === '') return `${step} failed.`;
  return error.startsWith('Step "') ? error : `${step}: ${error}`;
}

/** List a side-effecting call that was started and then failed, with how it ended (see {@link startedOutcome}). */
function recordStartedFailure(state: RunState, label: string, tool: string, ran: ITool, code: string | undefined): void {
  const outcome = startedOutcome(code);
  if (outcome !== undefined && ran.hasSideEffects === true) state.effects.push({ step: label, tool, ran: true, outcome });
}

/**
 * How a failed call ended, when its code says the tool was started: `failed` (it returned a
 * failure or threw), `timed_out`, `unknown` (it returned something unreadable). Refusals (the
 * rule, a host check, an abort, the budget) never started the tool: `undefined`.
 */
export function startedOutcome(code: string | undefined): EffectOutcome | undefined {
  switch (code) {
    case 'step_failed':
    case 'step_threw':
      return 'failed';
    case 'step_timeout':
      return 'timed_out';
    case 'step_bad_result':
      return 'unknown';
    default:
      return undefined;
  }
}

export function traceEntry(state: RunState, step: string, tool: string | undefined, ok: boolean, extra?: { code?: string; dry?: true }): TraceEntry {
  const e: TraceEntry = { step, tool, ok };
  if (extra?.code !== undefined) e.code = extra.code;
  if (extra?.dry) e.dry = true;
  const note = state.annotations.length ? state.annotations[state.annotations.length - 1] : undefined;
  if (note) {
    e.intent = note.intent;
    if (note.hypothesis !== undefined) e.hypothesis = note.hypothesis;
  }
  return e;
}

/**
 * The labels of the nodes that completed, in order: the trace's entries that succeeded and were
 * not skipped (leaves, dry outputs, whole for_each nodes). Derived when a run fails rather than
 * kept beside the trace on every step.
 */
export function completedSteps(trace: readonly TraceEntry[]): string[] {
  const completed: string[] = [];
  for (const e of trace) if (e.ok && !e.skipped) completed.push(e.step);
  return completed;
}

/**
 * The `steps` list of a run whose spec reads no output by position (`$steps[n]`): nothing reads
 * it, so its runs share this one instead of filling one each (see {@link recordOutput}). Frozen,
 * so a write could never leak one run's output into another.
 */
export const NO_STEPS = Object.freeze([]) as unknown as unknown[];

/** A top-level step's output, as the steps after it read it: `$prev`, and `$steps[n]` when kept. */
export function recordOutput(refs: RefScope, output: unknown, label?: LabelTree): void {
  const keep = refs.steps !== NO_STEPS;
  if (keep) refs.steps.push(output);
  refs.prev = output;
  // A run that follows labels keeps the output's beside it.
  if (refs.labels !== undefined) recordLabel(refs, label, keep);
}

/** The outcome of a plan that threw, which plans never do by design. */
export function threwOutcome(error: unknown): NodeOutcome {
  return {
    ok: false,
    failure: {
      success: false,
      error: `The run failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
      details: { code: 'step_threw' },
    },
  };
}

/** A successful outcome. */
export function done(output: unknown): NodeOutcome {
  return { ok: true, output };
}

/** The code of a failure result. */
export function codeOf(result: ToolExecutionResult): string | undefined {
  return result.details?.code;
}
