/**
 * scope with rollback: an edit whose check fails is undone, so nothing is left half-done.
 * The host supplies the snapshot/restore pair; here it keeps the project's source files in memory.
 * Run: npx tsx examples/combinators/scope.ts
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createComposeTool, type SnapshotProvider, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the result and whether report.js is as it was. */
export async function main(log: (line: string) => void = console.log): Promise<{ result: ToolExecutionResult; unchanged: boolean }> {
  return withWorkspace(async ({ gate, root }) => {
    const file = path.join(root, 'src/app/report.js');
    const snapshots: SnapshotProvider = {
      snapshot: () => readFile(file, 'utf8'),
      restore: (token) => writeFile(file, String(token), 'utf8'),
    };
    const before = await readFile(file, 'utf8');
    const compose = createComposeTool(gate, { sideEffectingTools: ['edit_file'], snapshots });
    const result = await compose.execute({
      combinator: 'scope',
      on_failure: 'rollback',
      do: {
        combinator: 'try_and_check',
        do: { tool: 'edit_file', args: { path: 'src/app/report.js', find: 'cacheKey(region, user)', replace: 'cacheKey(region)' } },
        check: { tool: 'run_tests', args: {} },
      },
    }, {});
    const unchanged = (await readFile(file, 'utf8')) === before;
    const rollback = result.details?.rollback as { complete: boolean; rolledBack: { undo: string; ok: boolean }[] };
    log(`scope: ${String(result.details?.code)}; rolled back: ${rollback.rolledBack.map((r) => `${r.undo} ${r.ok ? 'ok' : 'FAILED'}`).join(', ')}; complete: ${rollback.complete}`);
    log(`report.js as it was: ${unchanged ? 'yes' : 'no'}`);
    return { result, unchanged };
  });
}

if (isMain(import.meta.url)) await main();
