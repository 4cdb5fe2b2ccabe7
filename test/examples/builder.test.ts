import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as annotate from '../../examples/builder/annotate.js';
import * as forEach from '../../examples/builder/for-each.js';
import * as gather from '../../examples/builder/gather.js';
import * as pipe from '../../examples/builder/pipe.js';
import * as scope from '../../examples/builder/scope.js';
import * as tryAndCheck from '../../examples/builder/try-and-check.js';
import type { ComposableToolSpec, EffectRecord } from '../../src/index.js';

const quiet = () => {};
const INTENT = 'Find the caller that passes the cache key arguments in the wrong order';
const FAILING_TEST = 'test/cache.test.json: src/app/report.js does not contain "cacheKey(user, region)"';

describe('the builder-syntax examples keep working', () => {
  it('gather: three calls in one step, the output picked from the named step', async () => {
    const result = await gather.main(quiet);
    expect(result.success, result.error).toBe(true);
    const out = result.output as { source: string; failures: string[] };
    expect(out.source).toContain('const key = cacheKey(region, user);');
    expect(out.failures).toEqual([FAILING_TEST]);
    expect((result.details?.trace as { tool?: string }[]).map((e) => e.tool).filter(Boolean).sort()).toEqual(['read_file', 'read_file', 'run_tests']);
  });

  it('for_each: one count per file found, in item order', async () => {
    const result = await forEach.main(quiet);
    expect(result.output).toEqual({
      files: ['src/app/cache.js', 'src/app/orders.js', 'src/app/profile.js', 'src/app/report.js'],
      counts: [2, 3, 2, 3],
    });
  });

  it('pipe: the second stage searches the path the first one found', async () => {
    expect((await pipe.main(quiet)).output).toBe('src/app/report.js:7:   const key = cacheKey(region, user);');
  });

  it('try_and_check: the wrong fix fails with the check, the right one passes', async () => {
    const { wrong, right } = await tryAndCheck.main(quiet);
    expect(wrong.details).toMatchObject({ code: 'check_failed', check: { output: { passed: false, failures: [FAILING_TEST] } } });
    expect(right.success, right.error).toBe(true);
    expect(right.output).toEqual({ do: 'replaced 1 occurrence in src/app/report.js', check: { passed: true, failures: [] } });
  });

  it('scope: a failed check undoes the edit with its compensate call; a passing fix is kept', async () => {
    const { failed, unchanged, passed } = await scope.main(quiet);
    expect(failed.details).toMatchObject({ code: 'check_failed', rollback: { complete: true, rolledBack: [{ step: 'edit', undo: 'edit_file', ok: true }] } });
    expect(unchanged).toBe(true);
    expect(failed.effects?.map((e: EffectRecord) => [e.tool, e.outcome])).toEqual([['edit_file', 'ran'], ['edit_file', 'ran']]);
    expect(passed.success, passed.error).toBe(true);
  });

  it('annotate: the intent reaches the trace, the details, and a failure', async () => {
    const { found, missing } = await annotate.main(quiet);
    expect(found.output).toBe('src/app/report.js:7:   const key = cacheKey(region, user);');
    expect(found.details).toMatchObject({
      annotations: [{ intent: INTENT, hypothesis: 'a caller passes cacheKey(region, user)' }],
      trace: [{ tool: 'grep_files', hypothesis: 'a caller passes cacheKey(region, user)' }],
    });
    expect(missing.details).toMatchObject({ code: 'step_failed', innerCode: 'not_found', intent: INTENT });
  });
});

describe("the guide's combinator snippets", () => {
  const guide = readFileSync(fileURLToPath(new URL('../../docs/guide.md', import.meta.url)), 'utf8');
  /** Each JSON block of the guide, with the example file its paragraph links (the last link before it). */
  const snippets = [...guide.matchAll(/```json\n([\s\S]*?)```/gu)].map((block) => {
    const links = [...guide.slice(0, block.index).matchAll(/\(\.\.\/examples\/builder\/([a-z-]+)\.ts\)/gu)];
    return { file: links.at(-1)?.[1], spec: JSON.parse(block[1]) as unknown };
  });
  const specs: Record<string, ComposableToolSpec> = {
    annotate: annotate.spec,
    'for-each': forEach.spec,
    gather: gather.spec,
    pipe: pipe.spec,
    scope: scope.spec,
    'try-and-check': tryAndCheck.spec,
  };

  it('show one spec for every file in examples/builder, in builder syntax', () => {
    const files = readdirSync(fileURLToPath(new URL('../../examples/builder/', import.meta.url))).map((f) => f.replace(/\.ts$/u, ''));
    expect(snippets.map((s) => s.file).sort()).toEqual(files.sort());
    expect(Object.keys(specs).sort()).toEqual(files.sort());
    const text = JSON.stringify(snippets.map((s) => s.spec));
    for (const word of ['inputMapping', '$item', '$prev', '$steps.', 'compensate']) expect(text).toContain(word);
  });

  it('are exactly the specs the examples run', () => {
    expect(snippets).toHaveLength(Object.keys(specs).length);
    for (const { file, spec } of snippets) expect(spec, file).toEqual(specs[file ?? '']);
  });
});
