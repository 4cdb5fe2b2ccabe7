/**
 * The API reference, converted from typedoc.json as `npm run docs` does (without writing pages):
 * titled after the package, with one module per public entry named as a user imports it
 * (`toolweave`, `toolweave/<subpath>`), never after its file (`index`, `stores/redis`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, ReflectionKind } from 'typedoc';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
/** What a user imports, for every entry in package.json `exports`. */
const specifiers = Object.keys(pkg.exports).map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//u, '')}`));

describe('the API reference', () => {
  it('is titled toolweave, with a module for every public entry, named as it is imported', async () => {
    const app = await Application.bootstrapWithPlugins({ options: path.join(REPO, 'typedoc.json') });
    const project = await app.convert();
    expect(project, 'typedoc could not convert the sources').toBeDefined();
    expect(project!.name).toBe('toolweave');
    const modules = project!.getChildrenByKind(ReflectionKind.Module).map((m) => m.name);
    // With one entry the project itself is its module.
    expect((modules.length ? modules : [project!.name]).sort()).toEqual([...specifiers].sort());
    const root = modules.length ? project!.getChildByName(pkg.name) : project;
    expect(root?.getChildByName('ComposableToolBuilder')?.kind).toBe(ReflectionKind.Class);
    expect(root?.getChildByName('createStepGate')?.kind).toBe(ReflectionKind.Function);
    expect(project!.documents?.map((d) => d.name)).toContain('Guide');
  }, 120_000);
});
