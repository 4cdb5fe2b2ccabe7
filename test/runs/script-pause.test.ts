import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createSandboxPool, createScriptTool } from '../../src/agent-tools/script/index.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { StepGateOptions } from '../../src/gate/options.js';
import { createMemoryRunJournal } from '../../src/runs/memory-journal.js';
import type { PausedRun, RunJournal } from '../../src/runs/journal.js';
import { MAX_SANDBOX_VALUES } from '../../src/runs/sandbox-values.js';
import { resumeRun } from '../../src/doors/resume.js';
import type { ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** One pool for the file: one thread, so a run left on it would show in its stats. */
const pool = createSandboxPool({ threads: 1 });

/**
 * A pure `read`, a side-effecting `send` (the approval hook answers for it) and a pure `after`,
 * behind `run_js`; `saved` holds every paused run the journal stored.
 */
function setup(answer: (a: ApprovalAction) => unknown = () => ({ pending: true }), extra: Omit<StepGateOptions, 'resolve' | 'approvals'> = {}) {
  const read = tool('read', (a) => `note ${String(a.id)}`);
  const send = tool('send', (a) => `sent ${String(a.text)}`, { hasSideEffects: true });
  const after = tool('after', (a) => `after ${String(a.sent)}`);
  const slow = tool('slow', async () => (await delay(60), 'slow'));
  const fast = tool('fast', () => 'fast');
  const memory = createMemoryRunJournal();
  const saved: PausedRun[] = [];
  const journal: RunJournal = { ...memory, save: (run) => (saved.push(structuredClone(run)), memory.save(run)) };
  const asked: ApprovalAction[] = [];
  const gate = registry(read, send, after, slow, fast).gate({
    journal,
    ...extra,
    approvals: { requestApproval: (a) => (asked.push(a), answer(a) as { approved: boolean }) },
  });
  const script = createScriptTool(gate, { sideEffectingTools: ['send'], pool });
  return { read, send, after, slow, fast, gate, script, asked, saved };
}

const ctx = (sessionId = 's1'): ToolExecutionContext => ({ sessionId });

function pendingOf(result: ToolExecutionResult) {
  expect(result.details?.code, JSON.stringify(result)).toBe('approval_pending');
  expect(result.success).toBe(false);
  return result.details as { resume: string; pending: { tool: string; step: string; args: Record<string, unknown>; caller?: unknown }[] };
}

const THREE_CALLS = `
  const a = await callTool('read', { id: 1 });
  const b = await callTool('send', { text: a.text });
  const c = await callTool('after', { sent: b.error ? b.error.code + ': ' + b.error.message : b.text });
  return [a.text, b.text, c.text];
`;

describe('run_js pauses at a call a person will decide about later', () => {
  it('stops at the 2nd of 3 calls: it does not run, nothing after it runs, and the result carries a token and the call', async () => {
    const { read, send, after, script } = setup();
    const paused = pendingOf(await script.execute({ code: THREE_CALLS }, ctx()));
    expect(paused.pending).toEqual([
      { tool: 'send', step: 'call 2', args: { text: 'note 1' }, caller: { door: 'run_js', path: [], modelChosen: ['intention', 'args'] } },
    ]);
    expect([read.calls.length, send.calls.length, after.calls.length]).toEqual([1, 0, 0]);
    // The script was ended: no run is left on the pool while the run waits for the person.
    expect(pool.stats()).toMatchObject({ runs: 0, queued: 0 });
  });

  it('resumed with an approval: each call runs exactly once, and the result is that of a run that never paused', async () => {
    const { read, send, after, script, asked } = setup();
    const paused = pendingOf(await script.execute({ code: THREE_CALLS }, ctx()));
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(true);
    expect([read.calls.length, send.calls.length, after.calls.length]).toEqual([1, 1, 1]);
    expect(asked).toHaveLength(1);
    const straight = setup(() => ({ approved: true }));
    const once = await straight.script.execute({ code: THREE_CALLS }, ctx());
    expect(once.success).toBe(true);
    expect(resumed.output).toBe(once.output);
    expect(JSON.parse(String(resumed.output))).toEqual(['note 1', 'sent note 1', 'after sent note 1']);
    expect(resumed.effects).toEqual(once.effects);
    // The send's idempotency key names the run and the call's place, the same in every attempt.
    expect(send.contexts[0].idempotencyKey).toMatch(/^run_[A-Za-z0-9_-]{22}:call 2#0$/);
    // The run has ended: its token is spent.
    expect((await resumeRun(script, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
    expect(send.calls.length).toBe(1);
  });

  it('resumed with a refusal: the script sees the refusal as it would have, and the call does not run', async () => {
    const { send, after, script } = setup();
    const paused = pendingOf(await script.execute({ code: THREE_CALLS }, ctx()));
    const resumed = await resumeRun(script, paused.resume, [{ approved: false, reason: 'not today' }], ctx());
    const straight = setup(() => ({ approved: false, reason: 'not today' }));
    const once = await straight.script.execute({ code: THREE_CALLS }, ctx());
    expect(resumed.success).toBe(true);
    expect(resumed.output).toBe(once.output);
    const [, , seen] = JSON.parse(String(resumed.output)) as string[];
    expect(seen).toMatch(/^after approval_rejected: /);
    expect(send.calls.length).toBe(0);
    expect(after.calls.length).toBe(1);
  });

  it('pauses twice in one script: each pause has its own token, and what ran before runs not again', async () => {
    const { read, send, script } = setup();
    const code = "const a = await callTool('read', { id: 2 }); const b = await callTool('send', { text: 'one' }); const c = await callTool('send', { text: 'two' }); return [a.text, b.text, c.text];";
    const one = pendingOf(await script.execute({ code }, ctx()));
    const two = pendingOf(await resumeRun(script, one.resume, [{ approved: true }], ctx()));
    expect(two.pending).toMatchObject([{ tool: 'send', step: 'call 3', args: { text: 'two' } }]);
    expect(send.calls).toEqual([{ text: 'one' }]);
    const done = await resumeRun(script, two.resume, [{ approved: true }], ctx());
    expect(JSON.parse(String(done.output))).toEqual(['note 2', 'sent one', 'sent two']);
    expect(send.calls).toEqual([{ text: 'one' }, { text: 'two' }]);
    expect(read.calls.length).toBe(1);
  });

  it('a call in flight when the run paused finishes and is recorded: the resumption does not run it again', async () => {
    const { slow, send, script } = setup();
    const code = "const s = callTool('slow', {}); const b = await callTool('send', { text: 'x' }); return [(await s).text, b.text];";
    const paused = pendingOf(await script.execute({ code }, ctx()));
    expect(slow.calls.length).toBe(1);
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(JSON.parse(String(resumed.output))).toEqual(['slow', 'sent x']);
    expect(slow.calls.length).toBe(1);
    expect(send.calls.length).toBe(1);
  });

  it('a token from another scope reads as unknown, and nothing runs', async () => {
    const { send, script } = setup();
    const paused = pendingOf(await script.execute({ code: THREE_CALLS }, ctx('s1')));
    const other = await resumeRun(script, paused.resume, [{ approved: true }], ctx('s2'));
    expect(other.details?.code).toBe('resume_token_unknown');
    expect(send.calls.length).toBe(0);
    // The token still holds in its own scope.
    expect((await resumeRun(script, paused.resume, [{ approved: true }], ctx('s1'))).success).toBe(true);
  });
});

describe("a script's Math.random and clock replay as the first run drew them", () => {
  const RANDOM_AND_DATE = `
    const r = [Math.random(), Math.random()];
    const t = Date.now();
    const d = new Date();
    const s = Date();
    const fixed = new Date(2020, 0, 2);
    const drawn = r.join(',') + '|' + t + '|' + d.getTime() + '|' + s;
    const a = await callTool('read', { id: 1 });
    const b = await callTool('send', { text: drawn });
    return { r, t, d: d.getTime(), s, b: b.text, isDate: d instanceof Date && fixed instanceof Date, year: fixed.getFullYear(), parse: Date.parse('2020-01-02T00:00:00Z'), utc: Date.UTC(2020, 0, 2), late: typeof Math.random() };
  `;

  it('values drawn before the pausing call come back the same on resume, and the replay does not diverge', async () => {
    const { send, script, saved } = setup();
    const paused = pendingOf(await script.execute({ code: RANDOM_AND_DATE }, ctx()));
    const drawn = String(paused.pending[0].args.text);
    // The stored run keeps them, in the order drawn.
    const kept = saved[0].sandboxValues?.['#0'];
    expect(kept?.random).toHaveLength(2);
    expect(kept?.clock).toHaveLength(3);
    // A later clock would read another time.
    await delay(25);
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success, JSON.stringify(resumed)).toBe(true);
    const out = JSON.parse(String(resumed.output)) as Record<string, unknown> & { r: number[]; t: number; d: number; s: string };
    expect(`${out.r.join(',')}|${out.t}|${out.d}|${out.s}`).toBe(drawn);
    expect(out.r).toEqual(kept!.random);
    expect([out.t, out.d]).toEqual(kept!.clock.slice(0, 2));
    expect(out).toMatchObject({ b: `sent ${drawn}`, isDate: true, year: 2020, parse: Date.UTC(2020, 0, 2), utc: Date.UTC(2020, 0, 2), late: 'number' });
    expect(send.calls).toEqual([{ text: drawn }]);
  });

  it('the recorded Date behaves as the built-in one: subclasses, dates from arguments, its statics', async () => {
    const { script, saved } = setup();
    const code = `
      class Day extends Date {}
      const d = new Day();
      const checks = [Date.name, Date.length, Date.prototype.constructor === Date, d instanceof Day, d instanceof Date,
        new Date(0).toISOString(), new Date('2020-01-02T03:04:05Z').getTime(), typeof Date(), Date.now() >= d.getTime() || true];
      await callTool('send', { text: 'x' });
      return checks;`;
    const paused = pendingOf(await script.execute({ code }, ctx()));
    // new Day(), Date() and Date.now() each read the clock once.
    expect(saved[0].sandboxValues?.['#0'].clock).toHaveLength(3);
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(JSON.parse(String(resumed.output))).toEqual(['Date', 7, true, true, true, '1970-01-01T00:00:00.000Z', Date.UTC(2020, 0, 2, 3, 4, 5), 'string', true]);
  });

  it('a run that cannot pause keeps QuickJS\'s own Math.random and Date', async () => {
    const script = createScriptTool(registry().gate(), { pool });
    const result = await script.execute({ code: 'return [String(Math.random).includes("native"), Date.name, typeof Date.now(), new Date() instanceof Date];' }, {});
    expect(JSON.parse(String(result.output))).toEqual([true, 'Date', 'number', true]);
  });

  it(`past ${MAX_SANDBOX_VALUES} values of a kind nothing more is kept: a call that depends on one diverges on resume`, async () => {
    const { send, script, saved } = setup();
    const code = `let v = 0; for (let i = 0; i <= ${MAX_SANDBOX_VALUES}; i++) v = Math.random(); await callTool('read', { id: 1 }); await callTool('send', { text: String(v) }); return v;`;
    const paused = pendingOf(await script.execute({ code }, ctx()));
    expect(saved[0].sandboxValues?.['#0'].random).toHaveLength(MAX_SANDBOX_VALUES);
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(resumed.success).toBe(false);
    expect(resumed.details).toMatchObject({ code: 'replay_diverged', position: 'call 2#0', expected: 'send', tool: 'send' });
    expect(send.calls.length).toBe(0);
  });
});

describe('a script nested in another door', () => {
  it('pauses the outer run; resuming the outer door replays the script with the values it drew', async () => {
    const send = tool('send', (a) => `sent ${String(a.text)}`, { hasSideEffects: true });
    const reg = registry(send);
    const memory = createMemoryRunJournal();
    const saved: PausedRun[] = [];
    const journal: RunJournal = { ...memory, save: (run) => (saved.push(structuredClone(run)), memory.save(run)) };
    const gate = reg.gate({ journal, approvals: { requestApproval: () => ({ pending: true }) } });
    reg.add(createScriptTool(gate, { sideEffectingTools: ['send'], pool }));
    const compose = createComposeTool(gate, { sideEffectingTools: ['run_js', 'send'] });
    const code = "const r = Math.random(); const b = await callTool('send', { text: String(r) }); return r + ' ' + b.text;";
    const tree = { combinator: 'gather', calls: { one: { tool: 'run_js', args: { code } }, two: { tool: 'run_js', args: { code } } } };
    // Each script's send waits: both at once, or one pause after the other, as the two threads go.
    let result = await compose.execute(tree, ctx());
    const texts: string[] = [];
    for (let pauses = 0; pauses < 2 && result.details?.code === 'approval_pending'; pauses++) {
      const paused = pendingOf(result);
      texts.push(...paused.pending.map((p) => String(p.args.text)));
      const kept = saved.at(-1)!.sandboxValues ?? {};
      // Each script's values are kept under its own place in the run.
      expect(Object.keys(kept).length).toBeGreaterThanOrEqual(paused.pending.length);
      result = await resumeRun(compose, paused.resume, paused.pending.map(() => ({ approved: true as const })), ctx());
    }
    const resumed = result;
    expect(texts).toHaveLength(2);
    expect(resumed.success, JSON.stringify(resumed)).toBe(true);
    expect(send.calls.map((c) => String(c.text)).sort()).toEqual([...texts].sort());
    expect(JSON.stringify(resumed.output)).toContain(`${texts[0]} sent ${texts[0]}`);
    expect(JSON.stringify(resumed.output)).toContain(`${texts[1]} sent ${texts[1]}`);
  });
});

describe('a script that takes another path on replay', () => {
  it('branching on which of two calls answered first (not recorded) ends with replay_diverged, and runs nothing more', async () => {
    const { send, script } = setup();
    // In the first run `fast` wins the race; on replay both answers come from the journal at once, and the first call's wins.
    const code = "const first = await Promise.race([callTool('slow', {}), callTool('fast', {})]); const b = await callTool('send', { text: first.text }); return b.text;";
    const paused = pendingOf(await script.execute({ code }, ctx()));
    expect(paused.pending[0].args).toEqual({ text: 'fast' });
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(resumed.details).toMatchObject({ code: 'replay_diverged', position: 'call 3#0' });
    expect(send.calls.length).toBe(0);
    // The run is forgotten: its token reads as unknown.
    expect((await resumeRun(script, paused.resume, [{ approved: true }], ctx())).details?.code).toBe('resume_token_unknown');
  });

  it('branching on the tool catalog (searchTools is answered by the host, not recorded) ends with replay_diverged when the catalog changed', async () => {
    const send = tool('send', (a) => `sent ${String(a.text)}`, { hasSideEffects: true });
    const reg = registry(tool('note_read', () => 'n'), send);
    const gate = reg.gate({ approvals: { requestApproval: () => ({ pending: true }) } });
    const script = createScriptTool(gate, { sideEffectingTools: ['send'], pool });
    const code = "const found = await searchTools('note'); return (await callTool('send', { text: String(found.length) })).text;";
    const paused = pendingOf(await script.execute({ code }, ctx()));
    const before = String(paused.pending[0].args.text);
    // Another note tool is registered before the person answers: the search now finds more.
    reg.add(tool('note_write', () => 'w'));
    const resumed = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(Number(before)).toBeGreaterThan(0);
    expect(resumed.details).toMatchObject({ code: 'replay_diverged', position: 'call 2#0', expected: 'send' });
    expect(send.calls).toEqual([]);
  });
});

describe('a resumed script counts against the budget', () => {
  const codes = (calls: string) => `
    const out = [];
    for (const [name, args] of ${calls}) {
      const r = await callTool(name, args);
      out.push(r.error ? r.error.code : 'ok');
    }
    return out;
  `;
  const READ_SEND_AFTER_AFTER = codes(`[['read', { id: 1 }], ['send', { text: 'x' }], ['after', { sent: 'x' }], ['after', { sent: 'y' }]]`);

  it('a call answered from the journal counts as it did when it ran: the budget the first attempt began to fill is full one call sooner', async () => {
    // read (1) and the question about send (2); resumed: read answered from the journal (1),
    // send approved (2), after (3), and the second after is one too many.
    const { script } = setup(undefined, { budget: { calls: 3 } });
    const paused = pendingOf(await script.execute({ code: READ_SEND_AFTER_AFTER }, ctx()));
    const done = await resumeRun(script, paused.resume, [{ approved: true }], ctx());
    expect(JSON.parse(String(done.output))).toEqual(['ok', 'ok', 'ok', 'budget_exceeded']);
    const roomy = setup(undefined, { budget: { calls: 4 } });
    const again = pendingOf(await roomy.script.execute({ code: READ_SEND_AFTER_AFTER }, ctx()));
    expect(JSON.parse(String((await resumeRun(roomy.script, again.resume, [{ approved: true }], ctx())).output))).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(roomy.read.calls.length).toBe(1);
  });

  it('so does the call a person refused when resumed: it counts as the question did', async () => {
    // The question about send (1); resumed with a refusal: send refused (1), read (2), and the
    // second read is one too many.
    const { script, send, read } = setup(undefined, { budget: { calls: 2 } });
    const code = codes(`[['send', { text: 'a' }], ['read', { id: 1 }], ['read', { id: 2 }]]`);
    const paused = pendingOf(await script.execute({ code }, ctx()));
    const done = await resumeRun(script, paused.resume, [{ approved: false, reason: 'not a' }], ctx());
    expect(JSON.parse(String(done.output))).toEqual(['approval_rejected', 'ok', 'budget_exceeded']);
    expect([send.calls.length, read.calls.length]).toEqual([0, 1]);
  });
});
