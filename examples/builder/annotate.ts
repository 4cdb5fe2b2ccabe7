/**
 * annotate in a composite: the intent and the hypothesis travel with the work into its trace,
 * the result's details, and any error.
 * Run: npx tsx examples/builder/annotate.ts
 */
import { ComposableToolBuilder, type ComposableToolSpec, type ToolExecutionResult, type TraceEntry } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    {
      name: 'wrong_order',
      combinator: 'annotate',
      intent: 'Find the caller that passes the cache key arguments in the wrong order',
      hypothesis: 'a caller passes cacheKey(region, user)',
      do: { tool: 'grep_files', inputMapping: { pattern: 'cacheKey\\(region', path: '$input.dir' } },
    },
  ],
};

/** Run the example; returns a run that finds the caller and one whose folder does not exist. */
export async function main(log: (line: string) => void = console.log): Promise<{ found: ToolExecutionResult; missing: ToolExecutionResult }> {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const findWrongOrder = builder.build('find_wrong_order', 'Find the callers that pass region first.', {
      type: 'object',
      properties: { dir: { type: 'string' } },
      required: ['dir'],
    }, spec);
    const found = await findWrongOrder.execute({ dir: 'src' }, {});
    const trace = found.details?.trace as (TraceEntry & { intent?: string })[];
    log(`annotate: found ${JSON.stringify(found.output)}`);
    log(`  trace: ${trace[0].tool} carries intent "${trace[0].intent}"`);
    const missing = await findWrongOrder.execute({ dir: 'lib' }, {});
    log(`  a failure carries it too: ${String(missing.details?.code)} (inner ${String(missing.details?.innerCode)}), intent "${String(missing.details?.intent)}"`);
    return { found, missing };
  });
}

if (isMain(import.meta.url)) await main();
