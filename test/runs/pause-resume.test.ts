import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { StepGateOptions } from '../../src/gate/options.js';
import { createObservationStore } from '../../src/agent-tools/observations/index.js';
import { withObservations } from '../../src/agent-tools/observations/with-observations.js';
import { resumeRun } from '../../src/doors/resume.js';
import { createMemoryRunJournal, DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE } from '../../src/runs/memory-journal.js';
import type { RunJournal } from '../../src/runs/journal.js';
import { DEFAULT_RESUME_LEASE_MS } from '../../src/runs/pausing.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** A registry of a pure `read`, a side-effecting `send` and a pure `after`; approvals wait for a person on `send`. */
function setup(extra: Omit<StepGateOptions, 'resolve' | 'approvals'> = {}, answer: (a: ApprovalAction) => unknown = () => ({ pending: true })) {
  const read = tool('read', (a) => ({ text: `note ${String(a.id)}` }));
  const send = tool('send', (a) => ({ sent: a.text }), { hasSideEffects: true });
  const after = tool('after', (a) => ({ done: a.sent }));
  const reg = registry(read, send, after);
  const asked: ApprovalAction[] = [];
  const gate = reg.gate({ ...extra, approvals: { requestApproval: (a) => (asked.push(a), answer(a) as { approved: boolean }) } });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['send'] });
  return { read, send, after, reg, gate, builder, asked };
}

const SPEC = {
  steps: [
    { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
    { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
    { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
  ],
};

function composite(builder: ComposableToolBuilder, spec: unknown = SPEC): ITool {
  return builder.build('notify', 'read a note and send it', { type: 'object' }, spec as typeof SPEC) as ITool;
}

function pendingOf(result: ToolExecutionResult) {
  expect(result.success).toBe(false);
  expect(result.details?.code).toBe('approval_pending');
  return result.details as { resume: string; pending: Record<string, unknown>[]; expiresAt: number };
}

const ctx = (sessionId = 's1'): ToolExecutionContext => ({ sessionId });

/** Pause a two-step door (`send`, then `next`) at `send`, and resume it with an approval. */
async function resumedAfterSend(builder: ComposableToolBuilder, next: { name: string; tool: string; inputMapping: Record<string, string> }) {
  const door = composite(builder, { steps: [{ name: 'send', tool: 'send', inputMapping: { text: '$input.id' } }, next] });
  const paused = pendingOf(await door.execute({ id: 'x' }, ctx()));
  return resumeRun(door, paused.resume, [{ approved: true }], ctx());
}

/** Add `audit` to `reg`: a composite made with a gate of its own (`inner`, which asks no one) that reads a note and logs a line. */
function addAudit(reg: ReturnType<typeof setup>['reg'], inner: Omit<StepGateOptions, 'resolve'>) {
  const log = tool('log', (a) => ({ logged: a.line }), { hasSideEffects: true });
  reg.add(log);
  const auditBuilder = new ComposableToolBuilder(reg.gate(inner));
  auditBuilder.bind({ sideEffectingTools: ['log'] });
  const audit = auditBuilder.build('audit', 'read a note and log a line', { type: 'object' }, {
    steps: [
      { name: 'read', tool: 'read', inputMapping: { id: '$input.line' } },
      { name: 'log', tool: 'log', inputMapping: { line: '$input.line' } },
    ],
  }) as ITool;
  reg.add(audit);
  return log;
}

describe('a composite pauses at a call a person will decide about later', () => {
  it('stops at the side-effecting call: it does not run, nothing after it starts, the result carries a token and the call', async () => {
    const { read, send, after, builder } = setup();
    const result = await composite(builder).execute({ id: 7 }, ctx());
    const details = pendingOf(result);
    expect(typeof details.resume).toBe('string');
    expect(details.pending).toEqual([
      { tool: 'send', step: 'send', args: { text: 'note 7' }, caller: { door: 'composite', composite: 'notify', path: ['toolweave:notify'], modelChosen: ['args'] } },
    ]);
    expect(result.error).toMatch(/waiting for a person/);
    expect(result.error).toMatch(/not failed/);
    expect([read.calls.length, send.calls.length, after.calls.length]).toEqual([1, 0, 0]);
  });

  it('resumed with an approval: the approved call runs once, earlier calls are answered from the journal, and the result is that of a run that never paused', async () => {
    const { read, send, after, builder, asked } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 7 }, ctx()));
    const resumed = await resumeRun(tool, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(true);
    expect([read.calls.length, send.calls.length, after.calls.length]).toEqual([1, 1, 1]);
    // The person is not asked again about the call they decided.
    expect(asked).toHaveLength(1);
    // The same run through a gate that approves at once.
    const straight = setup({}, () => ({ approved: true }));
    const once = await composite(straight.builder).execute({ id: 7 }, ctx());
    expect(resumed.output).toEqual(once.output);
    expect(resumed.output).toEqual({ done: 'note 7' });
    expect(resumed.details?.trace).toEqual(once.details?.trace);
    expect(resumed.effects).toEqual(once.effects);
    // The call's idempotency key: the run and its position, the same in every attempt.
    expect(send.contexts[0].idempotencyKey).toMatch(/^run_[A-Za-z0-9_-]{22}:toolweave:notify\/send#0$/);
    expect(read.contexts[0].idempotencyKey).toBe(send.contexts[0].idempotencyKey!.replace(/send#0$/, 'read#0'));
    // The run has ended: its token is spent.
    expect((await resumeRun(tool, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
    expect(send.calls.length).toBe(1);
  });

  it('resumed with a refusal: the call resolves as the refusal it would have been, and does not run', async () => {
    const { send, after, builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 1 }, ctx()));
    const resumed = await resumeRun(tool, paused.resume, [{ approved: false, reason: 'not to that list' }], ctx());
    expect(resumed.success).toBe(false);
    expect(resumed.details).toMatchObject({ code: 'approval_rejected', step: 'send', tool: 'send', reason: 'not to that list' });
    // What the same refusal gives in a run that never paused.
    const straight = setup({}, () => ({ approved: false, reason: 'not to that list' }));
    const once = await composite(straight.builder).execute({ id: 1 }, ctx());
    expect(resumed.error).toBe(once.error);
    expect(resumed.details).toEqual(once.details);
    expect([send.calls.length, after.calls.length]).toEqual([0, 0]);
  });

  it('pauses twice in one run: each pause has its own token, and the calls approved before are not run again', async () => {
    const { read, send, after, builder } = setup();
    const spec = {
      steps: [
        { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
        { name: 'first', tool: 'send', inputMapping: { text: '$prev.text' } },
        { name: 'second', tool: 'send', inputMapping: { text: 'again' } },
        { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
      ],
    };
    const tool = composite(builder, spec);
    const one = pendingOf(await tool.execute({ id: 2 }, ctx()));
    expect(one.pending.map((p) => p.step)).toEqual(['first']);
    const two = pendingOf(await resumeRun(tool, one.resume, [{ approved: true }], ctx()));
    expect(two.pending).toMatchObject([{ tool: 'send', step: 'second', args: { text: 'again' } }]);
    expect(two.resume).not.toBe(one.resume);
    expect(send.calls).toEqual([{ text: 'note 2' }]);
    // The first token was answered: it cannot be used again.
    expect((await resumeRun(tool, one.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
    const done = await resumeRun(tool, two.resume, [{ approved: true }], ctx());
    expect(done).toMatchObject({ success: true, output: { done: 'again' } });
    expect(send.calls).toEqual([{ text: 'note 2' }, { text: 'again' }]);
    expect([read.calls.length, after.calls.length]).toEqual([1, 1]);
  });

  it('a replay that makes another call at a recorded place ends with replay_diverged and runs nothing more', async () => {
    const { reg, send, after, builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 3 }, ctx()));
    // The registry now answers `read` with another tool: the first call differs from the journal's.
    const other = tool_('read_v2');
    reg.map.set('read', other);
    const resumed = await resumeRun(tool, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(false);
    expect(resumed.details).toMatchObject({ code: 'replay_diverged', position: 'toolweave:notify/read#0', expected: 'read', tool: 'read_v2' });
    expect([other.calls.length, send.calls.length, after.calls.length]).toEqual([0, 0, 0]);
    // The run can never continue: its token is spent.
    reg.map.set('read', tool_('read'));
    expect((await resumeRun(tool, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
  });

  it('a replay whose paused call now has other arguments diverges too, and the call does not run', async () => {
    const { reg, send, builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 4 }, ctx()));
    // `send` itself is swapped for one under another name: the call at the paused place differs.
    reg.map.set('send', tool_('send_other', { hasSideEffects: true }));
    const resumed = await resumeRun(tool, paused.resume, [{ approved: true }], ctx());
    expect(resumed.details).toMatchObject({ code: 'replay_diverged', position: 'toolweave:notify/send#0', expected: 'send' });
    expect(send.calls.length).toBe(0);
  });
});

/** A pure stand-in tool with its own name. */
function tool_(name: string, extra: Partial<ITool> = { hasSideEffects: false }) {
  return tool(name, () => ({ text: 'other' }), extra);
}

describe('tokens', () => {
  it('a token from another session reads as unknown; in its own session it resumes', async () => {
    const { send, builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 5 }, ctx('s1')));
    const elsewhere = await resumeRun(tool, paused.resume, [{ approved: true }], ctx('s2'));
    expect(elsewhere).toMatchObject({ success: false, details: { code: 'resume_token_unknown' } });
    expect((await resumeRun(tool, paused.resume, [{ approved: true }], { userId: 'u1' })).details?.code).toBe('resume_token_unknown');
    expect(send.calls.length).toBe(0);
    expect((await resumeRun(tool, paused.resume, [{ approved: true }], ctx('s1'))).success).toBe(true);
    expect(send.calls.length).toBe(1);
  });

  it('an expired token has its own code, and nothing runs', async () => {
    const { send, builder } = setup({ pauses: { ttlMs: 20 } });
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 6 }, ctx()));
    expect(paused.expiresAt).toBeLessThanOrEqual(Date.now() + 20);
    await delay(40);
    const resumed = await resumeRun(tool, paused.resume, [{ approved: true }], ctx());
    expect(resumed).toMatchObject({ success: false, details: { code: 'resume_token_expired' } });
    expect(send.calls.length).toBe(0);
  });

  it('a token this library did not issue, or another door, is unknown', async () => {
    const { builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 6 }, ctx()));
    expect((await resumeRun(tool, 'run_nope', [], ctx())).details?.code).toBe('resume_token_unknown');
    const otherDoor = builder.build('other', 'other', { type: 'object' }, SPEC) as ITool;
    expect((await resumeRun(otherDoor, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
    expect((await resumeRun(tool_('plain'), paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
  });

  it('a door wrapped with withObservations pauses and resumes through the wrapper, as the model met it', async () => {
    const { read, send, builder } = setup();
    const [wrapped] = withObservations([composite(builder)], createObservationStore());
    const paused = pendingOf(await wrapped.execute({ id: 5 }, ctx()));
    const resumed = await resumeRun(wrapped, paused.resume, [{ approved: true }], ctx());
    expect(resumed).toMatchObject({ success: true, output: { done: 'note 5' } });
    expect([read.calls.length, send.calls.length]).toEqual([1, 1]);
    // A wrapper of a tool that is no door stays no door.
    const [plain] = withObservations([tool_('plain')], createObservationStore());
    expect((await resumeRun(plain, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
  });

  it('decisions must answer the pending calls one each, in order', async () => {
    const { send, builder } = setup();
    const tool = composite(builder);
    const paused = pendingOf(await tool.execute({ id: 8 }, ctx()));
    for (const bad of [[], [{ approved: true }, { approved: true }], [{ approved: 'yes' }], [{ pending: true }], [{ approved: false, reason: 3 }], 'yes']) {
      const result = await resumeRun(tool, paused.resume, bad as never, ctx());
      expect(result.details?.code).toBe('resume_decisions_invalid');
    }
    expect(send.calls.length).toBe(0);
    // The token still stands.
    expect((await resumeRun(tool, paused.resume, [{ approved: true }], ctx())).success).toBe(true);
  });
});

describe('the in-memory journal: one scope never evicts another', () => {
  /** A door that logs a line (approved at once, a side effect) and then sends a note (a person decides). */
  function loggingDoor(extra: Omit<StepGateOptions, 'resolve' | 'approvals'> = {}) {
    const s = setup(extra, (a) => (a.toolName === 'send' ? { pending: true } : { approved: true }));
    const log = tool('log', (a) => ({ logged: a.line }), { hasSideEffects: true });
    s.reg.add(log);
    s.builder.bind({ sideEffectingTools: ['send', 'log'] });
    const door = composite(s.builder, {
      steps: [
        { name: 'log', tool: 'log', inputMapping: { line: '$input.id' } },
        { name: 'send', tool: 'send', inputMapping: { text: '$prev.logged' } },
      ],
    });
    return { ...s, log, door };
  }

  it("a thousand pauses of one session leave another session's paused run waiting; past its bound a new pause answers pauses_full with its effects", async () => {
    const { door, send, log } = loggingDoor();
    const waiting = pendingOf(await door.execute({ id: 'a' }, ctx('A')));
    const codes = new Map<string, number>();
    let refused: ToolExecutionResult | undefined;
    for (let i = 0; i < 1000; i++) {
      const result = await door.execute({ id: `b${i}` }, ctx('B'));
      const code = String(result.details?.code);
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (code === 'pauses_full') refused ??= result;
    }
    expect(Object.fromEntries(codes)).toEqual({ approval_pending: DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE, pauses_full: 1000 - DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE });
    // The refused run's log line was written: the result says so.
    expect(refused!.effects).toEqual([{ step: 'log', tool: 'log', outcome: 'ran', ran: true }]);
    expect(refused!.details).toMatchObject({ maxRunsPerScope: DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE });
    expect(refused!.error).toMatch(/scope already keeps 100 paused runs/);
    expect(log.calls.length).toBe(1001);
    // A's person says yes: A's run goes on.
    expect(await resumeRun(door, waiting.resume, [{ approved: true }], ctx('A'))).toMatchObject({ success: true });
    expect(send.calls).toEqual([{ text: 'a' }]);
  });

  it('a scope makes room by answering its own runs; maxRuns bounds all scopes together, and no run is evicted for another', async () => {
    const { door } = loggingDoor({ journal: createMemoryRunJournal({ maxRuns: 3, maxRunsPerScope: 2 }) });
    const a1 = pendingOf(await door.execute({ id: 'a1' }, ctx('A')));
    pendingOf(await door.execute({ id: 'a2' }, ctx('A')));
    expect((await door.execute({ id: 'a3' }, ctx('A'))).details?.code).toBe('pauses_full');
    const b1 = pendingOf(await door.execute({ id: 'b1' }, ctx('B')));
    // Three runs wait in all: C's first pause is refused, B's and A's still stand.
    const c1 = await door.execute({ id: 'c1' }, ctx('C'));
    expect(c1.details).toMatchObject({ code: 'pauses_full', maxRuns: 3 });
    expect(c1.effects).toHaveLength(1);
    expect((await resumeRun(door, b1.resume, [{ approved: true }], ctx('B'))).success).toBe(true);
    // A run answered frees its room: A pauses again, and C too.
    expect((await resumeRun(door, a1.resume, [{ approved: false }], ctx('A'))).details?.code).toBe('approval_rejected');
    pendingOf(await door.execute({ id: 'a4' }, ctx('A')));
    pendingOf(await door.execute({ id: 'c2' }, ctx('C')));
    expect(() => createMemoryRunJournal({ maxRuns: 0 })).toThrow(RangeError);
    expect(() => createMemoryRunJournal({ maxRunsPerScope: 0 })).toThrow(RangeError);
  });
});

/** `journal`, but its lease renewals never arrive: as from a process that stopped, or cannot reach its journal. */
function unrenewed(journal: RunJournal): RunJournal {
  return { ...journal, renew: () => Promise.reject(new Error('no renewal arrives')) };
}

describe('a resumption whose process stopped', () => {
  it('holds its token while it runs (resume_busy); past its lease, a started call without a recorded end comes back pending, marked unknown, and runs again only when approved', async () => {
    const { reg, read, builder } = setup({ journal: unrenewed(createMemoryRunJournal()), pauses: { leaseMs: 300 } });
    const door = composite(builder);
    const paused = pendingOf(await door.execute({ id: 9 }, ctx()));
    // The resumption's `send` never ends: its process "stopped" in the middle of the call.
    let release: (() => void) | undefined;
    let hang = true;
    const hanging = tool('send', (a) => (hang ? new Promise((resolve) => (release = () => resolve({ sent: a.text }))) : { sent: a.text }), { hasSideEffects: true });
    reg.map.set('send', hanging);
    const stale = resumeRun(door, paused.resume, [{ approved: true }], ctx());
    await delay(5);
    expect(hanging.calls.length).toBe(1);
    expect((await resumeRun(door, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_busy');
    await delay(350);
    // Past the lease: the token may be used again, but the call that may have run is not run again.
    const again = pendingOf(await resumeRun(door, paused.resume, [{ approved: true }], ctx()));
    expect(again.pending).toMatchObject([{ tool: 'send', step: 'send', args: { text: 'note 9' }, unknown: true }]);
    expect(hanging.calls.length).toBe(1);
    // A person says to run it again: it runs, once.
    hang = false;
    const done = await resumeRun(door, again.resume, [{ approved: true }], ctx());
    expect(done).toMatchObject({ success: true, output: { done: 'note 9' } });
    expect([read.calls.length, hanging.calls.length]).toEqual([1, 2]);
    // The stale attempt ends late: it neither breaks the run's result nor runs anything twice.
    release!();
    await stale;
    expect(hanging.calls.length).toBe(2);
  });
});

describe('a resumption that outlived its lease', () => {
  /** read, send (a person decides), a slow read that the first resumption hangs in, log (approved at once), after; the lease is renewed only when `renewed`. */
  function slowSetup(spec?: unknown, renewed = false) {
    const journal = createMemoryRunJournal();
    const s = setup({ journal: renewed ? journal : unrenewed(journal), pauses: { leaseMs: 300 } }, (a) => (a.toolName === 'send' ? { pending: true } : { approved: true }));
    let hang = true;
    let release: (() => void) | undefined;
    const slow = tool('slow', (a) => (hang ? ((hang = false), new Promise((resolve) => (release = () => resolve({ text: a.text })))) : { text: a.text }));
    const log = tool('log', (a) => ({ logged: a.line }), { hasSideEffects: true });
    s.reg.add(slow);
    s.reg.add(log);
    s.builder.bind({ sideEffectingTools: ['send', 'log'] });
    const door = composite(
      s.builder,
      spec ?? {
        steps: [
          { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
          { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
          { name: 'slow', tool: 'slow', inputMapping: { text: 'slow' } },
          { name: 'log', tool: 'log', inputMapping: { line: '$prev.text' } },
          { name: 'after', tool: 'after', inputMapping: { sent: '$prev.logged' } },
        ],
      },
    );
    return { ...s, slow, log, door, journal, release: () => release!() };
  }

  it('a resumption that lives keeps its token past its lease: it renews the lease, another resumption meanwhile gets resume_busy with retryAfterMs, and it runs to its end', async () => {
    const { send, log, door, release } = slowSetup(undefined, true);
    const paused = pendingOf(await door.execute({ id: 1 }, ctx()));
    const running = resumeRun(door, paused.resume, [{ approved: true }], ctx());
    // Four leases later, it still holds the token.
    await delay(1200);
    const busy = await resumeRun(door, paused.resume, [{ approved: true }], ctx());
    expect(busy.details).toEqual({ code: 'resume_busy', retryAfterMs: 300 });
    expect(busy.error).toMatch(/try again in 300 ms/);
    release();
    expect(await running).toMatchObject({ success: true, output: { done: 'slow' } });
    expect([send.calls.length, log.calls.length]).toEqual([1, 1]);
  });

  it("a claim left by a resumption that stopped is free again a lease later; with the default lease, that is seconds", async () => {
    const journal = createMemoryRunJournal();
    const { builder, send } = setup({ journal });
    const door = composite(builder);
    const paused = pendingOf(await door.execute({ id: 3 }, ctx()));
    // A process claimed the token with the default lease, then stopped: it renews nothing.
    expect(await journal.claim(paused.resume.split('.')[0], 0, Date.now() + DEFAULT_RESUME_LEASE_MS)).toBe(true);
    const busy = await resumeRun(door, paused.resume, [{ approved: true }], ctx());
    expect(busy.details).toEqual({ code: 'resume_busy', retryAfterMs: DEFAULT_RESUME_LEASE_MS });
    expect(DEFAULT_RESUME_LEASE_MS).toBeLessThanOrEqual(15_000);
    expect(send.calls.length).toBe(0);
  });

  it('starts no side-effecting call once its lease has lapsed, and ends or pauses nothing: the resumption that took over does', async () => {
    const { send, log, door, release, journal } = slowSetup();
    const paused = pendingOf(await door.execute({ id: 1 }, ctx()));
    const runId = paused.resume.split('.')[0];
    // The first resumption runs `send`, then hangs in `slow` past its lease.
    const stale = resumeRun(door, paused.resume, [{ approved: true }], ctx());
    await delay(350);
    expect(send.calls.length).toBe(1);
    // Another takes over with the same token: `send` is answered from the journal, `log` runs once.
    const done = await resumeRun(door, paused.resume, [{ approved: true }], ctx());
    expect(done).toMatchObject({ success: true, output: { done: 'slow' } });
    expect([send.calls.length, log.calls.length]).toEqual([1, 1]);
    // The stale one wakes: it does not run `log` a second time, and says why it stopped.
    release();
    const late = await stale;
    expect([send.calls.length, log.calls.length]).toEqual([1, 1]);
    // Nor does it record that it started `log` (the run has ended: the one that took over removed its records).
    expect((await journal.records(runId)).filter((record) => record.tool === 'log')).toEqual([]);
    expect(late.details).toMatchObject({ code: 'resume_lease_lapsed', tool: 'log', step: 'log' });
    expect(late.error).toMatch(/past its lease/);
  });

  it.each([
    ['approved', { approved: true }, { code: 'resume_lease_lapsed', tool: 'log', step: 'log' }],
    // A refusal is the call's own outcome, which the run reports as it would under its lease.
    ['refused', { approved: false, reason: 'no' }, { code: 'approval_rejected', tool: 'log', step: 'log', reason: 'no' }],
  ])('a lease that lapses while a side-effecting call is asked about: the call does not start (%s late)', async (_, answer, expected) => {
    // send waits for a person; log is answered only after the lease (300 ms) has lapsed.
    const s = setup({ journal: unrenewed(createMemoryRunJournal()), pauses: { leaseMs: 300 } }, (a) => (a.toolName === 'send' ? { pending: true } : delay(350).then(() => answer)));
    const log = tool('log', (a) => ({ logged: a.line }), { hasSideEffects: true });
    s.reg.add(log);
    s.builder.bind({ sideEffectingTools: ['send', 'log'] });
    const late = await resumedAfterSend(s.builder, { name: 'log', tool: 'log', inputMapping: { line: '$prev.sent' } });
    expect(late.details).toMatchObject(expected);
    expect([s.send.calls.length, log.calls.length]).toEqual([1, 0]);
  });

  it('a lease that lapses while another gate checks a side-effecting call inside the run: the call does not start', async () => {
    // send waits for a person; log, in a composite made with a gate that asks no one, is let
    // through by that gate's own check only after the lease (300 ms) has lapsed.
    const s = setup({ journal: unrenewed(createMemoryRunJournal()), pauses: { leaseMs: 300 } });
    const log = addAudit(s.reg, { checks: [async ({ tool }) => (tool.name === 'log' ? await delay(350) : undefined, { isAllowed: true })] });
    s.builder.bind({ sideEffectingTools: ['send', 'log', 'audit'] });
    const late = await resumedAfterSend(s.builder, { name: 'audit', tool: 'audit', inputMapping: { line: '$prev.sent' } });
    expect(late.details).toMatchObject({ code: 'resume_lease_lapsed' });
    expect([s.send.calls.length, log.calls.length]).toEqual([1, 0]);
  });

  it('reaching a call a person must decide, it stores no pause over the one that took over: that one holds the only token, and resumes to the end', async () => {
    const { send, door, release, journal } = slowSetup({
      steps: [
        { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
        { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
        { name: 'slow', tool: 'slow', inputMapping: { text: 'slow' } },
        { name: 'again', tool: 'send', inputMapping: { text: '$prev.text' } },
        { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
      ],
    });
    const paused = pendingOf(await door.execute({ id: 2 }, ctx()));
    const stale = resumeRun(door, paused.resume, [{ approved: true }], ctx());
    await delay(350);
    // The resumption that took over pauses at the second send.
    const taken = pendingOf(await resumeRun(door, paused.resume, [{ approved: true }], ctx()));
    expect(taken.pending).toMatchObject([{ tool: 'send', step: 'again', args: { text: 'slow' } }]);
    const stored = await journal.load(taken.resume.split('.')[0]);
    release();
    const late = await stale;
    expect(late.details).toMatchObject({ code: 'resume_lease_lapsed', tool: 'send', step: 'again' });
    // The stale one stored nothing: the pause stored is the one that took over's, to the byte.
    expect(await journal.load(taken.resume.split('.')[0])).toBe(stored);
    expect(send.calls).toEqual([{ text: 'note 2' }]);
    const done = await resumeRun(door, taken.resume, [{ approved: true }], ctx());
    expect(done).toMatchObject({ success: true, output: { done: 'slow' } });
    expect(send.calls).toEqual([{ text: 'note 2' }, { text: 'slow' }]);
  });
});

describe('run_pipeline pauses and resumes', () => {
  it('stops at the call, and resumes to the report a run that never paused gives', async () => {
    const { read, send, gate } = setup();
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['send'] });
    const input = {
      steps: [
        { id: 'r', tool: 'read', args: { id: 1 } },
        { id: 's', tool: 'send', args: { text: '${r.output.text}' } },
        { id: 'a', tool: 'after', args: { sent: 'x' } },
      ],
    };
    const paused = pendingOf(await pipeline.execute(input, ctx()));
    expect(paused.pending).toEqual([{ tool: 'send', step: 's', args: { text: 'note 1' }, caller: { door: 'run_pipeline', path: [], modelChosen: ['step', 'args'] } }]);
    expect(send.calls.length).toBe(0);
    const resumed = await resumeRun(pipeline, paused.resume, [{ approved: true }], ctx());
    const straight = setup({}, () => ({ approved: true }));
    const once = await createRunPipelineTool(straight.gate, { sideEffectingTools: ['send'] }).execute(input, ctx());
    expect(resumed.success).toBe(true);
    expect(resumed.output).toBe(once.output);
    expect(resumed.details?.steps).toEqual(once.details?.steps);
    expect([read.calls.length, send.calls.length]).toEqual([1, 1]);
  });

  it('without stop_on_error, the steps after the paused call still do not start', async () => {
    const { send, after, gate } = setup();
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['send'] });
    const paused = pendingOf(
      await pipeline.execute({ stop_on_error: false, steps: [{ id: 's', tool: 'send', args: { text: 'a' } }, { id: 'a', tool: 'after', args: { sent: 'x' } }] }, ctx()),
    );
    expect([send.calls.length, after.calls.length]).toEqual([0, 0]);
    const resumed = await resumeRun(pipeline, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(true);
    expect([send.calls.length, after.calls.length]).toEqual([1, 1]);
  });
});

describe('where a run cannot pause', () => {
  it('a direct call through the gate has no run to resume: a pending answer refuses it', async () => {
    const { gate, send } = setup();
    const result = await gate.run(send, { text: 'x' }, ctx());
    expect(result.details).toMatchObject({ code: 'approval_rejected', reason: 'pending outside a run' });
    expect(result.error).toBe(
      'The approval for tool "send" is pending, and this call comes from no run that can wait for it (a direct call, or a gate made without createStepGate), so the call is refused.',
    );
    expect(send.calls.length).toBe(0);
  });

  it('anything else than approved true or false, or pending true, still refuses', async () => {
    for (const answer of [{ pending: 'yes' }, { pending: true, approved: false }, { pending: 1 }, {}, null]) {
      const { builder, send } = setup({}, () => answer);
      const result = await composite(builder).execute({ id: 1 }, ctx());
      expect(result.details?.code).toBe('approval_rejected');
      expect(send.calls.length).toBe(0);
    }
  });
});

describe('compose pauses and resumes', () => {
  function composeSetup() {
    const s = setup();
    let slowRuns = 0;
    // A read that takes a while: in flight when the other branch pauses.
    const slow = tool('slow', async (a) => {
      slowRuns++;
      await delay(30);
      return { text: `slow ${String(a.id)}` };
    });
    s.reg.add(slow);
    const compose = createComposeTool(s.gate, { sideEffectingTools: ['send'] });
    return { ...s, slow, compose, slowRuns: () => slowRuns };
  }
  const TREE = {
    combinator: 'gather',
    calls: {
      a: { combinator: 'pipe', stages: [{ tool: 'read', args: { id: 1 } }, { tool: 'send', args: { text: 'now' } }] },
      b: { combinator: 'pipe', stages: [{ tool: 'slow', args: { id: 2 } }, { tool: 'after', args: { sent: 'later' } }] },
    },
  };

  it("a gather stops at the paused call: the other branch's call in flight finishes and is recorded, nothing after it starts", async () => {
    const { compose, read, send, after, slow } = composeSetup();
    const paused = pendingOf(await compose.execute(TREE, ctx()));
    expect(paused.pending).toEqual([{ tool: 'send', step: 'tree.calls.a.stages[1]', args: { text: 'now' }, caller: { door: 'compose', path: [], modelChosen: ['step', 'args'] } }]);
    expect([read.calls.length, send.calls.length, slow.calls.length, after.calls.length]).toEqual([1, 0, 1, 0]);
  });

  it('resumed: every call recorded before the pause is answered from the journal, the approved call runs once, and the result is that of a run that never paused', async () => {
    const { compose, read, send, after, slow } = composeSetup();
    const paused = pendingOf(await compose.execute(TREE, ctx()));
    const resumed = await resumeRun(compose, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(true);
    expect([read.calls.length, send.calls.length, slow.calls.length, after.calls.length]).toEqual([1, 1, 1, 1]);
    const straight = setup({}, () => ({ approved: true }));
    straight.reg.add(tool('slow', (a) => ({ text: `slow ${String(a.id)}` })));
    const once = await createComposeTool(straight.gate, { sideEffectingTools: ['send'] }).execute(TREE, ctx());
    expect(resumed.output).toEqual(once.output);
    expect(resumed.output).toEqual({ a: { sent: 'now' }, b: { done: 'later' } });
  });

  it('two branches waiting at once are both pending, in the order of their places, and answered one decision each', async () => {
    const { compose, send } = composeSetup();
    const tree = { combinator: 'gather', calls: { y: { tool: 'send', args: { text: 'y' } }, x: { tool: 'send', args: { text: 'x' } } } };
    const paused = pendingOf(await compose.execute(tree, ctx()));
    expect(paused.pending.map((p) => p.step)).toEqual(['tree.calls.x', 'tree.calls.y']);
    const resumed = await resumeRun(compose, paused.resume, [{ approved: false, reason: 'not x' }, { approved: true }], ctx());
    expect(send.calls).toEqual([{ text: 'y' }]);
    expect(resumed.details).toMatchObject({ code: 'approval_rejected', reason: 'not x', call: 'x' });
  });
});

describe('run_js pauses too', () => {
  it("a script's call whose approval is pending pauses the script's run; the resumption runs the call once and the script to its end", async () => {
    const { gate, send, read } = setup();
    const script = createScriptTool(gate, { sideEffectingTools: ['send'] });
    const code = "const r = await callTool('send', { text: 'x' }); const n = await tools.read({ id: 1 }); return [r.text, n.text];";
    const paused = pendingOf(await script.execute({ intention: 'send a note', code }, ctx()));
    expect(paused.pending).toMatchObject([{ tool: 'send', step: 'call 1', args: { text: 'x' }, caller: { door: 'run_js', intention: 'send a note' } }]);
    expect([send.calls.length, read.calls.length]).toEqual([0, 0]);
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(JSON.parse(String(resumed.output))).toEqual([JSON.stringify({ sent: 'x' }), 'note 1']);
    expect([send.calls.length, read.calls.length]).toEqual([1, 1]);
  });
});

describe('a journal out of reach', () => {
  it('a pause that cannot be stored answers journal_unavailable; a resumption that cannot read answers it too, and nothing runs', async () => {
    const memory = createMemoryRunJournal();
    let down = false;
    const journal: RunJournal = {
      save: (run) => (down ? Promise.reject(new Error('connection refused')) : memory.save(run)),
      load: (id) => (down ? Promise.reject(new Error('connection refused')) : memory.load(id)),
      record: (id, r) => memory.record(id, r),
      records: (id) => memory.records(id),
      claim: (id, p, u) => memory.claim(id, p, u),
      renew: (id, p, f, u) => memory.renew(id, p, f, u),
      remove: (id) => memory.remove(id),
    };
    const { builder, send } = setup({ journal });
    const door = composite(builder);
    const paused = pendingOf(await door.execute({ id: 1 }, ctx()));
    down = true;
    const failed = await door.execute({ id: 2 }, ctx());
    expect(failed.details?.code).toBe('journal_unavailable');
    expect(failed.error).toMatch(/connection refused/);
    expect((await resumeRun(door, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('journal_unavailable');
    expect(send.calls.length).toBe(0);
    down = false;
    expect((await resumeRun(door, paused.resume, [{ approved: true }], ctx())).success).toBe(true);
  });
});

describe('a run cancelled while a person is asked', () => {
  it('does not pause when the answer is pending after the abort: the call ends step_aborted and no token is stored', async () => {
    const controller = new AbortController();
    const journal = createMemoryRunJournal();
    const saved: string[] = [];
    const watched: RunJournal = { ...journal, save: (run) => (saved.push(run.runId), journal.save(run)) };
    const { builder, send } = setup({ journal: watched }, () => (controller.abort(), { pending: true }));
    const result = await composite(builder).execute({ id: 6 }, { ...ctx(), signal: controller.signal });
    expect(result.details).toMatchObject({ code: 'step_aborted', tool: 'send', step: 'send' });
    expect(saved).toEqual([]);
    expect(send.calls.length).toBe(0);
  });
});

describe('a journal that cannot record a start', () => {
  it('a resumption does not start the side-effecting call, and ends journal_unavailable with the journal\'s reason', async () => {
    const memory = createMemoryRunJournal();
    let full = false;
    const journal: RunJournal = { ...memory, record: (id, record) => (full ? Promise.reject(new Error('disk full')) : memory.record(id, record)) };
    const { builder, send } = setup({ journal });
    const door = composite(builder);
    const paused = pendingOf(await door.execute({ id: 1 }, ctx()));
    full = true;
    const resumed = await resumeRun(door, paused.resume, [{ approved: true }], ctx());
    expect(resumed).toEqual({ success: false, error: 'The run journal could not be reached: disk full', details: { code: 'journal_unavailable' }, effects: [] });
    expect(send.calls.length).toBe(0);
  });
});

describe('runs that never pause', () => {
  it('write nothing to the journal; a gate without approvals records nothing and gives no idempotency key', async () => {
    const touched: string[] = [];
    const memory = createMemoryRunJournal();
    const journal = Object.fromEntries(
      Object.entries(memory).map(([name, fn]) => [name, (...args: unknown[]) => (touched.push(name), (fn as (...a: unknown[]) => unknown)(...args))]),
    ) as unknown as RunJournal;
    const { builder, send } = setup({ journal }, () => ({ approved: true }));
    expect((await composite(builder).execute({ id: 1 }, ctx())).success).toBe(true);
    expect(touched).toEqual([]);
    expect(send.contexts[0].idempotencyKey).toBeDefined();

    const read = tool('read', (a) => ({ text: `note ${String(a.id)}` }));
    const plain = new ComposableToolBuilder(registry(read, tool('send', () => ({}), { hasSideEffects: true }), tool('after', () => ({}))).gate());
    plain.bind({ sideEffectingTools: ['send'] });
    expect((await composite(plain).execute({ id: 1 }, ctx())).success).toBe(true);
    expect(read.contexts[0].idempotencyKey).toBeUndefined();
  });
});

describe("a run named by the host (context.runName)", () => {
  it('takes an id derived from the name: the same calls get the same idempotency keys in another gate, another name gets others', async () => {
    const first = setup();
    pendingOf(await composite(first.builder).execute({ id: 7 }, { ...ctx(), runName: 'order-42' }));
    const again = setup();
    const paused = pendingOf(await composite(again.builder).execute({ id: 7 }, { ...ctx(), runName: 'order-42' }));
    const other = setup();
    pendingOf(await composite(other.builder).execute({ id: 7 }, { ...ctx(), runName: 'order-43' }));
    const unnamed = setup();
    pendingOf(await composite(unnamed.builder).execute({ id: 7 }, ctx()));
    const key = first.read.contexts[0].idempotencyKey;
    expect(key).toMatch(/^run_[A-Za-z0-9_-]{22}:toolweave:notify\/read#0$/);
    expect(again.read.contexts[0].idempotencyKey).toBe(key);
    expect(other.read.contexts[0].idempotencyKey).not.toBe(key);
    expect(unnamed.read.contexts[0].idempotencyKey).not.toBe(key);
    // The token of a named run resumes as any other.
    const resumed = await resumeRun(composite(again.builder), paused.resume, [{ approved: true }], ctx());
    expect(resumed.output).toEqual({ done: 'note 7' });
    expect(again.send.contexts[0].idempotencyKey).toBe(key!.replace(/read#0$/, 'send#0'));
  });
});

describe('a run whose steps pass through another gate (a composite made with a gate that asks no person)', () => {
  it.each([
    ['with no host checks', {}],
    ['with host checks of its own', { checks: [() => ({ isAllowed: true })] }],
  ] as const)('the calls made through it %s before the pause are answered from the journal on resumption, not run again', async (_name, inner) => {
    const { read, send, reg, builder } = setup();
    const log = addAudit(reg, inner);
    builder.bind({ sideEffectingTools: ['send', 'log', 'audit'] });
    const outer = composite(builder, {
      steps: [
        { name: 'audit', tool: 'audit', inputMapping: { line: '$input.id' } },
        { name: 'send', tool: 'send', inputMapping: { text: 'hello' } },
      ],
    });
    const paused = pendingOf(await outer.execute({ id: 3 }, ctx()));
    expect(log.calls).toEqual([{ line: 3 }]);
    // The inner calls carry the run's idempotency keys, as the outer gate's own calls do.
    expect(log.contexts[0].idempotencyKey).toMatch(/^run_[A-Za-z0-9_-]{22}:toolweave:notify\/.*log#0$/);
    const resumed = await resumeRun(outer, paused.resume, [{ approved: true }], ctx());
    expect(resumed).toMatchObject({ success: true, output: { sent: 'hello' } });
    expect(log.calls).toEqual([{ line: 3 }]);
    expect(read.calls).toEqual([{ id: 3 }]);
    expect(send.calls).toEqual([{ text: 'hello' }]);
  });
});
