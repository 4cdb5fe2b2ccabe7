/**
 * `toolweave` must install and load without DBOS: the core never imports toolweave/dbos, and
 * toolweave/dbos uses only the core's public names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT, SPECIFIER } from '../helpers/import-graph.js';

describe('the toolweave/dbos entry', () => {
  it("import 'toolweave' loads neither DBOS nor the adapter", () => {
    const { files, packages } = importGraph(path.join(ROOT, 'src/index.ts'));
    expect(files.size).toBeGreaterThan(20);
    expect([...packages].filter((name) => name.includes('dbos'))).toEqual([]);
    expect([...files].filter((file) => file.includes(`${path.sep}durable${path.sep}`))).toEqual([]);
  });

  it('the adapter reaches the core only through its public entry', () => {
    const { files } = importGraph(path.join(ROOT, 'src/durable/dbos.ts'));
    const outside = [...files].filter((file) => !file.includes(`${path.sep}durable${path.sep}`));
    expect(outside.length).toBeGreaterThan(0);
    const direct = [...files].filter((file) => file.includes(`${path.sep}durable${path.sep}`)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => m[1]).filter((s) => s.startsWith('..')),
    );
    expect(new Set(direct)).toEqual(new Set(['../index.js']));
  });

  it('is exported as toolweave/dbos, with DBOS an optional peer and a pinned dev dependency', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.exports['./dbos']).toEqual({ types: './dist/durable/dbos.d.ts', default: './dist/durable/dbos.js' });
    expect(pkg.peerDependencies['@dbos-inc/dbos-sdk']).toMatch(/^\^5\./);
    expect(pkg.peerDependenciesMeta['@dbos-inc/dbos-sdk']).toEqual({ optional: true });
    expect(pkg.devDependencies['@dbos-inc/dbos-sdk']).toMatch(/^5\.\d+\.\d+$/);
  });
});
