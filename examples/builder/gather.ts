/**
 * gather in a composite: read a module, its test and the test status at once, in one step; the
 * output mapping picks from the named step.
 * Run: npx tsx examples/builder/gather.ts
 */
import { ComposableToolBuilder, type ComposableToolSpec, type ToolExecutionResult } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    {
      name: 'context',
      combinator: 'gather',
      calls: {
        source: { tool: 'read_file', inputMapping: { path: '$input.file' } },
        test: { tool: 'read_file', inputMapping: { path: '$input.test' } },
        status: { tool: 'run_tests', inputMapping: {} },
      },
    },
  ],
  output: { source: '$steps.context.source', failures: '$steps.context.status.failures' },
};

/** Run the example; returns the composite's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const review = builder.build('review_module', 'Read a module and its test, and run the tests.', {
      type: 'object',
      properties: { file: { type: 'string' }, test: { type: 'string' } },
      required: ['file', 'test'],
    }, spec);
    const result = await review.execute({ file: 'src/app/report.js', test: 'test/cache.test.json' }, {});
    const out = result.output as { source: string; failures: string[] };
    log(`gather: one step, three calls; ${out.source.split('\n').length} lines of source`);
    log(`  failures: ${show(out.failures)}`);
    return result;
  });
}

if (isMain(import.meta.url)) await main();
