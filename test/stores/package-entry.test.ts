/**
 * `toolweave` must install and load without ioredis: the core never imports the Redis store, and
 * the store itself only names ioredis's types (erased at build), using the host's client.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT } from '../helpers/import-graph.js';

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
