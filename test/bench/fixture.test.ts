/**
 * The committed benchmark fixture is exactly what its generator writes, so the benchmarks' inputs
 * are reproducible and a change to the generator cannot go unnoticed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildRepo } from '../../bench/fixtures/make-repo.js';

const REPO = fileURLToPath(new URL('../../bench/fixtures/repo/', import.meta.url));

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs, base) : [path.relative(base, abs).split(path.sep).join('/')];
  });
}

describe('bench/fixtures/repo', () => {
  const built = buildRepo();

  it('holds exactly the files make-repo.ts generates, byte for byte', () => {
    expect(filesUnder(REPO).sort()).toEqual([...built.keys()].sort());
    for (const [file, text] of built) expect(readFileSync(path.join(REPO, file), 'utf8'), file).toBe(text);
  });

  it('has what the cases need', () => {
    expect(built.get('VERSION')).toBe('42');
    expect([...built.keys()].filter((f) => f.startsWith('config/'))).toHaveLength(3);
    expect(built.get('logs/build.log')!.split('\n').filter(Boolean)).toHaveLength(900);
    const sources = [...built.keys()].filter((f) => f.startsWith('src/'));
    expect(sources).toHaveLength(30);
    expect(sources.every((f) => built.get(f)!.includes('// TODO:'))).toBe(true);
    const callers = sources.filter((f) => /cacheKey\(\w+, \w+\)/.test(built.get(f)!) && !built.get(f)!.includes('function cacheKey'));
    expect(callers).toHaveLength(3);
    expect(sources.reduce((n, f) => n + (built.get(f)!.match(/fetchUser/g)?.length ?? 0), 0)).toBe(5);
  });
});
