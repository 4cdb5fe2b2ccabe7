import { describe, expect, it } from 'vitest';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';

/** A store's id with its counter moved by `delta`: same tag, a different counter. */
function shiftId(id: string, delta: number): string {
  const match = /^(obs_[a-z]+)(\d+)$/.exec(id);
  if (!match) throw new Error(`unexpected id ${id}`);
  return `${match[1]}${Number(match[2]) + delta}`;
}

describe('createObservationStore', () => {
  it('stores a body under a fresh obs_ id and returns it with its meta', () => {
    const store = createObservationStore();
    const id = store.put('hello\nworld', { tool: 'grep' });
    expect(id).toMatch(/^obs_[a-z]{3}\d+$/);
    expect(store.get(id as string)).toEqual({ ok: true, body: 'hello\nworld', meta: { tool: 'grep' } });
    expect(store.put('hello\nworld')).not.toBe(id);
  });

  it('answers observation_unknown for an id it never issued', () => {
    const store = createObservationStore();
    const id = store.put('x') as string;
    expect(store.get(shiftId(id, 1))).toEqual({ ok: false, code: 'observation_unknown' });
    expect(store.get('obs_12')).toEqual({ ok: false, code: 'observation_unknown' });
    expect(store.get('nonsense')).toEqual({ ok: false, code: 'observation_unknown' });
    const other = createObservationStore().put('y') as string;
    if (other.slice(0, 7) !== id.slice(0, 7)) expect(store.get(other).ok).toBe(false);
  });

  it('evicts the least recently used first, by total bytes; a read counts as use', () => {
    const store = createObservationStore({ maxBytes: 30 });
    const a = store.put('a'.repeat(10)) as string;
    const b = store.put('b'.repeat(10)) as string;
    const c = store.put('c'.repeat(10)) as string;
    expect(store.get(a).ok).toBe(true); // a is now the most recently used
    const d = store.put('d'.repeat(10)) as string; // over budget: b goes, not a
    expect(store.get(b)).toEqual({ ok: false, code: 'observation_expired' });
    expect(store.get(a).ok).toBe(true);
    expect(store.get(c).ok).toBe(true);
    expect(store.get(d).ok).toBe(true);
  });

  it('counts UTF-8 bytes, not UTF-16 units', () => {
    const store = createObservationStore({ maxBytes: 12 });
    const first = store.put('日日') as string; // 6 bytes
    store.put('日日日'); // 9 bytes: 15 > 12, so the first goes
    expect(store.get(first)).toEqual({ ok: false, code: 'observation_expired' });
  });

  it('bounds the number of entries', () => {
    const store = createObservationStore({ maxEntries: 2 });
    const ids = ['1', '2', '3'].map((body) => store.put(body) as string);
    expect(store.get(ids[0])).toEqual({ ok: false, code: 'observation_expired' });
    expect(store.get(ids[1]).ok).toBe(true);
    expect(store.get(ids[2]).ok).toBe(true);
  });

  it('declines a body larger than its whole budget and keeps what it has', () => {
    const store = createObservationStore({ maxBytes: 10 });
    const kept = store.put('small') as string;
    expect(store.put('x'.repeat(11))).toBeUndefined();
    expect(store.get(kept).ok).toBe(true);
  });

  it('keeps bodies and meta immutable', () => {
    const store = createObservationStore();
    const meta = { tool: 'read' };
    const id = store.put('v1', meta) as string;
    meta.tool = 'changed';
    const first = store.get(id);
    if (first.ok) first.meta.tool = 'mutated';
    expect(store.get(id)).toEqual({ ok: true, body: 'v1', meta: { tool: 'read' } });
  });

  it('refuses options that are not positive numbers', () => {
    expect(() => createObservationStore({ maxBytes: 0 })).toThrow(RangeError);
    expect(() => createObservationStore({ maxEntries: Number.NaN })).toThrow(RangeError);
  });
});

describe('a fixed tag', () => {
  it('makes ids reproducible, and a bad tag is refused', () => {
    const make = createObservationStore;
    const a = make({ tag: 'bench' });
    const b = make({ tag: 'bench' });
    expect(a.put('x'.repeat(10))).toBe(b.put('y'.repeat(10)));
    expect(a.put('z')).toMatch(/^obs_bench/);
    expect(() => make({ tag: 'Bad!' })).toThrow(RangeError);
  });
});
