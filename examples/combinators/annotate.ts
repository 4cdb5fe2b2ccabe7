/**
 * annotate: the intent and the hypothesis travel with the work into its trace and any error.
 * Run: npx tsx examples/combinators/annotate.ts
 */
import { createComposeTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the compose tool's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const compose = createComposeTool(gate);
    const result = await compose.execute({
      combinator: 'annotate',
      intent: 'Find the caller that passes the cache key arguments in the wrong order',
      hypothesis: 'report.js calls cacheKey(region, user)',
      do: { tool: 'grep_files', args: { pattern: 'cacheKey\\(region', path: 'src' } },
    }, {});
    const trace = result.details?.trace as { step: string; intent?: string; hypothesis?: string }[];
    log(`annotate: found ${JSON.stringify(result.output)}`);
    log(`  trace: ${trace[0].step} carries intent "${trace[0].intent}"`);
    return result;
  });
}

if (isMain(import.meta.url)) await main();
