/**
 * The Redis run journal against a real redis-server (started here on a free port with persistence
 * off, stopped at the end): the RunJournal contract with two clients racing as two processes
 * would, how keys are laid out and expire, the bounds on what is read back, and a door that
 * pauses and resumes through it, and answers journal_unavailable while Redis is down.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { RunJournal } from '../../src/runs/journal.js';
import { DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE } from '../../src/runs/memory-journal.js';
import { resumeRun } from '../../src/doors/resume.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { createRedisRunJournal, type RedisRunJournalOptions } from '../../src/stores/redis.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';
import { callRecord, describeRunJournalContract, newId, pausedRun } from '../runs/journal-contract.js';
import { requireRedisServer, startRedisServer, type RedisServer, bytesSent, eventually } from './redis-server.js';

requireRedisServer();

const clients: Redis[] = [];
const servers: RedisServer[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  for (const server of servers) await server.stop();
});

/** A client of `server`; errors are expected here (outages), so they are listened to. */
function clientOf(server: RedisServer, options: RedisOptions = {}): Redis {
  const client = new Redis({ host: '127.0.0.1', port: server.port, retryStrategy: () => 100, ...options });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  servers.push(server);
  admin = clientOf(server);
});

const journalOver = (client: Redis, options: Partial<RedisRunJournalOptions> = {}) => createRedisRunJournal({ client, keyPrefix: 'test:run:', ...options });

// Two clients, two journals: as two processes sharing one server.
describeRunJournalContract('createRedisRunJournal', () => [journalOver(clientOf(server)), journalOver(clientOf(server))]);

describe('createRedisRunJournal: keys and expiry', () => {
  it("keeps a run in two keys under its hash tag, expiring with the run's token", async () => {
    const journal = journalOver(admin);
    const run = pausedRun(newId(), 0, 60_000);
    await journal.record(run.runId, callRecord('read#0'));
    // Before the run is saved, its records expire after a day at most (the process may stop before it saves).
    const early = await admin.pttl(`test:run:{${run.runId}}:calls`);
    expect(early).toBeGreaterThan(23 * 3600_000);
    expect(early).toBeLessThanOrEqual(24 * 3600_000);
    await journal.save(run);
    for (const key of [`test:run:{${run.runId}}:run`, `test:run:{${run.runId}}:calls`]) {
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(JSON.parse((await admin.hget(`test:run:{${run.runId}}:run`, 'run'))!)).toEqual(run);
    expect(JSON.parse((await admin.hget(`test:run:{${run.runId}}:calls`, 'read#0'))!)).toEqual(callRecord('read#0'));
    // A record written after the save lives as long as the run.
    await journal.record(run.runId, callRecord('send#0', 1, true));
    expect(await admin.pttl(`test:run:{${run.runId}}:calls`)).toBeLessThanOrEqual(60_000);
    await journal.remove(run.runId);
    expect(await admin.exists(`test:run:{${run.runId}}:run`, `test:run:{${run.runId}}:calls`)).toBe(0);
  });

  it('ttlSeconds bounds how long keys are kept, even when the token lives longer', async () => {
    const journal = journalOver(admin, { ttlSeconds: 5 });
    const run = pausedRun(newId(), 0, 24 * 3600_000);
    await journal.record(run.runId, callRecord('read#0'));
    expect(await admin.pttl(`test:run:{${run.runId}}:calls`)).toBeLessThanOrEqual(5000);
    await journal.save(run);
    for (const key of [`test:run:{${run.runId}}:run`, `test:run:{${run.runId}}:calls`]) {
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(3000);
      expect(ttl).toBeLessThanOrEqual(5000);
    }
  });

  it('refuses options out of range and a client that is not one', () => {
    expect(() => createRedisRunJournal({ client: undefined as unknown as Redis })).toThrow(TypeError);
    expect(() => journalOver(admin, { ttlSeconds: 0 })).toThrow(RangeError);
    expect(() => journalOver(admin, { timeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => journalOver(admin, { maxBytes: -1 })).toThrow(RangeError);
  });
});

describe('createRedisRunJournal: what it reads back is bounded and checked', () => {
  const maxBytes = 64 * 1024;
  let journal: RunJournal;
  beforeAll(() => {
    journal = journalOver(admin, { maxBytes });
  });

  it('rejects a run or records over maxBytes, without reading them', async () => {
    const runId = newId();
    await admin.hset(`test:run:{${runId}}:run`, 'run', JSON.stringify({ ...pausedRun(runId), input: 'x'.repeat(2 * maxBytes) }));
    const before = await bytesSent(admin);
    await expect(journal.load(runId)).rejects.toThrow(/is \d+ bytes, over the 65536 bytes this journal reads/);
    // The server sent the size, not the entry (the INFO replies themselves are a few KB).
    expect((await bytesSent(admin)) - before).toBeLessThan(16 * 1024);
    // Many small records that together are too many bytes.
    const fields: string[] = [];
    for (let i = 0; i < 100; i++) fields.push(`read#${i}`, JSON.stringify({ ...callRecord(`read#${i}`), pad: 'y'.repeat(1000) }));
    await admin.hset(`test:run:{${runId}}:calls`, ...fields);
    const beforeRecords = await bytesSent(admin);
    await expect(journal.records(runId)).rejects.toThrow(/are \d+ bytes, over the 65536 bytes this journal reads/);
    expect((await bytesSent(admin)) - beforeRecords).toBeLessThan(16 * 1024);
    // What it would refuse to read, it refuses to write.
    await expect(journal.save({ ...pausedRun(newId()), input: 'x'.repeat(maxBytes) })).rejects.toMatchObject({ code: 'pause_too_large', message: expect.stringMatching(/over the 65536 bytes/) });
    await expect(journal.record(newId(), { ...callRecord('read#0'), result: { success: true, output: 'z'.repeat(maxBytes) } })).rejects.toMatchObject({ code: 'pause_too_large', details: { tool: 'read', position: 'read#0', maxBytes } });
  });

  it('rejects a run with more records than it reads (100,000), without reading them', async () => {
    const runId = newId();
    const key = `test:run:{${runId}}:calls`;
    for (let from = 0; from <= 100_000; from += 10_000) {
      const fields: string[] = [];
      for (let i = from; i < Math.min(from + 10_000, 100_001); i++) fields.push(`r#${i}`, '1');
      await admin.hset(key, ...fields);
    }
    expect(await admin.hlen(key)).toBe(100_001);
    const before = await bytesSent(admin);
    await expect(journal.records(runId)).rejects.toThrow(/are 100001 records, over the 100000 this journal reads/);
    expect((await bytesSent(admin)) - before).toBeLessThan(16 * 1024);
    await admin.del(key);
  });

  it('rejects an entry that is not JSON it wrote, and a key of another type', async () => {
    const runId = newId();
    await admin.hset(`test:run:{${runId}}:run`, 'run', '{not json');
    await expect(journal.load(runId)).rejects.toThrow(/is not JSON/);
    await admin.hset(`test:run:{${runId}}:run`, 'run', JSON.stringify({ ...pausedRun(runId), runId: newId() }));
    await expect(journal.load(runId)).rejects.toThrow(/not one this journal wrote/);
    await admin.hset(`test:run:{${runId}}:calls`, 'read#0', JSON.stringify(callRecord('send#0')));
    await expect(journal.records(runId)).rejects.toThrow(/not one this journal wrote/);
    const other = newId();
    await admin.set(`test:run:{${other}}:run`, 'a string');
    await admin.set(`test:run:{${other}}:calls`, 'a string');
    await expect(journal.load(other)).rejects.toThrow(/WRONGTYPE/);
    await expect(journal.records(other)).rejects.toThrow(/WRONGTYPE/);
    await expect(journal.claim(other, 0, Date.now() + 1000)).rejects.toThrow(/WRONGTYPE/);
  });
});

/** A door `notify` (read, then a side-effecting send, then after) through a gate whose approvals wait for a person on `send`. */
function notifyDoor(journal: RunJournal, answer: (a: ApprovalAction) => unknown = () => ({ pending: true })) {
  const read = tool('read', (a) => ({ text: `note ${String(a.id)}` }));
  const send = tool('send', (a) => ({ sent: a.text }), { hasSideEffects: true });
  const after = tool('after', (a) => ({ done: a.sent }));
  const gate = registry(read, send, after).gate({ journal, approvals: { requestApproval: (a) => answer(a) as { approved: boolean } } });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['send'] });
  const spec = {
    steps: [
      { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
      { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
      { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
    ],
  };
  const door = builder.build('notify', 'read a note and send it', { type: 'object' }, spec) as ITool;
  return { door, read, send, after };
}

function tokenOf(result: ToolExecutionResult): string {
  expect(result.details?.code).toBe('approval_pending');
  return (result.details as { resume: string }).resume;
}

describe('a door through a gate with the Redis journal', () => {
  it('pauses, and resumes through another journal over another client to the result of a run that never paused', async () => {
    const first = notifyDoor(journalOver(clientOf(server)));
    const token = tokenOf(await first.door.execute({ id: 7 }, { sessionId: 's1' }));
    const runId = token.split('.')[0];
    expect(await admin.exists(`test:run:{${runId}}:run`)).toBe(1);
    expect(await admin.hkeys(`test:run:{${runId}}:calls`)).toEqual(['toolweave:notify/read#0']);

    // Another door, gate and client: as a replica would resume it.
    const second = notifyDoor(journalOver(clientOf(server)));
    expect((await resumeRun(second.door, token, [{ approved: true }], { sessionId: 'other' })).details?.code).toBe('resume_token_unknown');
    const resumed = await resumeRun(second.door, token, [{ approved: true }], { sessionId: 's1' });
    const straight = await notifyDoor(journalOver(admin), () => ({ approved: true })).door.execute({ id: 7 }, { sessionId: 's1' });
    expect(resumed).toMatchObject({ success: true, output: { done: 'note 7' } });
    expect(resumed.output).toEqual(straight.output);
    expect(resumed.effects).toEqual(straight.effects);
    expect(resumed.details?.trace).toEqual(straight.details?.trace);
    expect([first.read.calls.length, first.send.calls.length, second.read.calls.length, second.send.calls.length, second.after.calls.length]).toEqual([1, 0, 0, 1, 1]);
    // The run ended: its keys are gone and its token is spent.
    expect(await admin.exists(`test:run:{${runId}}:run`, `test:run:{${runId}}:calls`)).toBe(0);
    expect((await resumeRun(second.door, token, [{ approved: true }], { sessionId: 's1' })).details?.code).toBe('resume_token_unknown');
    expect(second.send.calls.length).toBe(1);
  });

  it('answers journal_unavailable for a paused run changed in Redis into something it did not write, and runs nothing', async () => {
    const { door, send } = notifyDoor(journalOver(admin));
    const token = tokenOf(await door.execute({ id: 4 }, { sessionId: 's1' }));
    await admin.hset(`test:run:{${token.split('.')[0]}}:run`, 'run', '{"runId": 42');
    const resumed = await resumeRun(door, token, [{ approved: true }], { sessionId: 's1' });
    expect(resumed.details?.code).toBe('journal_unavailable');
    expect(resumed.error).toMatch(/is not JSON/);
    expect(send.calls.length).toBe(0);
  });

  it('answers journal_unavailable while Redis is down, runs nothing it should not, and works again once it is back', async () => {
    const outage = await startRedisServer();
    servers.push(outage);
    const client = clientOf(outage);
    const { door, send } = notifyDoor(createRedisRunJournal({ client, timeoutMs: 300 }));
    const token = tokenOf(await door.execute({ id: 1 }, { sessionId: 's1' }));
    await outage.stop();
    await eventually(() => client.status !== 'ready');
    const resumed = await resumeRun(door, token, [{ approved: true }], { sessionId: 's1' });
    expect(resumed.details?.code).toBe('journal_unavailable');
    expect(resumed.error).toMatch(/Redis run journal: Redis is not connected/);
    const paused = await door.execute({ id: 2 }, { sessionId: 's1' });
    expect(paused.details?.code).toBe('journal_unavailable');
    expect(send.calls.length).toBe(0);

    // Paused (SIGSTOP): connected, but nothing answers: the timeout says so.
    await outage.start();
    await eventually(() => client.status === 'ready');
    const again = tokenOf(await door.execute({ id: 3 }, { sessionId: 's1' }));
    outage.pause();
    const stalled = await resumeRun(door, again, [{ approved: true }], { sessionId: 's1' });
    outage.resume();
    expect(stalled.details?.code).toBe('journal_unavailable');
    expect(stalled.error).toMatch(/did not answer within 300 ms/);
    expect(send.calls.length).toBe(0);
    // Back: the paused run resumes.
    const done = await resumeRun(door, again, [{ approved: true }], { sessionId: 's1' });
    expect(done).toMatchObject({ success: true, output: { done: 'note 3' } });
    expect(send.calls).toEqual([{ text: 'note 3' }]);
  });
});

describe('createRedisRunJournal: paused runs per scope', () => {
  it("bounds each scope's paused runs: past the bound a pause of that scope answers pauses_full, another scope's pauses and tokens are untouched", async () => {
    const [alice, bob] = [`alice-${newId()}`, `bob-${newId()}`];
    const a = notifyDoor(journalOver(clientOf(server)));
    const b = notifyDoor(journalOver(clientOf(server)));
    const waiting = tokenOf(await a.door.execute({ id: 'a' }, { sessionId: alice }));
    const codes: string[] = [];
    for (let i = 0; i <= DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE; i++) codes.push(String((await b.door.execute({ id: i }, { sessionId: bob })).details?.code));
    expect(codes.filter((code) => code === 'approval_pending')).toHaveLength(DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE);
    expect(codes.at(-1)).toBe('pauses_full');
    // Alice is not refused, and her token resumes.
    tokenOf(await a.door.execute({ id: 'a2' }, { sessionId: alice }));
    expect(await resumeRun(a.door, waiting, [{ approved: true }], { sessionId: alice })).toMatchObject({ success: true, output: { done: 'note a' } });
  });

  it('a run that ends, or expires, frees its room; the refused run reports its effects', async () => {
    const scope = `carol-${newId()}`;
    const journal = journalOver(admin, { maxRunsPerScope: 2 });
    const log = tool('log', (a) => ({ logged: a.line }), { hasSideEffects: true });
    const send = tool('send', (a) => ({ sent: a.text }), { hasSideEffects: true });
    const gate = registry(log, send).gate({ journal, pauses: { ttlMs: 60_000 }, approvals: { requestApproval: (a) => (a.toolName === 'send' ? { pending: true } : { approved: true }) } });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send', 'log'] });
    const door = builder.build('log_and_send', 'x', { type: 'object' }, {
      steps: [
        { name: 'log', tool: 'log', inputMapping: { line: '$input.id' } },
        { name: 'send', tool: 'send', inputMapping: { text: '$prev.logged' } },
      ],
    }) as ITool;
    const first = tokenOf(await door.execute({ id: 1 }, { sessionId: scope }));
    tokenOf(await door.execute({ id: 2 }, { sessionId: scope }));
    const refused = await door.execute({ id: 3 }, { sessionId: scope });
    expect(refused.details).toMatchObject({ code: 'pauses_full', maxRunsPerScope: 2 });
    expect(refused.effects).toEqual([{ step: 'log', tool: 'log', outcome: 'ran', ran: true }]);
    expect(log.calls).toHaveLength(3);
    expect(await resumeRun(door, first, [{ approved: true }], { sessionId: scope })).toMatchObject({ success: true });
    tokenOf(await door.execute({ id: 4 }, { sessionId: scope }));
    // A run past its expiry counts no more.
    const short = journalOver(admin, { maxRunsPerScope: 1 });
    const brief = `dave-${newId()}`;
    await short.save({ ...pausedRun(newId(), 0, 100), scope: brief });
    await expect(short.save({ ...pausedRun(newId()), scope: brief })).rejects.toMatchObject({ code: 'pauses_full' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await short.save({ ...pausedRun(newId()), scope: brief });
  });
});

describe('createRedisRunJournal: a pause it cannot store', () => {
  /** auto_write (approved at once) runs, then a pure read answers `answer`, then write waits for a person. */
  function writeAfterRead(answer: unknown) {
    const autoWrite = tool('auto_write', (a) => ({ wrote: a.line }), { hasSideEffects: true });
    const read = tool('read', () => answer);
    const write = tool('write', (a) => ({ wrote: a.line }), { hasSideEffects: true });
    const gate = registry(autoWrite, read, write).gate({
      journal: journalOver(admin),
      approvals: { requestApproval: (a) => (a.toolName === 'write' ? { pending: true } : { approved: true }) },
    });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['auto_write', 'write'] });
    const door = builder.build('write_twice', 'x', { type: 'object' }, {
      steps: [
        { name: 'first', tool: 'auto_write', inputMapping: { line: '$input.line' } },
        { name: 'read', tool: 'read' },
        { name: 'second', tool: 'write', inputMapping: { line: '$input.line' } },
      ],
    }) as ITool;
    return { door, autoWrite, write };
  }

  it('a read result over maxBytes: pause_too_large names the call and its size, and reports the write that ran', async () => {
    const { door, autoWrite, write } = writeAfterRead({ text: 'x'.repeat(9 * 1024 * 1024) });
    const result = await door.execute({ line: 'one' }, { sessionId: `big-${newId()}` });
    expect(result.details).toMatchObject({ code: 'pause_too_large', tool: 'read', maxBytes: 8 * 1024 * 1024 });
    expect(result.details?.bytes).toBeGreaterThan(9 * 1024 * 1024);
    expect(result.error).toMatch(/"read".*over the 8388608 bytes/);
    expect(result.effects).toEqual([{ step: 'first', tool: 'auto_write', outcome: 'ran', ran: true }]);
    expect([autoWrite.calls.length, write.calls.length]).toEqual([1, 0]);
  });

  it('a read result JSON cannot hold (a BigInt): pause_not_storable names the call, and reports the write that ran', async () => {
    const { door, autoWrite, write } = writeAfterRead({ count: 10n });
    const result = await door.execute({ line: 'one' }, { sessionId: `bigint-${newId()}` });
    expect(result.details).toMatchObject({ code: 'pause_not_storable', tool: 'read' });
    expect(result.error).toMatch(/BigInt/);
    expect(result.effects).toEqual([{ step: 'first', tool: 'auto_write', outcome: 'ran', ran: true }]);
    expect([autoWrite.calls.length, write.calls.length]).toEqual([1, 0]);
  });
});

describe('createRedisRunJournal: labels (a gate with flows)', () => {
  it('keeps the labels a paused run recorded: resumed in another process, a recorded answer keeps its label and steers nothing new', async () => {
    const payments: unknown[] = [];
    const read = tool('read_file', () => 'XX99-ATTACKER', { hasSideEffects: false });
    const send = tool('send_money', (a) => (payments.push(a), { sent: true }), { hasSideEffects: true });
    const gateIn = (journal: RunJournal, trustedTools: string[]) =>
      registry(read, send).gate({ flows: { trustedTools }, journal, approvals: { requestApproval: () => ({ pending: true }) } });
    const door = (journal: RunJournal, trustedTools: string[] = []) => {
      const builder = new ComposableToolBuilder(gateIn(journal, trustedTools));
      builder.bind({ sideEffectingTools: ['send_money'] });
      return builder.build('pay_from_file', 'x', { type: 'object' }, {
        steps: [
          { name: 'bill', tool: 'read_file' },
          { tool: 'send_money', inputMapping: { recipient: '$steps.bill' } },
          { tool: 'send_money', inputMapping: { recipient: '$steps.bill', again: true } },
        ],
      });
    };
    const first = door(journalOver(clientOf(server)));
    const paused = await first.execute({}, { sessionId: 'l1' });
    expect(paused.details?.code).toBe('approval_pending');
    // Another process: its own gate and journal over the same server. Its host now trusts
    // read_file, but the answer recorded before the pause keeps the label it was recorded with.
    const second = door(journalOver(clientOf(server)), ['read_file']);
    const again = await resumeRun(second, paused.details!.resume as string, [{ approved: true }], { sessionId: 'l1' });
    // The first payment ran as approved; the second is steered by the recorded (untrusted) read, and asked about too.
    expect(again.details?.code).toBe('approval_pending');
    expect((again.details?.pending as { provenance: Record<string, { trusted: boolean; sources: unknown[] }> }[])[0].provenance.recipient).toEqual({ trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] });
    expect(payments).toEqual([{ recipient: 'XX99-ATTACKER' }]);
  });

  it('keeps run_js labels call by call: resumed in another process, a literal payment needs no question, the one the read steers does', async () => {
    const payments: { recipient: unknown; amount: unknown }[] = [];
    const asked: ApprovalAction[] = [];
    const read = tool('read_file', () => 'XX99-ATTACKER', { hasSideEffects: false });
    const send = tool('send_money', (a) => (payments.push({ recipient: a.recipient, amount: a.amount }), { sent: true }), { hasSideEffects: true });
    const runJs = (trustedTools: string[]) =>
      createScriptTool(
        registry(read, send).gate({ flows: { trustedTools }, journal: journalOver(clientOf(server)), approvals: { requestApproval: (action) => (asked.push(action), { pending: true }) } }),
        { sideEffectingTools: ['send_money'] },
      );
    const code = `const t = (await callTool('read_file', {})).text;
const a = await callTool('send_money', { recipient: 'DE11-LANDLORD', amount: 1 });
const b = await callTool('send_money', { recipient: t, amount: 2 });
return [a, b].map((r) => (r.error ? r.error.code : 'paid')).join();`;
    const paused = await runJs([]).execute({ code }, { sessionId: 'js1' });
    expect(paused.details?.code).toBe('approval_pending');
    expect(payments).toEqual([{ recipient: 'DE11-LANDLORD', amount: 1 }]);
    expect(asked).toHaveLength(1);
    // Another process trusts read_file now: the answer replayed from the journal keeps its recorded label.
    const again = await resumeRun(runJs(['read_file']), paused.details!.resume as string, [{ approved: false }], { sessionId: 'js1' });
    expect(again.output).toBe('paid,approval_rejected');
    expect(asked).toHaveLength(1);
    expect(payments).toEqual([{ recipient: 'DE11-LANDLORD', amount: 1 }]);
  });
});
