/**
 * gather: read the source, the tests and the test status at once, in one call.
 * Run: npx tsx examples/combinators/gather.ts
 */
import { createComposeTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the compose tool's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const compose = createComposeTool(gate);
    const result = await compose.execute({
      combinator: 'gather',
      calls: {
        source: { tool: 'read_file', args: { path: 'src/app/cache.js' } },
        tests: { tool: 'read_file', args: { path: 'test/cache.test.json' } },
        status: { tool: 'run_tests', args: {} },
      },
    }, {});
    const out = result.output as Record<string, unknown>;
    log(`gather: one call, ${Object.keys(out ?? {}).length} results: ${Object.keys(out ?? {}).join(', ')}`);
    log(`  status: ${show(out?.status)}`);
    return result;
  });
}

if (isMain(import.meta.url)) await main();
