/**
 * The API reference, converted from typedoc.json as `npm run docs` does (without writing pages):
 * it is titled after the package and lists the public names at its top level, not under a
 * module named after the entry file (`index`).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, ReflectionKind } from 'typedoc';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('the API reference', () => {
  it('is titled toolweave, with the public names at its top level and the guide beside them', async () => {
    const app = await Application.bootstrapWithPlugins({ options: path.join(REPO, 'typedoc.json') });
    const project = await app.convert();
    expect(project, 'typedoc could not convert the sources').toBeDefined();
    expect(project!.name).toBe('toolweave');
    expect(project!.getChildrenByKind(ReflectionKind.Module).map((m) => m.name)).toEqual([]);
    expect(project!.getChildByName('ComposableToolBuilder')?.kind).toBe(ReflectionKind.Class);
    expect(project!.getChildByName('createStepGate')?.kind).toBe(ReflectionKind.Function);
    expect(project!.documents?.map((d) => d.name)).toContain('Guide');
  }, 120_000);
});
