/**
 * The RunJournal contract, written once and run over every journal (the in-memory one, the Redis
 * one): what the gate relies on when it pauses a run, resumes it, and lets a stopped resumption's
 * lease lapse. `open` gives two handles onto one store (the same object for a journal of one
 * process; two clients for a shared store), so claims race as two processes would.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PausedRun, RunCallRecord, RunJournal } from '../../src/runs/journal.js';
import { delay } from '../helpers/tools.js';

/** A fresh run id, as the gate makes them. */
export const newId = (): string => `run_${randomBytes(16).toString('base64url')}`;

/** A paused run of `runId` at `pause`, expiring in `ms`. */
export function pausedRun(runId: string, pause = 0, ms = 60_000): PausedRun {
  return {
    runId,
    pause,
    door: 'notify',
    input: { id: 7, nested: { list: [1, 'two', null] } },
    scope: 'session:s1',
    expiresAt: Date.now() + ms,
    pending: [{ tool: 'send', step: 'send', args: { text: 'note 7' }, position: 'toolweave:notify/send#0', argsKey: '{"text":"note 7"}' }],
  };
}

/** A record at `position`, ended (with a result) unless `started`. */
export function callRecord(position: string, attempt = 0, started = false): RunCallRecord {
  return {
    position,
    tool: 'read',
    argsKey: `{"at":"${position}"}`,
    attempt,
    ...(started ? {} : { result: { success: true, output: { text: `from ${position}` }, effects: [] } }),
  };
}

const byPosition = (records: readonly RunCallRecord[]) => [...records].sort((a, b) => (a.position < b.position ? -1 : 1));

export function describeRunJournalContract(name: string, open: () => [RunJournal, RunJournal]): void {
  describe(`the RunJournal contract: ${name}`, () => {
    it('load answers undefined for a run never saved; records answers none', async () => {
      const [journal] = open();
      expect(await journal.load(newId())).toBeUndefined();
      expect(await journal.records(newId())).toEqual([]);
    });

    it('save then load gives the run back, every field, including ones this version does not know', async () => {
      const [journal, other] = open();
      const run = { ...pausedRun(newId()), addedLater: { script: 'return 1', steps: [{ n: 1 }] } } as PausedRun;
      await journal.save(run);
      expect(await journal.load(run.runId)).toEqual(run);
      expect(await other.load(run.runId)).toEqual(run);
    });

    it('save replaces the earlier entry of the same run', async () => {
      const [journal] = open();
      const runId = newId();
      await journal.save(pausedRun(runId, 0));
      const next = { ...pausedRun(runId, 1), input: { id: 8 } };
      await journal.save(next);
      expect(await journal.load(runId)).toEqual(next);
    });

    it('records each call by position, replaces a record at the same position, and keeps runs apart', async () => {
      const [journal, other] = open();
      const runId = newId();
      const elsewhere = newId();
      await journal.record(runId, callRecord('read#0'));
      await journal.record(runId, callRecord('send#0', 1, true));
      await journal.record(elsewhere, callRecord('read#0', 3));
      expect(byPosition(await other.records(runId))).toEqual([callRecord('read#0'), callRecord('send#0', 1, true)]);
      // The started call ended: its record is replaced, not added.
      const ended = { ...callRecord('send#0', 1), addedLater: true } as RunCallRecord;
      await journal.record(runId, ended);
      expect(byPosition(await other.records(runId))).toEqual([callRecord('read#0'), ended]);
      expect(await journal.records(elsewhere)).toEqual([callRecord('read#0', 3)]);
    });

    it('records written before the run is saved (a first run that pauses) are kept with it', async () => {
      const [journal, other] = open();
      const runId = newId();
      await journal.record(runId, callRecord('read#0'));
      await journal.save(pausedRun(runId));
      await journal.record(runId, callRecord('after#0', 1));
      expect(byPosition(await other.records(runId))).toEqual([callRecord('after#0', 1), callRecord('read#0')]);
    });

    it('claims a stored pause once; not a run never saved, nor another pause', async () => {
      const [journal, other] = open();
      const runId = newId();
      const until = Date.now() + 60_000;
      expect(await journal.claim(runId, 0, until)).toBe(false);
      await journal.save(pausedRun(runId, 2));
      expect(await journal.claim(runId, 0, until)).toBe(false);
      expect(await journal.claim(runId, 3, until)).toBe(false);
      expect(await journal.claim(runId, 2, until)).toBe(true);
      expect(await journal.claim(runId, 2, until)).toBe(false);
      expect(await other.claim(runId, 2, until)).toBe(false);
      // A claim leaves the run as it was.
      expect(await other.load(runId)).toMatchObject({ runId, pause: 2 });
    });

    it('a claim that has lapsed lets the pause be claimed again', async () => {
      const [journal, other] = open();
      const runId = newId();
      await journal.save(pausedRun(runId));
      expect(await journal.claim(runId, 0, Date.now() + 80)).toBe(true);
      expect(await other.claim(runId, 0, Date.now() + 80)).toBe(false);
      await delay(120);
      expect(await other.claim(runId, 0, Date.now() + 60_000)).toBe(true);
      expect(await journal.claim(runId, 0, Date.now() + 60_000)).toBe(false);
    });

    it('renew extends the claim it names, from either handle; not one another resumption took over, nor another pause', async () => {
      const [journal, other] = open();
      const runId = newId();
      await journal.save(pausedRun(runId, 1));
      const first = Date.now() + 80;
      expect(await journal.renew(runId, 1, first, first + 1000)).toBe(false);
      expect(await journal.claim(runId, 1, first)).toBe(true);
      expect(await journal.renew(runId, 0, first, first + 1000)).toBe(false);
      expect(await other.renew(runId, 1, first - 1, first + 1000)).toBe(false);
      // Renewed: it holds past its first lease.
      const renewed = Date.now() + 300;
      expect(await other.renew(runId, 1, first, renewed)).toBe(true);
      await delay(120);
      expect(await other.claim(runId, 1, Date.now() + 60_000)).toBe(false);
      // Not renewed again, it lapses; once another claim is made, the old one cannot be renewed.
      await delay(250);
      const taken = Date.now() + 60_000;
      expect(await other.claim(runId, 1, taken)).toBe(true);
      expect(await journal.renew(runId, 1, renewed, Date.now() + 60_000)).toBe(false);
      expect(await journal.renew(runId, 1, taken, taken + 1000)).toBe(true);
      expect(await journal.renew(newId(), 1, taken, taken + 1000)).toBe(false);
    });

    it('saving a new pause clears the claim: the new pause can be claimed, the old one cannot', async () => {
      const [journal, other] = open();
      const runId = newId();
      await journal.save(pausedRun(runId, 0));
      expect(await journal.claim(runId, 0, Date.now() + 60_000)).toBe(true);
      await journal.save(pausedRun(runId, 1));
      expect(await other.claim(runId, 0, Date.now() + 60_000)).toBe(false);
      expect(await other.claim(runId, 1, Date.now() + 60_000)).toBe(true);
    });

    it('of many claims at once from two handles, exactly one wins', async () => {
      const [journal, other] = open();
      const runId = newId();
      await journal.save(pausedRun(runId));
      const until = Date.now() + 60_000;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : journal).claim(runId, 0, until)));
      expect(answers.filter(Boolean)).toHaveLength(1);
    });

    it('a run past its expiry is gone: load answers undefined and it cannot be claimed', async () => {
      const [journal, other] = open();
      const past = pausedRun(newId(), 0, -1);
      await journal.save(past);
      expect(await other.load(past.runId)).toBeUndefined();
      expect(await other.claim(past.runId, 0, Date.now() + 60_000)).toBe(false);
      const soon = pausedRun(newId(), 0, 150);
      await journal.save(soon);
      expect(await other.load(soon.runId)).toEqual(soon);
      await delay(200);
      expect(await other.load(soon.runId)).toBeUndefined();
      expect(await journal.claim(soon.runId, 0, Date.now() + 60_000)).toBe(false);
    });

    it('remove forgets the run and its records, and leaves other runs alone', async () => {
      const [journal, other] = open();
      const runId = newId();
      const kept = newId();
      for (const id of [runId, kept]) {
        await journal.record(id, callRecord('read#0'));
        await journal.save(pausedRun(id));
      }
      await other.remove(runId);
      expect(await journal.load(runId)).toBeUndefined();
      expect(await journal.records(runId)).toEqual([]);
      expect(await journal.claim(runId, 0, Date.now() + 60_000)).toBe(false);
      expect(await journal.load(kept)).toMatchObject({ runId: kept });
      expect(await journal.records(kept)).toHaveLength(1);
      // Removing what is not there is no error.
      await other.remove(newId());
    });
  });
}
