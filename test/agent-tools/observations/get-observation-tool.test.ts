import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createGetObservationTool } from '../../../src/agent-tools/observations/get-observation-tool.js';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';
import type { ObservationStore } from '../../../src/agent-tools/observations/observation-store.js';
import { numberedLines, putText } from './helpers.js';

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A store holding `bodies`, the tool over it, and the ids in order. */
async function setup(...bodies: string[]) {
  const store = createObservationStore();
  const ids: string[] = [];
  for (const body of bodies) ids.push(await putText(store, body));
  const tool = createGetObservationTool(store);
  const read = (args: unknown) => tool.execute(args as Record<string, unknown>, {});
  return { store, ids, tool, read };
}

describe('get_observation: definition', () => {
  it('is small: name, description and input schema within 110 o200k tokens', async () => {
    const { tool } = await setup();
    const definition = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
    expect(encode(definition).length).toBeLessThanOrEqual(110);
  });

  it('is a pure tool named get_observation', async () => {
    const { tool } = await setup();
    expect(tool).toMatchObject({ id: 'get_observation', name: 'get_observation', hasSideEffects: false });
    expect(tool.inputSchema).toMatchObject({ required: ['ids'] });
  });
});

describe('get_observation: paging', () => {
  const body = numberedLines(900);
  const lines = body.split('\n');

  it('returns the first 80 lines by default, with a footer naming the next offset', async () => {
    const { ids, read } = await setup(body);
    const result = await read({ ids });
    expect(result).toEqual({
      success: true,
      output: `${lines.slice(0, 80).join('\n')}\n[${ids[0]}: lines 1-80 of 900; next offset 80]`,
    });
  });

  it('reads from a 0-based offset, with no footer once the end is reached', async () => {
    const { ids, read } = await setup(body);
    expect((await read({ ids, offset: 40 })).output).toBe(
      `${lines.slice(40, 120).join('\n')}\n[${ids[0]}: lines 41-120 of 900; next offset 120]`,
    );
    expect((await read({ ids, offset: 880 })).output).toBe(lines.slice(880).join('\n'));
    expect((await read({ ids, offset: 899 })).output).toBe('line 900');
  });

  it('takes fewer lines on request and clamps more to 80', async () => {
    const { ids, read } = await setup(body);
    expect((await read({ ids, lines: 3 })).output).toBe(`line 1\nline 2\nline 3\n[${ids[0]}: lines 1-3 of 900; next offset 3]`);
    expect((await read({ ids, lines: 500 })).output).toBe((await read({ ids })).output);
  });

  it('ignores a trailing newline and reads an empty body as empty', async () => {
    const { ids, read } = await setup('a\nb\n', '');
    expect(await read({ ids: [ids[0]] })).toEqual({ success: true, output: 'a\nb' });
    expect(await read({ ids: [ids[1]], offset: 0 })).toEqual({ success: true, output: '' });
  });

  it('returns at most 50 KB of text per call, cut between lines', async () => {
    const wide = numberedLines(200, 1023); // 1 KB per line with its newline
    const { ids, read } = await setup(wide);
    const result = await read({ ids });
    const output = result.output as string;
    const shown = output.split('\n').slice(0, -1);
    expect(shown).toEqual(wide.split('\n').slice(0, 50));
    expect(byteLength(shown.join('\n'))).toBeLessThanOrEqual(50 * 1024);
    expect(output.split('\n').at(-1)).toBe(`[${ids[0]}: lines 1-50 of 200; next offset 50]`);
  });

  it('cuts a single line over 50 KB between characters and points past it', async () => {
    const { ids, read } = await setup(`${'é'.repeat(40_000)}\nnext`);
    const output = (await read({ ids })).output as string;
    const [text, footer] = output.split('\n');
    expect(text).toBe('é'.repeat(25_600));
    expect(footer).toBe(`[${ids[0]}: line 1 of 2 cut to 50 KB; next offset 1]`);
    expect((await read({ ids, offset: 1 })).output).toBe('next');
  });

  it('reads several ids in one call, each under a header', async () => {
    const { ids, read } = await setup('a1\na2\na3', 'b1\nb2');
    expect((await read({ ids, offset: 1, lines: 1 })).output).toBe(
      [`== ${ids[0]} ==`, 'a2', `[${ids[0]}: lines 2-2 of 3; next offset 2]`, `== ${ids[1]} ==`, 'b2'].join('\n'),
    );
  });

  it('reads a repeated id once', async () => {
    const { ids, read } = await setup('only');
    expect((await read({ ids: [ids[0], ids[0]] })).output).toBe('only');
  });

  it('shares the 50 KB budget across ids and says which id to ask again', async () => {
    const wide = numberedLines(40, 1023); // 40 KB each: the second id gets the 10 lines left of 50 KB
    const { ids, read } = await setup(wide, wide, wide);
    const output = (await read({ ids })).output as string;
    const sections = output.split(/^== .* ==$/m).slice(1);
    expect(sections[0].trim()).toBe(wide);
    const second = sections[1].trim().split('\n');
    expect(second.at(-1)).toBe(`[${ids[1]}: lines 1-10 of 40; next offset 10]`);
    expect(sections[2].trim()).toBe(`[${ids[2]}: not shown, 50 KB per call; call again with offset 0]`);
    const text = output.split('\n').filter((line) => !line.startsWith('[') && !line.startsWith('== '));
    expect(byteLength(text.join('\n'))).toBeLessThanOrEqual(50 * 1024);
  });

  it('reads a page from the end of a large body as it reads one from the start', async () => {
    const big = numberedLines(200_000);
    const { ids, read } = await setup(big);
    expect((await read({ ids, offset: 199_999 })).output).toBe('line 200000');
    expect((await read({ ids, offset: 100_000, lines: 2 })).output).toBe(`line 100001\nline 100002\n[${ids[0]}: lines 100001-100002 of 200000; next offset 100002]`);
  });
});

describe('get_observation: errors', () => {
  it('answers observation_unknown for an id never stored', async () => {
    const { read } = await setup('x');
    const result = await read({ ids: ['obs_nope1'] });
    expect(result).toMatchObject({ success: false, details: { code: 'observation_unknown' } });
    expect(result.error).toContain('obs_nope1');
  });

  it('answers observation_expired for an evicted id', async () => {
    const store = createObservationStore({ maxEntries: 1 });
    const old = await putText(store, 'old');
    await putText(store, 'new');
    const result = await createGetObservationTool(store).execute({ ids: [old] }, {});
    expect(result).toMatchObject({ success: false, details: { code: 'observation_expired' } });
    expect(result.error).toContain('run the tool again');
  });

  it('answers observation_offset at or past the end of a non-empty body', async () => {
    const { ids, read } = await setup('a\nb\nc');
    expect(await read({ ids, offset: 3 })).toMatchObject({ success: false, details: { code: 'observation_offset' } });
    expect(await read({ ids, offset: 99 })).toMatchObject({ success: false, details: { code: 'observation_offset' } });
    expect(await read({ ids, offset: 2 })).toEqual({ success: true, output: 'c' });
    const empty = await setup('');
    expect(await empty.read({ ids: empty.ids, offset: 1 })).toMatchObject({ details: { code: 'observation_offset' } });
  });

  it('fails the whole call when any id is bad, naming every bad id', async () => {
    const store = createObservationStore({ maxEntries: 2 });
    const evicted = await putText(store, 'a');
    const good = await putText(store, 'b');
    await putText(store, 'c');
    const result = await createGetObservationTool(store).execute({ ids: [good, evicted, 'obs_zz9'] }, {});
    expect(result).toMatchObject({
      success: false,
      details: {
        code: 'observation_expired',
        ids: [
          { id: evicted, code: 'observation_expired' },
          { id: 'obs_zz9', code: 'observation_unknown' },
        ],
      },
    });
    expect(result.error).toContain(evicted);
    expect(result.error).toContain('obs_zz9');
    expect(result.error).not.toContain(good);
  });

  it('names the ids an offset is past the end of', async () => {
    const { ids, read } = await setup('1\n2\n3\n4', '1');
    const result = await read({ ids, offset: 2 });
    expect(result).toMatchObject({ success: false, details: { code: 'observation_offset', ids: [{ id: ids[1] }] } });
  });

  it('answers input_invalid for malformed arguments', async () => {
    const { ids, read } = await setup('x');
    const invalid: unknown[] = [
      {},
      { ids: [] },
      { ids: 'obs_1' },
      { ids: [1] },
      { ids, offset: -1 },
      { ids, offset: 1.5 },
      { ids, offset: '2' },
      { ids, lines: 0 },
      { ids: Array.from({ length: 21 }, () => ids[0]) },
      { ids: ['obs_'.padEnd(65, 'a')] },
      { ids: [''] },
      null,
      'obs_x',
    ];
    for (const args of invalid) {
      const result = await read(args);
      expect(result.success, JSON.stringify(args)).toBe(false);
      expect(result).toMatchObject({ success: false, details: { code: 'input_invalid' } });
      expect((result.details?.errors as string[]).length).toBeGreaterThan(0);
    }
  });
});

describe('get_observation: hostile arguments answer with a result', () => {
  it('answers input_invalid, never a throw, for proxies and throwing getters', async () => {
    const { ids, read } = await setup('x');
    const throwing = new Proxy({}, { get() { throw new Error('trap'); }, has() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); } });
    const getter = Object.defineProperty({}, 'ids', { get() { throw new Error('getter'); }, enumerable: true });
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const idsProxy = { ids: new Proxy([ids[0]], { get(target, key) { if (key === 'length') throw new Error('length'); return Reflect.get(target, key); } }) };
    const hugeArray = { ids: new Proxy([], { get(target, key) { return key === 'length' ? 2 ** 32 - 1 : Reflect.get(target, key); } }) };
    for (const args of [throwing, getter, revoked, idsProxy, hugeArray]) {
      const result = await read(args);
      expect(result).toMatchObject({ success: false, details: { code: 'input_invalid' } });
    }
  });

  it('reads each field once: a getter that answers differently each time cannot slip a bad value past the check', async () => {
    const { ids, read } = await setup('x');
    let reads = 0;
    const shifty = Object.defineProperty({}, 'ids', { get: () => (reads++ === 0 ? ids : 42), enumerable: true });
    expect(await read(shifty)).toEqual({ success: true, output: 'x' });
    expect(reads).toBe(1);
  });
});

describe('get_observation: scopes', () => {
  it("reads an id only in the scope that stored it; another scope's id reads exactly like one never issued", async () => {
    const store = createObservationStore();
    const secret = await putText(store, 'the secret', 'session:alice');
    const tool = createGetObservationTool(store);
    const alice = await tool.execute({ ids: [secret] }, { sessionData: { sessionId: 'alice' } });
    expect(alice).toEqual({ success: true, output: 'the secret' });
    const bob = await tool.execute({ ids: [secret] }, { sessionData: { sessionId: 'bob' } });
    const never = 'obs_aaaaaaaaaaaaaaaaaaaa';
    const bobNever = await tool.execute({ ids: [never] }, { sessionData: { sessionId: 'bob' } });
    expect(bob).toEqual({ ...bobNever, error: bobNever.error?.replace(never, secret), details: { ...bobNever.details, ids: [{ id: secret, code: 'observation_unknown' }] } });
    expect(bob).toMatchObject({ success: false, details: { code: 'observation_unknown' } });
  });

  it('an error names only the ids sent: one call with many candidates reveals nothing of other scopes', async () => {
    const store = createObservationStore();
    const mine = await putText(store, 'mine', 'session:bob');
    const theirs = await Promise.all(['a', 'b', 'c'].map((text) => putText(store, text, 'session:alice')));
    const result = await createGetObservationTool(store).execute({ ids: [mine, ...theirs] }, { sessionId: 'bob' });
    expect(result).toMatchObject({ success: false, details: { code: 'observation_unknown' } });
    expect(result.details?.ids).toEqual(theirs.map((id) => ({ id, code: 'observation_unknown' })));
    expect(result.error).not.toContain('mine');
  });

  it('takes the host scope function, shared with the wrapper', async () => {
    const store = createObservationStore();
    const id = await putText(store, 'tenant text', 'tenant-7');
    const tool = createGetObservationTool(store, { scope: (context) => `tenant-${String(context.tenant)}` });
    expect(await tool.execute({ ids: [id] }, { tenant: 7 })).toEqual({ success: true, output: 'tenant text' });
    expect(await tool.execute({ ids: [id] }, { tenant: 8 })).toMatchObject({ details: { code: 'observation_unknown' } });
  });
});

describe('get_observation: an unavailable store', () => {
  it('answers observation_store_unavailable when the store throws, rejects or the scope function fails', async () => {
    const throwing: ObservationStore = {
      put: async () => ({ ok: false, reason: 'unavailable' }),
      read: () => { throw new Error('down'); },
    };
    const rejecting: ObservationStore = { ...throwing, read: async () => Promise.reject(new Error('down')) };
    const id = 'obs_aaaaaaaaaaaaaaaaaaaa';
    for (const store of [throwing, rejecting]) {
      const result = await createGetObservationTool(store).execute({ ids: [id] }, {});
      expect(result).toMatchObject({ success: false, details: { code: 'observation_store_unavailable' } });
      expect(result.error).toContain('try again');
    }
    const badScope = createGetObservationTool(createObservationStore(), { scope: () => { throw new Error('no'); } });
    expect(await badScope.execute({ ids: [id] }, {})).toMatchObject({ details: { code: 'observation_store_unavailable' } });
  });
});
