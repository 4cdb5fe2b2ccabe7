/**
 * try_and_check in a composite: make an edit, then run the tests. A wrong fix fails with
 * `check_failed` and the check's own result; the right one passes. edit_file changes files, so
 * the host lists it (`bind({ sideEffectingTools })`) or the composite may not call it.
 * Run: npx tsx examples/builder/try-and-check.ts
 */
import { ComposableToolBuilder, type ComposableToolSpec, type ToolExecutionResult } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    {
      name: 'fix',
      combinator: 'try_and_check',
      do: { tool: 'edit_file', inputMapping: { path: '$input.file', find: '$input.find', replace: '$input.replace' } },
      check: { tool: 'run_tests', inputMapping: {} },
    },
  ],
};

/** Run the example; returns the results of the wrong fix and the right one. */
export async function main(log: (line: string) => void = console.log): Promise<{ wrong: ToolExecutionResult; right: ToolExecutionResult }> {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['edit_file'] });
    const editAndTest = builder.build('edit_and_test', 'Replace a text in a file, then run the tests.', {
      type: 'object',
      properties: { file: { type: 'string' }, find: { type: 'string' }, replace: { type: 'string' } },
      required: ['file', 'find', 'replace'],
    }, spec);
    const wrong = await editAndTest.execute({ file: 'src/app/report.js', find: 'cacheKey(region, user)', replace: 'cacheKey(region,user)' }, {});
    log(`wrong fix: ${String(wrong.details?.code)}; the check said ${show((wrong.details?.check as { output?: unknown })?.output)}`);
    const right = await editAndTest.execute({ file: 'src/app/report.js', find: 'cacheKey(region,user)', replace: 'cacheKey(user, region)' }, {});
    log(`right fix: ${right.success ? 'passed' : 'failed'}: ${show(right.output)}`);
    return { wrong, right };
  });
}

if (isMain(import.meta.url)) await main();
