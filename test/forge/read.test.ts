/** readRecordings: one session per file, every bound checked, a folder that cannot be read a failure. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordings } from '../../src/index.js';
import { call } from './records.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-read-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

const line = (tool: string) => JSON.stringify(call(tool, { path: 'a' }, 'x'));

describe('readRecordings', () => {
  it('reads each .jsonl file as a session, leaving out lines that are not calls and saying so', async () => {
    const dir = await folder({
      'b.jsonl': [line('t2'), '{"v":1,"cut":true}'].join('\n'),
      'a.jsonl': [line('t1'), 'not json', JSON.stringify({ v: 9, tool: 'x' }), line('t3'), ''].join('\n'),
      'notes.txt': line('ignored'),
    });
    const read = await readRecordings(dir);
    expect(read.success).toBe(true);
    expect(read.output!.sessions.map((s) => [path.basename(s.file), s.calls.map((c) => c.tool)])).toEqual([['a.jsonl', ['t1', 't3']], ['b.jsonl', ['t2']]]);
    expect(read.output!.problems).toEqual([`${path.join(dir, 'a.jsonl')}: 2 lines are not calls of recording format 1; left out`]);
  });

  it('checks the bounds of files, file bytes, line characters and calls', async () => {
    const dir = await folder({ '1.jsonl': line('a'), '2.jsonl': [line('b'), line('c')].join('\n'), '3.jsonl': `${line('d')}\n${JSON.stringify(call('long', { pad: 'y'.repeat(400) }, 'x'))}` });
    const files = await readRecordings(dir, { maxFiles: 2 });
    expect(files.output!.sessions).toHaveLength(2);
    expect(files.output!.problems).toEqual(['1 session files past the first 2 were not read']);
    const bytes = await readRecordings(dir, { maxFileBytes: 300 });
    expect(bytes.output!.sessions.map((s) => s.calls.length)).toEqual([1]);
    expect(bytes.output!.problems).toHaveLength(2);
    const lines = await readRecordings(dir, { maxLineChars: 400 });
    expect(lines.output!.sessions.map((s) => s.calls.map((c) => c.tool))).toEqual([['a'], ['b', 'c'], ['d']]);
    const calls = await readRecordings(dir, { maxCalls: 2 });
    expect(calls.output!.sessions.map((s) => s.calls.length)).toEqual([1, 1]);
    expect(calls.output!.problems).toContain('reading stopped at 2 calls');
  });

  it('gives a failure with a code for a folder that cannot be read', async () => {
    const read = await readRecordings(path.join(os.tmpdir(), 'toolweave-no-such-folder-4242'));
    expect(read).toMatchObject({ success: false, details: { code: 'recordings_unreadable' } });
  });
});
