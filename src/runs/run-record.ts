/**
 * The record of one run that may pause: made by the outermost door of a run through a gate with
 * an approval hook (only such a gate can pause), shared by every door nested in it through the
 * run's frame. It hands each gated leaf call its position, answers the calls up to a pause from
 * the journal when the run is a resumption, and keeps what a pause must store.
 *
 * A first run keeps its calls' outcomes in memory (one small object per call, no journal write),
 * and writes them only if it pauses: a run that never pauses never touches the journal. A
 * resumption writes through: each call's outcome as it ends, and a side-effecting call's start
 * before it runs, so a resumption whose process stops leaves no call that may have run unmarked.
 */
import { failure } from '../codes.js';
import type { ToolExecutionResult } from '../tool.js';
import { canonicalJson } from './canonical-json.js';
import { RunJournalRefusal, type JournalPendingCall, type PausedRun, type PendingCall, type RunCallRecord, type SandboxValues } from './journal.js';
import type { Pausing } from './pausing.js';
import { tokenOf } from './run-token.js';
import { valuesOf, type ScriptValues } from './sandbox-values.js';

/** What a resumption brings to the run it replays. */
export interface Replay {
  readonly run: PausedRun;
  /** The records of the earlier attempts, by position. */
  readonly records: ReadonlyMap<string, RunCallRecord>;
  /** The decisions, by the position of the pending call each answers. */
  readonly decisions: ReadonlyMap<string, { approved: boolean; reason?: string }>;
  /** When this resumption's claim on the token lapses (milliseconds since the epoch), read afresh at each look (it is renewed while the resumption runs): past it, another resumption may hold the token. */
  readonly leaseUntil: number;
}

/** How a call at its place in a replay is answered. */
export type ReplayAnswer =
  | { kind: 'result'; result: ToolExecutionResult; label: unknown }
  | { kind: 'diverged'; result: ToolExecutionResult }
  | { kind: 'unknown' }
  | { kind: 'refused'; result: ToolExecutionResult }
  | { kind: 'approved' };

/** A call a first run has seen end: kept in memory until the run pauses (or forgotten with it). */
interface SeenCall {
  position: string;
  tool: string;
  args: Record<string, unknown>;
  result: ToolExecutionResult;
  label: unknown;
}

/** The run of a door that may pause; see the module comment. */
export class RunRecord {
  // Declared and set in the constructor, not class fields: see GateCall.
  declare readonly pausing: Pausing;
  declare readonly runId: string;
  /** 0 for a first run; n + 1 for the resumption of the run's pause n. */
  declare readonly attempt: number;
  declare readonly door: string;
  declare readonly input: unknown;
  declare readonly scope: string;
  declare readonly replay: Replay | undefined;
  /** How many calls each place has made so far (see {@link RunCallRecord.position}). */
  declare readonly counts: Map<string, number>;
  /** Set once the run paused or its replay diverged: no call starts after it. */
  declare stopped: boolean;
  declare diverged: ToolExecutionResult | undefined;
  /** Set once a resumption outlived its lease: it runs no side effect more, and stores nothing. */
  declare lapsed: ToolExecutionResult | undefined;
  declare readonly pending: JournalPendingCall[];
  /** A first run's ended calls, kept until it pauses. */
  declare readonly seen: SeenCall[];
  /** A resumption's writes, in order; rejected once one failed. */
  declare writes: Promise<void>;
  declare writeFailed: unknown;
  /** The values each `run_js` script of the run drew, by its place (see {@link RunRecord.scriptValues}). */
  declare readonly sandboxValues: Map<string, SandboxValues>;
  /** The label of what the run's caller gave it, when its gate follows labels: stored with a pause (see `PausedRun.inputLabel`). */
  declare inputLabel: unknown;

  constructor(pausing: Pausing, runId: string, attempt: number, door: string, input: unknown, scope: string, replay: Replay | undefined) {
    this.pausing = pausing;
    this.runId = runId;
    this.attempt = attempt;
    this.door = door;
    this.input = input;
    this.scope = scope;
    this.replay = replay;
    this.counts = new Map();
    this.stopped = false;
    this.diverged = undefined;
    this.lapsed = undefined;
    this.pending = [];
    this.seen = [];
    this.writes = Promise.resolve();
    this.writeFailed = undefined;
    this.sandboxValues = new Map();
    this.inputLabel = replay?.run.inputLabel;
  }

  /**
   * The values of the next `run_js` script entered under composition path `path`: its place is
   * the path and how many scripts were entered there before it in the run (the same in every
   * attempt, as a call's position is), and a replay hands back what the script drew at that place.
   */
  scriptValues(path: readonly string[]): ScriptValues {
    const place = `${path.join('/')}#`;
    let n = 0;
    while (this.sandboxValues.has(`${place}${n}`)) n++;
    const key = `${place}${n}`;
    const given = valuesOf(this.replay?.run.sandboxValues?.[key]);
    const kept: SandboxValues = { random: given.random.slice(), clock: given.clock.slice() };
    this.sandboxValues.set(key, kept);
    return { given, kept };
  }

  /** Whether calls are written to the journal as they end (a resumption) rather than kept until a pause. */
  get writesThrough(): boolean {
    return this.replay !== undefined;
  }

  /**
   * The position of the next call at step `step` of the door under composition path `path` (see
   * {@link RunCallRecord.position}). Why it is the same in every attempt: within one place, calls
   * are made one after another by one sequence (a step, its retries, a pipe stage), in an order
   * that depends only on the input and on the results before them, which a replay gives back
   * unchanged; calls at different places get different positions, however they interleave (a
   * gather's calls, each at its own key, run side by side and settle in any order). Only calls at
   * one place made side by side (a for_each's items with a concurrency above 1, one composite
   * called by two calls of a gather) may take each other's positions from one attempt to the next:
   * a replay then sees other arguments at a recorded position and stops with `replay_diverged`;
   * it never takes one call's outcome for another's.
   */
  positionOf(path: readonly string[], step: string): string {
    const place = path.length === 0 ? step : `${path.join('/')}/${step}`;
    const n = this.counts.get(place) ?? 0;
    this.counts.set(place, n + 1);
    return `${place}#${n}`;
  }

  /** The idempotency key of the call at `position`: the run's id and the position, the same in every attempt. */
  keyOf(position: string): string {
    return `${this.runId}:${position}`;
  }

  /**
   * How the call at `position` is answered by the replay: from its record, by a decision, as a
   * divergence, or `undefined` to run it as a first run would (nothing was recorded there).
   */
  answer(position: string, tool: string, args: Record<string, unknown>): ReplayAnswer | undefined {
    const replay = this.replay;
    if (replay === undefined) return undefined;
    const record = replay.records.get(position);
    const decision = replay.decisions.get(position);
    if (decision !== undefined) {
      const waited = replay.run.pending.find((p) => p.position === position)!;
      if (waited.tool !== tool || waited.argsKey !== canonicalJson(args)) return this.diverge(position, waited.tool, tool);
      // Started by an earlier attempt of this very resumption, whose process stopped: it may have run.
      if (record !== undefined && record.attempt === this.attempt) return record.result ? { kind: 'result', result: record.result, label: record.label } : { kind: 'unknown' };
      if (!decision.approved) {
        const reason = decision.reason;
        return { kind: 'refused', result: failure('approval_rejected', reason ?? `Approval refused for tool "${tool}".`, { tool, reason }) };
      }
      return { kind: 'approved' };
    }
    if (record === undefined) return undefined;
    if (record.tool !== tool || record.argsKey !== canonicalJson(args)) return this.diverge(position, record.tool, tool);
    return record.result ? { kind: 'result', result: record.result, label: record.label } : { kind: 'unknown' };
  }

  private diverge(position: string, expected: string, got: string): ReplayAnswer {
    const result = failure(
      'replay_diverged',
      `The resumed run made a different call at its place "${position}" than the run that paused (recorded: "${expected}", now: "${got}" or other arguments), so it stops here and runs nothing more. Start the work again.`,
      { position, expected, tool: got },
    );
    this.stopped = true;
    this.diverged = result;
    return { kind: 'diverged', result };
  }

  /**
   * Whether a side-effecting call `tool` at `step` may start now: `undefined` while this
   * resumption's lease holds (and always in a first run, which holds no token); past it, the run
   * stops, and the refusal the call answers. Another resumption may have taken the token over
   * once the lease lapsed, and would run the same call: this one must not.
   */
  fence(tool: string, step: string): ToolExecutionResult | undefined {
    const replay = this.replay;
    if (replay === undefined || Date.now() < replay.leaseUntil) return undefined;
    this.stopped = true;
    this.lapsed ??= failure(
      'resume_lease_lapsed',
      `The resumption ran past its lease before calling side-effecting tool "${tool}", so it stopped there without running it: another resumption may have taken the run over. Resume again with the same token if none is running.`,
      { tool, step },
    );
    return failure('resume_lease_lapsed', `Tool "${tool}" was not started: the resumption ran past its lease.`, { tool, step });
  }

  /** The call at `position` ended with `result`. */
  ended(position: string, tool: string, args: Record<string, unknown>, result: ToolExecutionResult, label?: unknown): void {
    if (!this.writesThrough) {
      this.seen.push({ position, tool, args, result, label });
      return;
    }
    this.write({ position, tool, argsKey: canonicalJson(args), result, ...(label !== undefined ? { label } : {}), attempt: this.attempt });
  }

  /** A side-effecting call at `position` is about to start: resolves `true` once its start is written, `false` if it could not be. */
  started(position: string, tool: string, args: Record<string, unknown>): Promise<boolean> {
    this.write({ position, tool, argsKey: canonicalJson(args), attempt: this.attempt });
    return this.writes.then(
      () => true,
      () => false,
    );
  }

  private write(record: RunCallRecord): void {
    const { journal } = this.pausing;
    this.writes = this.writes.then(() => journal.record(this.runId, record));
    this.writes.catch((error: unknown) => {
      this.writeFailed ??= error ?? 'the journal failed';
    });
  }

  /** The call at `position` waits for a person: the run stops here. */
  pause(position: string, call: PendingCall): void {
    this.stopped = true;
    this.pending.push({ ...call, position, argsKey: canonicalJson(call.args) });
  }

  /**
   * The door's run ended with `result`: for a run that paused, its outcomes and pending calls are
   * stored and the result is `approval_pending` with the token; for a replay that diverged,
   * `replay_diverged`; a resumption that ended is forgotten by the journal.
   */
  async finish(result: ToolExecutionResult): Promise<ToolExecutionResult> {
    const { journal } = this.pausing;
    // Past its lease another resumption may be running the run: this one neither ends it in the
    // journal nor stores a pause over the other's.
    if (this.lapsed) return { ...this.lapsed, ...(result.effects ? { effects: result.effects } : {}) };
    try {
      await this.writes;
      if (this.diverged) {
        await journal.remove(this.runId);
        return { ...this.diverged, ...(result.effects ? { effects: result.effects } : {}) };
      }
      if (this.pending.length === 0) {
        if (this.writesThrough) {
          // A resumption that outlived its lease must not forget a run a later attempt paused again.
          const current = await journal.load(this.runId);
          if (current === undefined || current.pause === this.attempt - 1) await journal.remove(this.runId);
        }
        return result;
      }
      for (const call of this.seen) await journal.record(this.runId, { position: call.position, tool: call.tool, argsKey: canonicalJson(call.args), result: call.result, ...(call.label !== undefined ? { label: call.label } : {}), attempt: this.attempt });
      const expiresAt = Date.now() + this.pausing.ttlMs;
      const pending = [...this.pending].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
      const values = this.keptValues();
      const inputLabel = this.inputLabel;
      await journal.save({ runId: this.runId, pause: this.attempt, door: this.door, input: copyOf(this.input), scope: this.scope, expiresAt, pending, ...(values ? { sandboxValues: values } : {}), ...(inputLabel !== undefined ? { inputLabel } : {}) });
      return pendingResult(tokenOf(this.runId, this.attempt, expiresAt), pending, expiresAt, result);
    } catch (error) {
      // A first run's records stored before the refusal belong to no pause: let them go.
      if (error instanceof RunJournalRefusal && !this.writesThrough) await journal.remove(this.runId).catch(() => undefined);
      const failed = journalFailure(error ?? this.writeFailed);
      return { ...failed, ...(result.effects ? { effects: result.effects } : {}) };
    }
  }

  /** The values the run's scripts drew, for the journal; `undefined` when none drew any. */
  private keptValues(): Record<string, SandboxValues> | undefined {
    let values: Record<string, SandboxValues> | undefined;
    for (const [key, kept] of this.sandboxValues) {
      if (kept.random.length === 0 && kept.clock.length === 0) continue;
      (values ??= {})[key] = { random: kept.random.slice(), clock: kept.clock.slice() };
    }
    return values;
  }
}

/** A copy of the door's input for the journal (what the door may change of it later changes nothing there); the value itself when it cannot be copied. */
function copyOf(input: unknown): unknown {
  try {
    return structuredClone(input);
  } catch {
    return input;
  }
}

/** The result of a door whose run paused: what the model reads, and what the host resumes with. */
function pendingResult(resume: string, pending: readonly JournalPendingCall[], expiresAt: number, result: ToolExecutionResult): ToolExecutionResult {
  const shown: PendingCall[] = pending.map(({ position: _p, argsKey: _k, ...call }) => call);
  const names = [...new Set(shown.map((call) => `"${call.tool}"`))].join(', ');
  return {
    ...failure(
      'approval_pending',
      `The run is waiting for a person to approve ${names}: it has paused, not failed, and continues from here once they answer. Do not call it again; tell the user it waits for their approval.`,
      { resume, pending: shown, expiresAt },
    ),
    ...(result.effects ? { effects: result.effects } : {}),
  };
}

/** The journal refused what it was given (with its code), or could not be read or written. */
export function journalFailure(error: unknown): ToolExecutionResult {
  if (error instanceof RunJournalRefusal) return failure(error.code, error.message, { ...error.details });
  return journalUnavailable(error);
}

/** The journal could not be read or written. */
export function journalUnavailable(error: unknown): ToolExecutionResult {
  const why = error instanceof Error ? error.message : String(error);
  return failure('journal_unavailable', `The run journal could not be reached: ${why}`);
}

/** What a call that comes after the run stopped answers: it does not run. */
export function stoppedResult(record: RunRecord, tool: string, step: string): ToolExecutionResult {
  if (record.diverged) return failure('replay_diverged', `Tool "${tool}" was not started: the resumed run diverged from the run that paused.`, { tool, step });
  if (record.lapsed) return failure('resume_lease_lapsed', `Tool "${tool}" was not started: the resumption ran past its lease.`, { tool, step });
  return failure('approval_pending', `Tool "${tool}" was not started: the run is waiting for a person's approval.`, { tool, step });
}

/** What the call that waits for a person answers inside the run (the door's result carries the token). */
export function waitingResult(tool: string, step: string, unknown: boolean): ToolExecutionResult {
  return failure(
    'approval_pending',
    unknown
      ? `Tool "${tool}" had started before and its end was not recorded: a person must say whether to run it again.`
      : `Tool "${tool}" waits for a person's approval: the run has paused, not failed.`,
    { tool, step },
  );
}
