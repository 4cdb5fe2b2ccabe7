import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createGetObservationTool } from '../../../src/agent-tools/observations/get-observation-tool.js';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';
import type { ObservationStore } from '../../../src/agent-tools/observations/observation-store.js';
import { numberedLines } from './helpers.js';

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A store holding `bodies`, the tool over it, and the ids in order. */
function setup(...bodies: string[]) {
  const store = createObservationStore();
  const ids = bodies.map((body) => store.put(body) as string);
  const tool = createGetObservationTool(store);
  const read = (args: Record<string, unknown>) => tool.execute(args, {});
  return { store, ids, tool, read };
}

describe('get_observation: definition', () => {
  it('is small: name, description and input schema within 110 o200k tokens', () => {
    const { tool } = setup();
    const definition = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
    expect(encode(definition).length).toBeLessThanOrEqual(110);
  });

  it('is a pure tool named get_observation', () => {
    const { tool } = setup();
    expect(tool).toMatchObject({ id: 'get_observation', name: 'get_observation', hasSideEffects: false });
    expect(tool.inputSchema).toMatchObject({ required: ['ids'] });
  });
});

describe('get_observation: paging', () => {
  const body = numberedLines(900);
  const lines = body.split('\n');

  it('returns the first 80 lines by default, with a footer naming the next offset', async () => {
    const { ids, read } = setup(body);
    const result = await read({ ids });
    expect(result).toEqual({
      success: true,
      output: `${lines.slice(0, 80).join('\n')}\n[${ids[0]}: lines 1-80 of 900; next offset 80]`,
    });
  });

  it('reads from a 0-based offset, with no footer once the end is reached', async () => {
    const { ids, read } = setup(body);
    expect((await read({ ids, offset: 40 })).output).toBe(
      `${lines.slice(40, 120).join('\n')}\n[${ids[0]}: lines 41-120 of 900; next offset 120]`,
    );
    expect((await read({ ids, offset: 880 })).output).toBe(lines.slice(880).join('\n'));
    expect((await read({ ids, offset: 899 })).output).toBe('line 900');
  });

  it('takes fewer lines on request and clamps more to 80', async () => {
    const { ids, read } = setup(body);
    expect((await read({ ids, lines: 3 })).output).toBe(`line 1\nline 2\nline 3\n[${ids[0]}: lines 1-3 of 900; next offset 3]`);
    expect((await read({ ids, lines: 500 })).output).toBe((await read({ ids })).output);
  });

  it('ignores a trailing newline and reads an empty body as empty', async () => {
    const { ids, read } = setup('a\nb\n', '');
    expect(await read({ ids: [ids[0]] })).toEqual({ success: true, output: 'a\nb' });
    expect(await read({ ids: [ids[1]], offset: 0 })).toEqual({ success: true, output: '' });
  });

  it('returns at most 50 KB of text per call, cut between lines', async () => {
    const wide = numberedLines(200, 1023); // 1 KB per line with its newline
    const { ids, read } = setup(wide);
    const result = await read({ ids });
    const output = result.output as string;
    const shown = output.split('\n').slice(0, -1);
    expect(shown).toEqual(wide.split('\n').slice(0, 50));
    expect(byteLength(shown.join('\n'))).toBeLessThanOrEqual(50 * 1024);
    expect(output.split('\n').at(-1)).toBe(`[${ids[0]}: lines 1-50 of 200; next offset 50]`);
  });

  it('cuts a single line over 50 KB between characters and points past it', async () => {
    const { ids, read } = setup(`${'é'.repeat(40_000)}\nnext`);
    const output = (await read({ ids })).output as string;
    const [text, footer] = output.split('\n');
    expect(text).toBe('é'.repeat(25_600));
    expect(footer).toBe(`[${ids[0]}: line 1 of 2 cut to 50 KB; next offset 1]`);
    expect((await read({ ids, offset: 1 })).output).toBe('next');
  });

  it('reads several ids in one call, each under a header', async () => {
    const { ids, read } = setup('a1\na2\na3', 'b1\nb2');
    expect((await read({ ids, offset: 1, lines: 1 })).output).toBe(
      [`== ${ids[0]} ==`, 'a2', `[${ids[0]}: lines 2-2 of 3; next offset 2]`, `== ${ids[1]} ==`, 'b2'].join('\n'),
    );
  });

  it('reads a repeated id once', async () => {
    const { ids, read } = setup('only');
    expect((await read({ ids: [ids[0], ids[0]] })).output).toBe('only');
  });

  it('shares the 50 KB budget across ids and says which id to ask again', async () => {
    const wide = numberedLines(40, 1023); // 40 KB each: the second id gets the 10 lines left of 50 KB
    const { ids, read } = setup(wide, wide, wide);
    const output = (await read({ ids })).output as string;
    const sections = output.split(/^== .* ==$/m).slice(1);
    expect(sections[0].trim()).toBe(wide);
    const second = sections[1].trim().split('\n');
    expect(second.at(-1)).toBe(`[${ids[1]}: lines 1-10 of 40; next offset 10]`);
    expect(sections[2].trim()).toBe(`[${ids[2]}: not shown, 50 KB per call; call again with offset 0]`);
    const text = output.split('\n').filter((line) => !line.startsWith('[') && !line.startsWith('== '));
    expect(byteLength(text.join('\n'))).toBeLessThanOrEqual(50 * 1024);
  });

  it('pages an asynchronous host store', async () => {
    const inner = createObservationStore();
    const id = inner.put('x\ny') as string;
    const store: ObservationStore = { put: async (body) => inner.put(body), get: async (key) => inner.get(key) };
    expect(await createGetObservationTool(store).execute({ ids: [id], offset: 1 }, {})).toEqual({ success: true, output: 'y' });
  });
});

describe('get_observation: errors', () => {
  it('answers observation_unknown for an id never stored', async () => {
    const { read } = setup('x');
    const result = await read({ ids: ['obs_nope1'] });
    expect(result).toMatchObject({ success: false, details: { code: 'observation_unknown' } });
    expect(result.error).toContain('obs_nope1');
  });

  it('answers observation_expired for an evicted id', async () => {
    const store = createObservationStore({ maxEntries: 1 });
    const old = store.put('old') as string;
    store.put('new');
    const result = await createGetObservationTool(store).execute({ ids: [old] }, {});
    expect(result).toMatchObject({ success: false, details: { code: 'observation_expired' } });
    expect(result.error).toContain('run the tool again');
  });

  it('answers observation_offset at or past the end of a non-empty body', async () => {
    const { ids, read } = setup('a\nb\nc');
    expect(await read({ ids, offset: 3 })).toMatchObject({ success: false, details: { code: 'observation_offset' } });
    expect(await read({ ids, offset: 99 })).toMatchObject({ success: false, details: { code: 'observation_offset' } });
    expect(await read({ ids, offset: 2 })).toEqual({ success: true, output: 'c' });
    const empty = setup('');
    expect(await empty.read({ ids: empty.ids, offset: 1 })).toMatchObject({ details: { code: 'observation_offset' } });
  });

  it('fails the whole call when any id is bad, naming every bad id', async () => {
    const store = createObservationStore({ maxEntries: 2 });
    const evicted = store.put('a') as string;
    const good = store.put('b') as string;
    store.put('c');
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
    const { ids, read } = setup('1\n2\n3\n4', '1');
    const result = await read({ ids, offset: 2 });
    expect(result).toMatchObject({ success: false, details: { code: 'observation_offset', ids: [{ id: ids[1] }] } });
  });

  it('answers input_invalid for malformed arguments', async () => {
    const { ids, read } = setup('x');
    const invalid: Record<string, unknown>[] = [
      {},
      { ids: [] },
      { ids: 'obs_1' },
      { ids: [1] },
      { ids, offset: -1 },
      { ids, offset: 1.5 },
      { ids, offset: '2' },
      { ids, lines: 0 },
    ];
    for (const args of invalid) {
      const result = await read(args);
      expect(result).toMatchObject({ success: false, details: { code: 'input_invalid' } });
      expect((result.details?.errors as string[]).length).toBeGreaterThan(0);
    }
  });
});
