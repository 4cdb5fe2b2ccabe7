/**
 * pipe: count the cacheKey( lines, then subtract the definition, in one call.
 * Run: npx tsx examples/combinators/pipe.ts
 */
import { createComposeTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the compose tool's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const compose = createComposeTool(gate);
    const result = await compose.execute({
      combinator: 'pipe',
      stages: [
        { tool: 'grep_files', args: { pattern: 'cacheKey\\(', path: 'src', count: true } },
        // "{result}" is the previous stage's output, here inside a longer string.
        { tool: 'calculator', args: { expression: '{result} - 1' } },
      ],
    }, {});
    log(`pipe: ${String(result.output)} callers of cacheKey (grep count, minus the definition)`);
    return result;
  });
}

if (isMain(import.meta.url)) await main();
