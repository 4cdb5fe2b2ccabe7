/**
 * scope with compensate in a composite: an edit whose tests fail is undone by its own
 * compensating call (the inverse edit), so nothing is left half-done. No host snapshot is needed.
 * Run: npx tsx examples/builder/scope.ts
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ComposableToolBuilder, type ComposableToolSpec, type RollbackEntry, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    {
      name: 'attempt',
      combinator: 'scope',
      on_failure: 'rollback',
      do: {
        combinator: 'try_and_check',
        do: {
          name: 'edit',
          tool: 'edit_file',
          inputMapping: { path: '$input.file', find: '$input.find', replace: '$input.replace' },
          compensate: { tool: 'edit_file', args: { path: '$input.file', find: '$input.replace', replace: '$input.find' } },
        },
        check: { tool: 'run_tests', inputMapping: {} },
      },
    },
  ],
};

/** Run the example; returns the failed attempt, whether the file is as it was after it, and a passing attempt. */
export async function main(log: (line: string) => void = console.log): Promise<{ failed: ToolExecutionResult; unchanged: boolean; passed: ToolExecutionResult }> {
  return withWorkspace(async ({ gate, root }) => {
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['edit_file'] });
    const tryFix = builder.build('try_fix', 'Replace a text in a file and keep it only if the tests pass.', {
      type: 'object',
      properties: { file: { type: 'string' }, find: { type: 'string' }, replace: { type: 'string' } },
      required: ['file', 'find', 'replace'],
    }, spec);
    const file = 'src/app/report.js';
    const before = await readFile(path.join(root, file), 'utf8');
    const failed = await tryFix.execute({ file, find: 'cacheKey(region, user)', replace: 'cacheKey(region)' }, {});
    const unchanged = (await readFile(path.join(root, file), 'utf8')) === before;
    const rollback = failed.details?.rollback as { complete: boolean; rolledBack: RollbackEntry[] };
    log(`scope: ${String(failed.details?.code)}; undone: ${rollback.rolledBack.map((r) => `${r.step} by ${r.undo} ${r.ok ? 'ok' : 'FAILED'}`).join(', ')}; complete: ${rollback.complete}`);
    log(`  effects: ${(failed.effects ?? []).map((e) => `${e.step} (${e.tool}) ${e.outcome}`).join(', ')}`);
    log(`  ${file} as it was: ${unchanged ? 'yes' : 'no'}`);
    const passed = await tryFix.execute({ file, find: 'cacheKey(region, user)', replace: 'cacheKey(user, region)' }, {});
    log(`the right fix: ${passed.success ? 'kept, the tests pass' : `failed: ${passed.error}`}`);
    return { failed, unchanged, passed };
  });
}

if (isMain(import.meta.url)) await main();
