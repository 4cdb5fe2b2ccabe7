/**
 * The queue of `approvals: queue`: runs that paused for a person, each with the calls it waits
 * on and the person's answers so far. One queue per proxy; each run belongs to the session that
 * paused it, and only that session may resume it. Bounded in runs, in all and per session (so one
 * session filling its share leaves room for the others), and every entry expires with its token.
 */
import { randomBytes } from 'node:crypto';
import { approvalText, type ApprovalCaller, type ArgProvenance, type PendingCall, type Provenance, type ResumeDecision } from '../../index.js';

/** The most runs the queue holds by default; a side-effecting call asked past it is refused. */
export const DEFAULT_MAX_QUEUED_RUNS = 100;
/** The most runs of one session the queue holds by default; that session's calls asked past it are refused. */
export const DEFAULT_MAX_QUEUED_RUNS_PER_SESSION = 20;

/** Why a run would find no place in the queue: it is full, or its session's share is. */
export type QueueRoom = 'free' | 'full' | 'session_full';

/** One call a queued run waits on, and the person's answer once given. */
export interface QueuedCall {
  /** `<run id>.<n>`: what the person answers. */
  id: string;
  tool: string;
  step: string;
  args: Record<string, unknown>;
  caller?: ApprovalCaller;
  /** Where each argument came from (with `flows`). */
  provenance?: Provenance;
  /** What decided that the call is made (with `flows`). */
  control?: ArgProvenance;
  /** Untrusted data steers the call: why the person is asked. */
  untrusted?: true;
  decision?: ResumeDecision;
}

/** A run that paused, waiting for the person's answers. */
export interface QueuedRun {
  /** What the model resumes with, and what the person may answer every call of at once. */
  id: string;
  /** The session that paused it: only it may resume the run. */
  owner: string;
  /** The door it came through (a composite, run_pipeline or compose). */
  door: string;
  /** The door's resume token; never shown to the person or the model. */
  token: string;
  calls: QueuedCall[];
  askedAt: number;
  expiresAt: number;
  /** Set while a resumption runs, so a second resume_run does not start another. */
  resuming?: boolean;
}

/** A call as the person's endpoint lists it. */
export interface ListedApproval {
  id: string;
  run: string;
  tool: string;
  step: string;
  door: string;
  composite?: string;
  args: Record<string, unknown>;
  /** Where each argument came from (with `flows`). */
  provenance?: Provenance;
  /** The approval screen's text: what a model chose is quoted and escaped. */
  text: string;
  askedAt: string;
  expiresAt: string;
  status: 'waiting' | 'approved' | 'refused';
  reason?: string;
}

/** What answering an id did. */
export type AnswerOutcome = { answered: string[] } | { unknown: true } | { alreadyAnswered: string[] };

/** The approvals queue of one proxy. */
export class ApprovalQueue {
  private readonly runs = new Map<string, QueuedRun>();

  /** The most runs of one session it holds (at most `maxRuns`). */
  readonly maxRunsPerOwner: number;

  constructor(
    readonly maxRuns = DEFAULT_MAX_QUEUED_RUNS,
    maxRunsPerOwner = DEFAULT_MAX_QUEUED_RUNS_PER_SESSION,
  ) {
    this.maxRunsPerOwner = Math.min(maxRuns, maxRunsPerOwner);
  }

  /** Whether a new run of session `owner` would find a place (expired runs are dropped first). */
  room(owner: string): QueueRoom {
    this.dropExpired();
    if (this.runs.size >= this.maxRuns) return 'full';
    let own = 0;
    for (const run of this.runs.values()) if (run.owner === owner) own++;
    return own >= this.maxRunsPerOwner ? 'session_full' : 'free';
  }

  /** Whether a new run of any session would find no place. */
  full(): boolean {
    this.dropExpired();
    return this.runs.size >= this.maxRuns;
  }

  /** Queue a paused run; `undefined` when the queue, or `owner`'s share of it, is full. */
  file(owner: string, door: string, token: string, pending: readonly PendingCall[], expiresAt: number): QueuedRun | undefined {
    if (this.room(owner) !== 'free') return undefined;
    let id: string;
    do id = `q${randomBytes(6).toString('base64url').replace(/[-_]/gu, 'x')}`;
    while (this.runs.has(id));
    const calls = pending.map((call, i) => ({
      id: `${id}.${i + 1}`,
      tool: call.tool,
      step: call.step,
      args: call.args,
      ...(call.caller ? { caller: call.caller } : {}),
      ...(call.provenance ? { provenance: call.provenance } : {}),
      ...(call.control ? { control: call.control } : {}),
      ...(call.untrusted ? { untrusted: call.untrusted } : {}),
    }));
    const run: QueuedRun = { id, owner, door, token, calls, askedAt: Date.now(), expiresAt };
    this.runs.set(id, run);
    return run;
  }

  /** The run `id` of session `owner`: another session's run reads as none. */
  runOf(id: unknown, owner: string): QueuedRun | undefined {
    if (typeof id !== 'string') return undefined;
    this.dropExpired();
    const run = this.runs.get(id);
    return run?.owner === owner ? run : undefined;
  }

  /**
   * The person's answer to call `id` (`<run>.<n>`), or to every call of run `id` still waiting.
   * An answer given stays: a call answered already is not answered again.
   */
  answer(id: string, decision: ResumeDecision): AnswerOutcome {
    this.dropExpired();
    const dot = id.indexOf('.');
    const run = this.runs.get(dot < 0 ? id : id.slice(0, dot));
    const calls = run ? (dot < 0 ? run.calls : run.calls.filter((call) => call.id === id)) : [];
    if (!run || calls.length === 0 || run.resuming) return { unknown: true };
    const waiting = calls.filter((call) => call.decision === undefined);
    if (waiting.length === 0) return { alreadyAnswered: calls.map((call) => call.id) };
    for (const call of waiting) call.decision = decision;
    return { answered: waiting.map((call) => call.id) };
  }

  /** Forget run `id` (resumed, or its session ended). */
  remove(id: string): void {
    this.runs.delete(id);
  }

  /** Forget every run of session `owner`: its runs can no longer be resumed. */
  dropOwner(owner: string): void {
    for (const [id, run] of this.runs) if (run.owner === owner) this.runs.delete(id);
  }

  /** Every queued call, oldest run first. */
  list(): ListedApproval[] {
    this.dropExpired();
    const listed: ListedApproval[] = [];
    for (const run of this.runs.values()) {
      for (const call of run.calls) {
        const decision = call.decision;
        listed.push({
          id: call.id,
          run: run.id,
          tool: call.tool,
          step: call.step,
          door: call.caller?.door ?? run.door,
          ...(call.caller?.composite ? { composite: call.caller.composite } : {}),
          args: call.args,
          ...(call.provenance ? { provenance: call.provenance } : {}),
          text: approvalText({
            toolId: call.tool,
            toolName: call.tool,
            step: call.step,
            args: call.args,
            ...(call.caller ? { caller: call.caller } : {}),
            ...(call.provenance ? { provenance: call.provenance } : {}),
            ...(call.control ? { control: call.control } : {}),
            ...(call.untrusted ? { untrusted: true } : {}),
          }),
          askedAt: new Date(run.askedAt).toISOString(),
          expiresAt: new Date(run.expiresAt).toISOString(),
          status: decision === undefined ? 'waiting' : decision.approved ? 'approved' : 'refused',
          ...(decision && !decision.approved && decision.reason ? { reason: decision.reason } : {}),
        });
      }
    }
    return listed;
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [id, run] of this.runs) if (run.expiresAt <= now && !run.resuming) this.runs.delete(id);
  }
}
