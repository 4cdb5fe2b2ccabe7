import { describe, expect, it } from 'vitest';
import { createGetObservationTool } from '../../../src/agent-tools/observations/get-observation-tool.js';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';
import type { ObservationStore } from '../../../src/agent-tools/observations/observation-store.js';
import { withObservations } from '../../../src/agent-tools/observations/with-observations.js';
import { GROUPED_MARKER } from '../../../src/shaping/path-list-grammar.js';
import { expandPathList } from '../../../src/shaping/path-list.js';
import type { ITool, ToolExecutionResult } from '../../../src/tool.js';
import { mockTool, numberedLines, readAll } from './helpers.js';

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The output of a result, as the string the wrapper makes of a stored one. */
function outputOf(result: ToolExecutionResult<unknown>): string {
  expect(result.success).toBe(true);
  expect(typeof result.output).toBe('string');
  return result.output as string;
}

/** Split a stored result's output into its preview lines and its footer. */
function previewAndFooter(result: ToolExecutionResult<unknown>): { preview: string[]; footer: string } {
  const lines = outputOf(result).split('\n');
  return { preview: lines.slice(0, -1), footer: lines[lines.length - 1] };
}

const observationOf = (result: ToolExecutionResult<unknown>) =>
  result.details?.observation as { id: string; lines: number; bytes: number };

describe('withObservations: what passes through', () => {
  it('returns a small result as the very same object', async () => {
    const result = { success: true, output: 'ok' };
    const tool = withObservations(mockTool(() => result), createObservationStore());
    expect(await tool.execute({}, {})).toBe(result);
    const objectResult = { success: true, output: { a: 1 } };
    const objectTool = withObservations(mockTool(() => objectResult), createObservationStore());
    expect(await objectTool.execute({}, {})).toBe(objectResult);
  });

  it('stores nothing at exactly the threshold and stores at one byte more', async () => {
    const store = createObservationStore();
    const exact = { success: true, output: 'x'.repeat(2048) };
    const over = { success: true, output: 'x'.repeat(2049) };
    let next = exact;
    const tool = withObservations(mockTool(() => next), store);
    expect(await tool.execute({}, {})).toBe(exact);
    next = over;
    const stored = await tool.execute({}, {});
    expect(observationOf(stored)).toMatchObject({ lines: 1, bytes: 2049 });
  });

  it('measures the threshold in UTF-8 bytes', async () => {
    const store = createObservationStore();
    const result = { success: true, output: 'é'.repeat(1025) }; // 1025 chars, 2050 bytes
    const stored = await withObservations(mockTool(() => result), store).execute({}, {});
    expect(stored).not.toBe(result);
    expect(observationOf(stored).bytes).toBe(2050);
  });

  it('passes failures through unchanged, however large', async () => {
    const failure = { success: false, error: 'x'.repeat(10_000), details: { code: 'boom' } };
    const tool = withObservations(mockTool(() => failure), createObservationStore());
    expect(await tool.execute({}, {})).toBe(failure);
  });

  it('passes outputs with no JSON form through unchanged', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const result = { success: true, output: cyclic };
    expect(await withObservations(mockTool(() => result), createObservationStore()).execute({}, {})).toBe(result);
  });

  it('does not change what runs: same args and context reach the tool, throws propagate', async () => {
    const inner = mockTool(() => ({ success: true, output: 'x' }));
    const args = { path: 'src' };
    const context = { sessionData: { a: 1 }, hostField: 'kept' };
    await withObservations(inner, createObservationStore()).execute(args, context);
    expect(inner.calls).toEqual([[args, context]]);
    expect(inner.calls[0][0]).toBe(args);
    expect(inner.calls[0][1]).toBe(context);

    const throwing = mockTool<string>(() => {
      throw new Error('inner threw');
    });
    await expect(withObservations(throwing, createObservationStore()).execute({}, {})).rejects.toThrow('inner threw');
  });

  it('keeps every property of the tool, and leaves an undeclared hasSideEffects undeclared', () => {
    const base = mockTool(() => ({ success: true, output: 'x' }), {
      id: 'grep-1',
      name: 'grep',
      displayName: 'Grep',
      description: 'Search.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { type: 'string' },
      hasSideEffects: true,
      interactive: true,
      composition: true,
    });
    const wrapped = withObservations(base, createObservationStore());
    for (const key of ['id', 'name', 'displayName', 'description', 'inputSchema', 'outputSchema', 'hasSideEffects', 'interactive', 'composition', 'calls'] as const) {
      expect(wrapped[key as keyof typeof wrapped]).toBe(base[key]);
    }
    const { hasSideEffects: _omitted, ...undeclared } = base;
    const wrappedUndeclared = withObservations(undeclared as ITool, createObservationStore());
    expect('hasSideEffects' in wrappedUndeclared).toBe(false);
  });

  it('copies fields a class-based tool serves from getters', () => {
    class GetterTool implements ITool {
      get id() { return 'g'; }
      get name() { return 'getter'; }
      get displayName() { return 'Getter'; }
      get description() { return 'Has getters.'; }
      get inputSchema() { return { type: 'object' }; }
      get hasSideEffects() { return false; }
      async execute() { return { success: true, output: 'x' }; }
    }
    const wrapped = withObservations(new GetterTool(), createObservationStore());
    expect(wrapped).toMatchObject({ id: 'g', name: 'getter', displayName: 'Getter', hasSideEffects: false });
  });

  it('wraps a list of tools, in order', () => {
    const tools = [mockTool(() => ({ success: true }), { name: 'a' }), mockTool(() => ({ success: true }), { name: 'b' })];
    expect(withObservations(tools, createObservationStore()).map((tool) => tool.name)).toEqual(['a', 'b']);
  });
});

describe('withObservations: stored results', () => {
  it('stores the full text and returns a preview of at most 40 lines with one footer line', async () => {
    const store = createObservationStore();
    const text = numberedLines(900);
    const result = await withObservations(mockTool(() => ({ success: true, output: text })), store, {
      compressPaths: false,
    }).execute({}, {});
    const { id, lines, bytes } = observationOf(result);
    expect({ lines, bytes }).toEqual({ lines: 900, bytes: byteLength(text) });
    expect(await readAll(store, id)).toMatchObject({ ok: true, text, meta: { tool: 'mock' } });
    const { preview, footer } = previewAndFooter(result);
    expect(preview).toEqual(text.split('\n').slice(0, 40));
    expect(footer).toBe(`[${id}: 900 lines, 8 KB; showing 1-40; get_observation {"ids":["${id}"],"offset":40}]`);
  });

  it('keeps the preview within 2 KB, cut between lines', async () => {
    const text = numberedLines(100, 100); // 100-byte lines
    const result = await withObservations(mockTool(() => ({ success: true, output: text })), createObservationStore()).execute({}, {});
    const { preview, footer } = previewAndFooter(result);
    expect(byteLength(preview.join('\n'))).toBeLessThanOrEqual(2048);
    expect(preview).toEqual(text.split('\n').slice(0, 20)); // 20 * 100 + 19 newlines fits, 21 lines do not
    expect(footer).toContain('showing 1-20;');
    expect(footer).toContain('"offset":20');
  });

  it('bounds a multibyte preview by bytes, never splitting a character', async () => {
    const line = '日本語のテキスト'.repeat(5); // 40 chars, 120 bytes
    const text = Array.from({ length: 50 }, () => line).join('\n');
    const result = await withObservations(mockTool(() => ({ success: true, output: text })), createObservationStore()).execute({}, {});
    const { preview } = previewAndFooter(result);
    expect(byteLength(preview.join('\n'))).toBeLessThanOrEqual(2048);
    expect(preview.every((previewLine) => previewLine === line)).toBe(true);
    expect(preview).toHaveLength(16); // 16 * 121 - 1 = 1935 bytes; 17 lines would be 2056
  });

  it('shows the start of a single line too long for the preview, cut between characters', async () => {
    const text = '😀'.repeat(3000); // one line, 12,000 bytes
    const result = await withObservations(mockTool(() => ({ success: true, output: text })), createObservationStore()).execute({}, {});
    const { preview, footer } = previewAndFooter(result);
    expect(preview).toHaveLength(1);
    expect(preview[0]).toBe('😀'.repeat(512));
    expect(footer).toMatch(/^\[obs_[a-z2-7]{20}: 1 line, 12 KB; showing part of line 1; get_observation .*"offset":0\}\]$/);
  });

  it('honours previewBytes, previewLines and thresholdBytes options', async () => {
    const text = numberedLines(30);
    const tool = withObservations(mockTool(() => ({ success: true, output: text })), createObservationStore(), {
      thresholdBytes: 100,
      previewBytes: 1000,
      previewLines: 5,
    });
    const { preview } = previewAndFooter(await tool.execute({}, {}));
    expect(preview).toEqual(text.split('\n').slice(0, 5));
  });

  it('stores non-string outputs as indented JSON', async () => {
    const output = { items: Array.from({ length: 200 }, (_, index) => ({ index, name: `item ${index}` })) };
    const store = createObservationStore();
    const result = await withObservations(mockTool(() => ({ success: true, output })), store).execute({}, {});
    const lookup = await readAll(store, observationOf(result).id);
    expect(lookup.ok && JSON.parse(lookup.text)).toEqual(output);
    expect(lookup.ok && lookup.text).toBe(JSON.stringify(output, null, 2));
  });

  it('keeps the result\'s other fields and details', async () => {
    const effects = [{ step: 's', tool: 't', ran: true as const }];
    const result = await withObservations(
      mockTool(() => ({ success: true, output: 'x'.repeat(5000), details: { took: 3 }, effects })),
      createObservationStore(),
    ).execute({}, {});
    expect(result.effects).toBe(effects);
    expect(result.details).toMatchObject({ took: 3, observation: { lines: 1, bytes: 5000 } });
  });

  it('keeps stored text immutable: a new run gets a new id, the old id the old text', async () => {
    const store = createObservationStore();
    let source = numberedLines(300);
    const original = source;
    const tool = withObservations(mockTool(() => ({ success: true, output: source })), store, { compressPaths: false });
    const first = observationOf(await tool.execute({}, {})).id;
    source = source.replace('line 250', 'line 250 (fixed)');
    const second = observationOf(await tool.execute({}, {})).id;
    expect(second).not.toBe(first);
    const page = await createGetObservationTool(store).execute({ ids: [first], offset: 240, lines: 20 }, {});
    expect(page.output).toBe(original.split('\n').slice(240, 260).join('\n') + `\n[${first}: lines 241-260 of 300; next offset 260]`);
    expect(await readAll(store, second)).toMatchObject({ text: source });
  });

  it('falls back to a preview with a note, and no id, when the store declines the body', async () => {
    const store = createObservationStore({ maxBytes: 1000 });
    const result = await withObservations(mockTool(() => ({ success: true, output: numberedLines(900) })), store).execute({}, {});
    const { preview, footer } = previewAndFooter(result);
    expect(preview).toHaveLength(40);
    expect(footer).toBe('[not stored, too large: 900 lines, 8 KB; showing 1-40]');
    expect(result.details?.observation).toBeUndefined();
    expect(result.details?.truncated).toEqual({ lines: 900, bytes: byteLength(numberedLines(900)), reason: 'too_large' });
  });

  it('ships the preview with a "store unavailable" note when the store throws, rejects or the scope fails', async () => {
    const throwing: ObservationStore = {
      put() {
        throw new Error('disk full');
      },
      read: async () => ({ ok: false, code: 'observation_unknown' }),
    };
    const rejecting: ObservationStore = { ...throwing, put: async () => Promise.reject(new Error('down')) };
    const unavailable: ObservationStore = { ...throwing, put: async () => ({ ok: false, reason: 'unavailable' }) };
    const text = numberedLines(900);
    const cases: [ObservationStore, object?][] = [[throwing], [rejecting], [unavailable], [createObservationStore(), { scope: () => { throw new Error('no scope'); } }]];
    for (const [store, options] of cases) {
      const result = await withObservations(mockTool(() => ({ success: true, output: text })), store, options).execute({}, {});
      const { preview, footer } = previewAndFooter(result);
      expect(preview).toEqual(text.split('\n').slice(0, 40));
      expect(footer).toBe('[not stored, store unavailable: 900 lines, 8 KB; showing 1-40]');
      expect(result.details?.truncated).toEqual({ lines: 900, bytes: byteLength(text), reason: 'store_unavailable' });
    }
  });

  it("stores in the call's scope: the session's get_observation reads it, another session's does not", async () => {
    const store = createObservationStore();
    const tool = withObservations(mockTool(() => ({ success: true, output: numberedLines(900) })), store);
    const getObservation = createGetObservationTool(store);
    const alice = { sessionData: { sessionId: 'alice' } };
    const { id } = observationOf(await tool.execute({}, alice));
    expect(await getObservation.execute({ ids: [id], offset: 899 }, alice)).toEqual({ success: true, output: 'line 900' });
    expect(await getObservation.execute({ ids: [id], offset: 899 }, { sessionData: { sessionId: 'bob' } })).toMatchObject({
      success: false,
      details: { code: 'observation_unknown' },
    });
    expect(await getObservation.execute({ ids: [id], offset: 899 }, {})).toMatchObject({ details: { code: 'observation_unknown' } });
  });
});

describe('withObservations: path lists', () => {
  const pathList = [
    'src/app/chat/a.ts',
    'src/app/chat/b.ts',
    'src/app/x.ts',
    ...['button', 'card', 'dialog', 'input', 'label', 'select', 'table'].map((name) => `src/components/ui/${name}.tsx`),
  ].join('\n');

  it('groups a small path list when that is smaller, and the grouping reads back exactly', async () => {
    const result = await withObservations(mockTool(() => ({ success: true, output: pathList })), createObservationStore()).execute({}, {});
    const output = outputOf(result);
    expect(output.length).toBeLessThan(pathList.length);
    expect(output.split('\n')[0]).toBe(GROUPED_MARKER);
    expect(output).toContain('src/app/: chat/a.ts, chat/b.ts, x.ts');
    expect(expandPathList(output)).toEqual(pathList.split('\n'));
  });

  it('leaves prose alone, and path lists too when compressPaths is false', async () => {
    const prose = { success: true, output: 'The build ran.\nIt failed at step 3.\nThe error was a timeout.\nRetry later.\nDone.' };
    expect(await withObservations(mockTool(() => prose), createObservationStore()).execute({}, {})).toBe(prose);
    const paths = { success: true, output: pathList };
    expect(await withObservations(mockTool(() => paths), createObservationStore(), { compressPaths: false }).execute({}, {})).toBe(paths);
  });

  it('leaves a path list alone when grouping would not be smaller', async () => {
    const flat = { success: true, output: ['a/1.ts', 'b/2.ts', 'c/3.ts', 'd/4.ts', 'e/5.ts'].join('\n') };
    expect(await withObservations(mockTool(() => flat), createObservationStore()).execute({}, {})).toBe(flat);
  });

  it('passes a path list under the threshold once grouped, though its flat form is over it', async () => {
    const lines = Array.from({ length: 120 }, (_, index) => `packages/web/src/components/generated/icon-${index}.tsx`);
    const flat = lines.join('\n');
    expect(byteLength(flat)).toBeGreaterThan(2048);
    const result = await withObservations(mockTool(() => ({ success: true, output: flat })), createObservationStore()).execute({}, {});
    expect(result.details?.observation).toBeUndefined();
    expect(byteLength(outputOf(result))).toBeLessThanOrEqual(2048);
    expect(expandPathList(outputOf(result))).toEqual(lines);
  });

  it('stores a large path list uncompressed and previews it grouped, covering more lines', async () => {
    const dirs = ['src/app/chat', 'src/app/settings', 'src/lib/cache', 'src/lib/net', 'test/unit/app'];
    const lines = dirs.flatMap((dir) => Array.from({ length: 120 }, (_, index) => `${dir}/module-${index}.ts`));
    const text = lines.join('\n');
    const store = createObservationStore();
    const result = await withObservations(mockTool(() => ({ success: true, output: text })), store).execute({}, {});
    const { id } = observationOf(result);
    expect(await readAll(store, id)).toMatchObject({ text });
    const { preview, footer } = previewAndFooter(result);
    expect(preview[0]).toBe(GROUPED_MARKER);
    expect(preview.length).toBeLessThanOrEqual(40);
    expect(byteLength(preview.join('\n'))).toBeLessThanOrEqual(2048);
    const shown = Number(/showing 1-(\d+)/.exec(footer)?.[1]);
    expect(shown).toBeGreaterThan(40);
    expect(expandPathList(preview.join('\n'))).toEqual(lines.slice(0, shown));
    expect(footer).toContain(`"offset":${shown}`);
  });
});
