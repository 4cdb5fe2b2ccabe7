/**
 * The journal of runs that wait for a person: the seam a shared store (Redis) or a durable engine
 * implements. It is shaped like a durable engine's step API: a call's outcome is recorded under a
 * key (the run's id and the call's position), and a paused run is stored with what resuming it
 * needs (its door, its input, its scope, its expiry, the calls it waits on).
 */
import type { ApprovalCaller } from '../gate/host-hooks.js';
import type { ArgProvenance, Provenance } from '../flows/options.js';
import type { ToolExecutionResult } from '../tool.js';

/**
 * A call a paused run waits on, as `details.pending` of an `approval_pending` result lists it.
 *
 * @category The gate
 */
export interface PendingCall {
  /** The tool's name. */
  tool: string;
  /** The step that calls it (its name, or its position), as the approval request had it. */
  step: string;
  /** The arguments it would run with, as the approval request had them. */
  args: Record<string, unknown>;
  /** Who makes the call, as the approval request had it (absent when the request had none). */
  caller?: ApprovalCaller;
  /** Where each argument came from, as the approval request had it (a gate with `flows`). */
  provenance?: Provenance;
  /** What decided that the call is made, as the approval request had it (a gate with `flows`). */
  control?: ArgProvenance;
  /** Set when untrusted data steers the call: why the person is asked (a gate with `flows`). */
  untrusted?: true;
  /**
   * Set when the call had started in an earlier attempt of the run and its end was never recorded
   * (the process that ran it stopped): it may or may not have had its effect, so it is not run
   * again unless a person approves it again.
   */
  unknown?: true;
}

/**
 * A pending call with its place in the run, as the journal keeps it.
 *
 * @category The gate
 */
export interface JournalPendingCall extends PendingCall {
  /** The call's position in its run (see {@link RunCallRecord.position}). */
  position: string;
  /** The arguments as canonical JSON: what a replayed call must match. */
  argsKey: string;
}

/**
 * One gated call of a run, as the journal records it.
 *
 * @category The gate
 */
export interface RunCallRecord {
  /**
   * The call's position in its run: its place in the door's tree (the compositions it is inside
   * and its step, as `read` or `tree.calls.a` or `outer/steps[1]`) and how many calls were made at
   * that place before it in the run (`read#0`, `read#1`), so a call keeps its position however the
   * calls of other places interleave with it. With the run's id it is the call's idempotency key.
   */
  position: string;
  /** The tool's name. */
  tool: string;
  /** The arguments as canonical JSON (keys sorted): what a replayed call must match. */
  argsKey: string;
  /**
   * What the call answered. Absent for a side-effecting call that had started when this record
   * was written and whose end was not recorded after: its outcome is unknown.
   */
  result?: ToolExecutionResult;
  /**
   * Where what the call answered came from (a gate with `flows`: a label tree, plain JSON), so a
   * replay that answers the call from here hands on the same label.
   */
  label?: unknown;
  /** Which resumption of the run wrote the record (0 for the first run). */
  attempt: number;
}

/**
 * A run that waits for a person, as the journal stores it.
 *
 * @category The gate
 */
export interface PausedRun {
  /** The run's id, random, shared by every attempt of the run. */
  runId: string;
  /** How many times the run has paused before this pause (0 at the first): a token names one pause. */
  pause: number;
  /** The name of the door the run came through (a composite's name, `run_pipeline`, `compose`, `run_js`). */
  door: string;
  /** The door's original input: resuming runs the door again with it. */
  input: unknown;
  /** The scope the run belongs to (see `PauseOptions.scope`): a token from another scope reads as unknown. */
  scope: string;
  /** When the run's token expires, in milliseconds since the epoch. */
  expiresAt: number;
  /** The calls the run waits on, ordered by their positions. */
  pending: JournalPendingCall[];
  /**
   * The values the run's `run_js` scripts drew from `Math.random` and the clock, in the order
   * drawn, by the script's place in the run: a replay gives them back in that order. Absent when
   * no script drew any.
   */
  sandboxValues?: Record<string, SandboxValues>;
  /**
   * The label of what the run's caller gave it (a gate with `flows`: the session's label when the run
   * began), so its resumption judges its calls as the first run did, whatever the session saw since.
   */
  inputLabel?: unknown;
}

/**
 * What one `run_js` script of a run drew, kept with its paused run so a replay draws the same.
 *
 * @category The gate
 */
export interface SandboxValues {
  /** What `Math.random()` returned, in order. */
  random: number[];
  /** What the clock read (`Date.now()`, `new Date()` and `Date()` without arguments), in milliseconds since the epoch, in order. */
  clock: number[];
}

/**
 * Where runs that wait for a person are kept.
 *
 * Every method may be asynchronous, so a store shared
 * by several processes (or a durable engine) can implement it; a method that throws or rejects
 * makes the operation that asked answer `journal_unavailable`.
 *
 * @category The gate
 */
export interface RunJournal {
  /** Store a paused run, replacing any earlier entry of the same `runId`. */
  save(run: PausedRun): Promise<void>;
  /** The paused run stored under `runId`, or `undefined` (never stored, ended, expired or evicted). */
  load(runId: string): Promise<PausedRun | undefined>;
  /** Record a call's outcome (or its start) under `runId` and `record.position`, replacing an earlier record there. */
  record(runId: string, record: RunCallRecord): Promise<void>;
  /** Every record of run `runId`, in any order. */
  records(runId: string): Promise<readonly RunCallRecord[]>;
  /**
   * Claim pause `pause` of run `runId` for a resumption until `until` (milliseconds since the
   * epoch): `true` when the run is stored at that pause and no other claim holds (none was made,
   * or it has lapsed); `false` otherwise. A claim that lapses lets the token be used again, for a
   * resumption whose process stopped.
   */
  claim(runId: string, pause: number, until: number): Promise<boolean>;
  /**
   * Extend the claim on pause `pause` of run `runId` made (or last extended) until `from`, to
   * `until`: `true` when that claim is still the one stored (no other resumption took the token
   * over since), `false` otherwise. A resumption renews its claim while it runs, so a short lease
   * lapses soon after its process stops, and never while it lives.
   */
  renew(runId: string, pause: number, from: number, until: number): Promise<boolean>;
  /** Forget run `runId` and its records (it ended, or can never end). */
  remove(runId: string): Promise<void>;
}

/**
 * Why a journal refused to store a pause or a call's record, as the door's result names it:
 *
 * - `pauses_full`: the run's scope already keeps as many paused runs as the journal allows it, or
 *   the journal keeps as many as it allows in all;
 * - `pause_too_large`: the paused run or one of its call records is larger than the journal stores;
 * - `pause_not_storable`: the paused run or one of its call records holds a value the journal
 *   cannot store (a BigInt, a cycle).
 *
 * @category The gate
 */
export type RunJournalRefusalCode = 'pauses_full' | 'pause_too_large' | 'pause_not_storable';

/**
 * What a {@link RunJournal} rejects with when it will not store what it was given.
 *
 * The door then answers with `code` and every effect the run had, not `journal_unavailable`.
 *
 * @example
 * ```ts
 * if (tooMany) throw new RunJournalRefusal('pauses_full', 'this scope keeps 100 paused runs', { maxRunsPerScope: 100 });
 * ```
 *
 * @category The gate
 */
export class RunJournalRefusal extends Error {
  /** What was refused, as the door's `details.code`. */
  readonly code: RunJournalRefusalCode;
  /** What the door's `details` carry beside the code (the bound, the size, the call). */
  readonly details: Record<string, unknown>;

  /**
   * @param code - what was refused.
   * @param message - why, in words a host can act on.
   * @param details - what `details` carry beside the code.
   */
  constructor(code: RunJournalRefusalCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'RunJournalRefusal';
    this.code = code;
    this.details = details;
  }
}
