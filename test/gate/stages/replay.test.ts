import { describe, expect, it } from 'vitest';
import { CallBudget, DEFAULT_BUDGET_LIMITS } from '../../../src/gate/budget.js';
import { Later } from '../../../src/gate/call-record.js';
import { RunFrame } from '../../../src/gate/run-frame.js';
import { checkLease, replayFromJournal } from '../../../src/gate/stages/replay.js';
import { canonicalJson } from '../../../src/runs/canonical-json.js';
import type { PausedRun } from '../../../src/runs/journal.js';
import { createMemoryRunJournal } from '../../../src/runs/memory-journal.js';
import type { Pausing } from '../../../src/runs/pausing.js';
import { RunRecord, type Replay } from '../../../src/runs/run-record.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

const pausing: Pausing = { journal: createMemoryRunJournal(), ttlMs: 60_000, leaseMs: 60_000, scope: () => 's' };
const write = tool('write', () => 'w', { hasSideEffects: true });
const gate = registry(write).gate();

function frameWith(run: RunRecord): RunFrame {
  return new RunFrame(new CallBudget(DEFAULT_BUDGET_LIMITS), undefined, undefined, undefined, false, undefined, 1, ['door'], run, undefined);
}

function resumption(records: Replay['records'], leaseUntil = Date.now() + 60_000): RunRecord {
  const paused: PausedRun = { runId: 'run_aaaaaaaaaaaaaaaaaaaaaa', pause: 0, door: 'door', input: {}, scope: 's', expiresAt: Date.now() + 60_000, pending: [] };
  return new RunRecord(pausing, paused.runId, 1, 'door', {}, 's', { run: paused, records, decisions: new Map(), leaseUntil });
}

describe('stage: replay', () => {
  it('does nothing for a call of a run that cannot pause', () => {
    const call = callOf({ gate, tool: write });
    expect(replayFromJournal(call)).toBeUndefined();
    expect(call.journal).toBeUndefined();
  });

  it("gives a first run's call its position, the journal that notes it, and its idempotency key", () => {
    const run = new RunRecord(pausing, 'run_bbbbbbbbbbbbbbbbbbbbbb', 0, 'door', {}, 's', undefined);
    const call = callOf({ gate, tool: write, frame: frameWith(run), context: { user: 'u' } });
    expect(replayFromJournal(call)).toBeUndefined();
    expect(call.journal).toBe(run);
    expect(call.journalAt).toBe('door/step#0');
    expect(call.context).toEqual({ user: 'u', idempotencyKey: 'run_bbbbbbbbbbbbbbbbbbbbbb:door/step#0' });
  });

  it('answers a resumed call from the journal without running it, counted as it was', () => {
    const recorded = { success: true, output: 'from the journal' };
    const run = resumption(new Map([['door/step#0', { position: 'door/step#0', tool: 'write', argsKey: canonicalJson({ a: 1 }), result: recorded, attempt: 0 }]]));
    const frame = frameWith(run);
    const call = callOf({ gate, tool: write, args: { a: 1 }, frame });
    expect(replayFromJournal(call)).toBe(recorded);
    expect(call.answered).toBe('journal');
    expect(frame.budget.calls).toBe(1);
  });

  it('stops the run when a resumed call differs from the recorded one', () => {
    const run = resumption(new Map([['door/step#0', { position: 'door/step#0', tool: 'write', argsKey: canonicalJson({ a: 1 }), result: { success: true }, attempt: 0 }]]));
    const call = callOf({ gate, tool: write, args: { a: 2 }, frame: frameWith(run) });
    expect(replayFromJournal(call)).toMatchObject({ details: { code: 'replay_diverged' } });
    expect(run.stopped).toBe(true);
  });

  it("marks a resumption's side-effecting call started before it runs, and waits for the journal", async () => {
    const run = resumption(new Map());
    const call = callOf({ gate, tool: write, frame: frameWith(run) });
    const verdict = replayFromJournal(call);
    expect(verdict).toBeInstanceOf(Later);
    expect(await new Promise((resolve) => (verdict as Later).then(resolve))).toBeUndefined();
  });

  it('lease: a resumption past its lease starts no side effect, and the journal keeps no note of the refusal', () => {
    const run = resumption(new Map(), Date.now() - 1);
    const call = callOf({ gate, tool: write, frame: frameWith(run) });
    call.journal = run;
    expect(checkLease(call)?.details?.code).toBe('resume_lease_lapsed');
    expect(call.journal).toBeUndefined();
    expect(call.answered).toBe('journal');
    expect(checkLease(callOf({ gate, tool: write }))).toBeUndefined();
  });
});
