/**
 * try_and_check: fix the argument order in report.js, then run the tests, in one call. A wrong
 * fix fails with the check's own result.
 * Run: npx tsx examples/combinators/try-and-check.ts
 */
import { createComposeTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the results of the wrong fix and the right one. */
export async function main(log: (line: string) => void = console.log): Promise<{ wrong: ToolExecutionResult; right: ToolExecutionResult }> {
  return withWorkspace(async ({ gate }) => {
    // edit_file changes files: the host lists it, or no batch may call it.
    const compose = createComposeTool(gate, { sideEffectingTools: ['edit_file'] });
    const attempt = (replace: string) =>
      compose.execute({
        combinator: 'try_and_check',
        do: { tool: 'edit_file', args: { path: 'src/app/report.js', find: 'cacheKey(region, user)', replace } },
        check: { tool: 'run_tests', args: {} },
      }, {});
    const wrong = await attempt('cacheKey(region,user)');
    log(`wrong fix: ${String(wrong.details?.code)}; the check said ${show((wrong.details?.check as { output?: unknown })?.output)}`);
    const right = await compose.execute({
      combinator: 'try_and_check',
      do: { tool: 'edit_file', args: { path: 'src/app/report.js', find: 'cacheKey(region,user)', replace: 'cacheKey(user, region)' } },
      check: { tool: 'run_tests', args: {} },
    }, {});
    log(`right fix: ${right.success ? 'passed' : 'failed'}: ${show(right.output)}`);
    return { wrong, right };
  });
}

if (isMain(import.meta.url)) await main();
