/** recordCalls and recordToDirectory: what a record holds, its bounds, and the step and door the gate tells. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ComposableToolBuilder, createStepGate, recordCalls, recordToDirectory, type CallRecord, type ITool } from '../../src/index.js';

function tool(name: string, run: (args: Record<string, unknown>) => unknown, hasSideEffects = false): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects, execute: async (args) => ({ success: true, output: run(args) }) };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('recordCalls', () => {
  it('records arguments, output, outcome, step and door of calls made under a composite', async () => {
    const records: CallRecord[] = [];
    const recording = recordCalls([tool('list', () => ({ files: ['a', 'b'] })), tool('read', (args) => `text of ${String(args.file)}`)], (record) => records.push(record));
    const registry = new Map(recording.tools.map((t) => [t.name, t]));
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
    const composite = builder.build('first', 'Read the first file.', { type: 'object' }, {
      steps: [{ name: 'ls', tool: 'list', inputMapping: { dir: '$input.dir' } }, { name: 'cat', tool: 'read', inputMapping: { file: '$steps.ls.files[0]' } }],
    });
    const result = await composite.execute({ dir: 'src' }, { onEvent: recording.onEvent, sessionId: 's1' });
    expect(result.success).toBe(true);
    expect(records.map((r) => [r.seq, r.tool, r.step, r.door, r.scope])).toEqual([
      [0, 'list', 'ls', 'composite', 'session:s1'],
      [1, 'read', 'cat', 'composite', 'session:s1'],
    ]);
    expect(records[1]).toMatchObject({ v: 1, args: { file: 'a' }, ok: true, output: 'text of a', hasSideEffects: false });
  });

  it('cuts a large output, keeping its length, and records failures with their code', async () => {
    const records: CallRecord[] = [];
    const failing: ITool = { ...tool('fail', () => null), execute: async () => ({ success: false, error: 'no such file', details: { code: 'tool_error' } }) };
    const recording = recordCalls([tool('big', () => 'x'.repeat(500)), tool('obj', () => ({ list: Array.from({ length: 100 }, (_, i) => i) })), failing], (r) => records.push(r), { maxOutputChars: 100 });
    for (const t of recording.tools) await t.execute({}, {});
    expect(records[0]).toMatchObject({ outputCut: 'x'.repeat(100), outputChars: 500 });
    expect(records[0]).not.toHaveProperty('output');
    expect(records[1].outputCut).toBe(JSON.stringify({ list: Array.from({ length: 100 }, (_, i) => i) }).slice(0, 100));
    expect(records[2]).toMatchObject({ ok: false, code: 'tool_error', error: 'no such file' });
    // Each scope counts its own calls.
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2]);
  });

  it('a sink that throws does not change the call', async () => {
    const recording = recordCalls([tool('t', () => 1)], () => {
      throw new Error('disk full');
    });
    expect(await recording.tools[0].execute({}, {})).toEqual({ success: true, output: 1 });
  });
});

describe('recordToDirectory', () => {
  it('writes one file per scope and stops a file at its bound with a cut line', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-rec-'));
    dirs.push(dir);
    const directory = recordToDirectory(path.join(dir, 'rec'), { maxFileBytes: 2048 });
    const base: CallRecord = { v: 1, seq: 0, time: 't', scope: 'a', tool: 't', step: 't', args: { pad: 'y'.repeat(300) }, ok: true, ms: 1 };
    for (let i = 0; i < 10; i++) directory.write({ ...base, seq: i });
    directory.write({ ...base, scope: 'b' });
    directory.close();
    const files = await readdir(path.join(dir, 'rec'));
    expect(files).toHaveLength(2);
    const a = (await readFile(directory.files().get('a')!, 'utf8')).trim().split('\n');
    expect(a.length).toBeLessThan(10);
    expect(JSON.parse(a.at(-1)!)).toEqual({ v: 1, cut: true });
    expect(Buffer.byteLength(a.join('\n'))).toBeLessThanOrEqual(2048 + 30);
    expect((await readFile(directory.files().get('b')!, 'utf8')).trim().split('\n')).toHaveLength(1);
  });
});
