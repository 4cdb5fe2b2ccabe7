import { describe, expect, it } from 'vitest';
import { indexBody } from '../../../src/agent-tools/observations/indexed-body.js';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';
import { putText, readAll } from './helpers.js';

const ID = /^obs_[a-z2-7]{20}$/;

describe('createObservationStore', () => {
  it('stores a body under a fresh random obs_ id and reads it back with its meta', async () => {
    const store = createObservationStore();
    const id = await putText(store, 'hello\nworld', '', { tool: 'grep' });
    expect(id).toMatch(ID);
    expect(await readAll(store, id)).toEqual({ ok: true, text: 'hello\nworld', lines: 2, bytes: 11, meta: { tool: 'grep' } });
    expect(await putText(store, 'hello\nworld')).not.toBe(id);
  });

  it("keeps an output's label with its body and gives it back as it was stored", async () => {
    const store = createObservationStore();
    const label = { trusted: false, sources: [{ tool: 'read_mail', step: 'inbox' }], readers: ['ann@example.com'] };
    const id = await putText(store, 'hello', '', { tool: 'read_mail', label });
    expect(await readAll(store, id)).toMatchObject({ ok: true, meta: { tool: 'read_mail', label } });
  });

  it('issues ids that share nothing guessable: no common prefix beyond obs_, no counter', async () => {
    const store = createObservationStore();
    const ids = await Promise.all(Array.from({ length: 200 }, () => putText(store, 'x')));
    expect(new Set(ids).size).toBe(200);
    const seen = new Set(ids.map((id) => id.slice(0, 8)));
    expect(seen.size).toBeGreaterThan(190); // 20 bits of prefix: a counter would share it
  });

  it('answers observation_unknown for an id it never issued', async () => {
    const store = createObservationStore();
    const id = await putText(store, 'x');
    const other = `${id.slice(0, -1)}${id.endsWith('a') ? 'b' : 'a'}`;
    expect(await readAll(store, other)).toEqual({ ok: false, code: 'observation_unknown' });
    expect(await readAll(store, 'nonsense')).toEqual({ ok: false, code: 'observation_unknown' });
    const elsewhere = await putText(createObservationStore(), 'y');
    expect(await readAll(store, elsewhere)).toEqual({ ok: false, code: 'observation_unknown' });
  });

  it('reads a body only in the scope that stored it; elsewhere it reads as never issued', async () => {
    const store = createObservationStore();
    const secret = await putText(store, 'alice secret', 'session:alice');
    expect(await readAll(store, secret, 'session:alice')).toMatchObject({ ok: true, text: 'alice secret' });
    expect(await readAll(store, secret, 'session:bob')).toEqual({ ok: false, code: 'observation_unknown' });
    expect(await readAll(store, secret, '')).toEqual({ ok: false, code: 'observation_unknown' });
  });

  it('evicts the least recently used first, by total bytes; a read counts as use', async () => {
    const store = createObservationStore({ maxBytes: 30 });
    const a = await putText(store, 'a'.repeat(10));
    const b = await putText(store, 'b'.repeat(10));
    const c = await putText(store, 'c'.repeat(10));
    expect((await readAll(store, a)).ok).toBe(true); // a is now the most recently used
    const d = await putText(store, 'd'.repeat(10)); // over budget: b goes, not a
    expect(await readAll(store, b)).toEqual({ ok: false, code: 'observation_expired' });
    for (const id of [a, c, d]) expect((await readAll(store, id)).ok).toBe(true);
  });

  it('tells expired from unknown only in the evicted id\'s own scope', async () => {
    const store = createObservationStore({ maxEntries: 1 });
    const old = await putText(store, 'old', 'user:ann');
    await putText(store, 'new', 'user:ann');
    expect(await readAll(store, old, 'user:ann')).toEqual({ ok: false, code: 'observation_expired' });
    expect(await readAll(store, old, 'user:bob')).toEqual({ ok: false, code: 'observation_unknown' });
  });

  it('remembers a bounded number of evicted ids', async () => {
    const store = createObservationStore({ maxEntries: 2 });
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) ids.push(await putText(store, String(index)));
    // Live: the last 2. Remembered as evicted: the 2 before them. Forgotten: the first 2.
    expect((await readAll(store, ids[0])).ok).toBe(false);
    expect(await readAll(store, ids[0])).toEqual({ ok: false, code: 'observation_unknown' });
    expect(await readAll(store, ids[2])).toEqual({ ok: false, code: 'observation_expired' });
    expect(await readAll(store, ids[3])).toEqual({ ok: false, code: 'observation_expired' });
    expect((await readAll(store, ids[5])).ok).toBe(true);
  });

  it('counts UTF-8 bytes, not UTF-16 units', async () => {
    const store = createObservationStore({ maxBytes: 12 });
    const first = await putText(store, '日日'); // 6 bytes
    await putText(store, '日日日'); // 9 bytes: 15 > 12, so the first goes
    expect(await readAll(store, first)).toEqual({ ok: false, code: 'observation_expired' });
  });

  it('declines a body larger than its whole budget and keeps what it has', async () => {
    const store = createObservationStore({ maxBytes: 10 });
    const kept = await putText(store, 'small');
    expect(await store.put(indexBody('x'.repeat(11)), '')).toEqual({ ok: false, reason: 'too_large' });
    expect((await readAll(store, kept)).ok).toBe(true);
  });

  it('keeps bodies and meta immutable, whatever the caller does with what it passed or got', async () => {
    const store = createObservationStore();
    const meta = { tool: 'read' };
    const body = indexBody('v1');
    const put = await store.put(body, '', meta);
    if (!put.ok) throw new Error('not stored');
    meta.tool = 'changed';
    body.utf8.write('XX');
    const first = await readAll(store, put.id);
    if (first.ok) first.meta.tool = 'mutated';
    expect(await readAll(store, put.id)).toMatchObject({ ok: true, text: 'v1', meta: { tool: 'read' } });
  });

  it('refuses options that are not positive numbers', () => {
    expect(() => createObservationStore({ maxBytes: 0 })).toThrow(RangeError);
    expect(() => createObservationStore({ maxEntries: Number.NaN })).toThrow(RangeError);
  });
});

describe('a fixed tag', () => {
  it('makes ids reproducible and as long as random ones; a bad tag is refused', async () => {
    const make = createObservationStore;
    const a = make({ tag: 'bench' });
    const b = make({ tag: 'bench' });
    const first = await putText(a, 'x'.repeat(10));
    expect(await putText(b, 'y'.repeat(10))).toBe(first);
    expect(first).toMatch(ID);
    expect(await putText(a, 'z')).not.toBe(first);
    expect(await putText(make({ tag: 'other' }), 'x')).not.toBe(first);
    expect(() => make({ tag: 'Bad!' })).toThrow(RangeError);
  });
});
