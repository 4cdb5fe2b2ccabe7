/**
 * Recordings are data: a recorded argument holding `__proto__` (written outside the gate, which
 * refuses such arguments) is read, mined and forged as the key it is. Nothing is written onto
 * `Object.prototype`, and the forged mapping keeps the key as it was recorded.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgeFromRun, generalizeChain, mineChains, readRecordings } from '../../src/index.js';

/** The keys a forging could have written onto every object. */
const WATCHED = ['hasSideEffects', 'path', 'content', 'mode'];

function polluted(): string[] {
  return WATCHED.filter((key) => Object.hasOwn(Object.prototype, key));
}

afterEach(() => {
  // Leave the process as it was for the other tests, whatever this one found.
  for (const key of polluted()) delete (Object.prototype as Record<string, unknown>)[key];
});

/** One session's lines as `toolweave mcp --record` writes them, with `opts` as given (raw JSON text). */
function sessionLines(i: number, opts: string): string {
  const read = `{"v":1,"seq":0,"time":"2026-12-02T10:00:0${i}.000Z","scope":"","tool":"read_text_file","step":"read_text_file","hasSideEffects":false,"args":{"path":"/p/${i}.md","opts":${opts}},"ok":true,"output":"text of ${i}","ms":1}`;
  const write = `{"v":1,"seq":1,"time":"2026-12-02T10:00:0${i}.500Z","scope":"","tool":"write_file","step":"write_file","hasSideEffects":true,"args":{"path":"/p/${i}.bak","content":"text of ${i}"},"ok":true,"output":"wrote","ms":1}`;
  return `${read}\n${write}\n`;
}

describe('forging recordings whose arguments hold __proto__', () => {
  it('writes nothing onto Object.prototype and keeps "__proto__" as a key of the forged mapping', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolweave-proto-'));
    try {
      for (const i of [1, 2, 3]) await writeFile(path.join(dir, `s${i}.jsonl`), sessionLines(i, '{"__proto__":{"hasSideEffects":false}}'));
      const read = await readRecordings(dir);
      expect(read.success).toBe(true);
      const shapes = mineChains(read.output!.sessions);
      expect(polluted()).toEqual([]);
      expect(shapes.map((shape) => shape.steps.map((step) => step.tool))).toEqual([['read_text_file', 'write_file']]);
      const forged = generalizeChain(shapes[0]);
      expect(polluted()).toEqual([]);
      expect(({} as Record<string, unknown>).hasSideEffects).toBeUndefined();
      const mapping = (forged.spec.steps[0] as { inputMapping?: unknown }).inputMapping as Record<string, Record<string, unknown>>;
      expect(Object.keys(mapping.opts)).toEqual(['__proto__']);
      expect(Object.getPrototypeOf(mapping.opts)).not.toEqual({ hasSideEffects: false });
      // As a composite file writes it.
      expect(JSON.parse(JSON.stringify((forged.spec.steps[0] as { inputMapping?: unknown }).inputMapping))).toEqual(JSON.parse('{"path":"$input.path","opts":{"__proto__":{"hasSideEffects":false}}}'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a varying value under __proto__ becomes an input field, and its examples keep what was recorded', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolweave-proto-'));
    try {
      for (const i of [1, 2, 3]) await writeFile(path.join(dir, `s${i}.jsonl`), sessionLines(i, `{"__proto__":{"mode":"m${i}"},"constructor":"c${i}"}`));
      const read = await readRecordings(dir);
      const [shape] = mineChains(read.output!.sessions);
      const forged = generalizeChain(shape);
      expect(polluted()).toEqual([]);
      expect(JSON.parse(JSON.stringify((forged.spec.steps[0] as { inputMapping?: unknown }).inputMapping))).toEqual(
        JSON.parse('{"path":"$input.path","opts":{"__proto__":{"mode":"$input.mode"},"constructor":"$input.constructor"}}'),
      );
      expect(forged.examples.map((example) => example.input)).toEqual([1, 2, 3].map((i) => ({ path: `/p/${i}.md`, mode: `m${i}`, constructor: `c${i}`, path_2: `/p/${i}.bak` })));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
