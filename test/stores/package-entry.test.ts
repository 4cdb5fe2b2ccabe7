/**
 * `toolweave` must install and load without ioredis: the core never imports the Redis store, and
 * the store itself only names ioredis's types (erased at build), using the host's client.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Every module `entry` loads, by relative import, and every package it names. */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const statement of source.split(';')) {
      // Type-only imports are erased at build: they load nothing.
      if (/^\s*(?:import|export)\s+type\b/m.test(statement)) continue;
      for (const [, specifier] of statement.matchAll(SPECIFIER)) {
        if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    }
  }
  return { files, packages };
}

describe('the package entry', () => {
  it("import 'toolweave' loads neither ioredis nor the Redis store", () => {
    const { files, packages } = importGraph(path.join(ROOT, 'src/index.ts'));
    expect(files.size).toBeGreaterThan(20);
    expect([...packages].filter((name) => name.includes('redis'))).toEqual([]);
    expect([...files].filter((file) => file.includes(`${path.sep}stores${path.sep}`))).toEqual([]);
  });

  it("the Redis store loads no ioredis of its own: it uses the host's client", () => {
    const { files, packages } = importGraph(path.join(ROOT, 'src/stores/redis.ts'));
    expect([...files].some((file) => file.endsWith('redis-connection.ts'))).toBe(true);
    expect(packages.has('ioredis')).toBe(false);
  });

  it('exports toolweave/redis, with ioredis an optional peer and a pinned dev dependency', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.exports['./redis']).toEqual({ types: './dist/stores/redis.d.ts', default: './dist/stores/redis.js' });
    expect(pkg.peerDependencies.ioredis).toMatch(/^\^6\./);
    expect(pkg.peerDependenciesMeta.ioredis).toEqual({ optional: true });
    expect(pkg.devDependencies.ioredis).toMatch(/^6\.\d+\.\d+$/);
  });
});
