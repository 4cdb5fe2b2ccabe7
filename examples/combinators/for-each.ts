/**
 * for_each: find the app's files, then count the cacheKey calls in each, four files at a time.
 * Run: npx tsx examples/combinators/for-each.ts
 */
import { createComposeTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the compose tool's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const compose = createComposeTool(gate);
    const result = await compose.execute({
      combinator: 'gather',
      calls: {
        files: { tool: 'find_files', args: { path: 'src/app', glob: '*.js' } },
        counts: {
          combinator: 'for_each',
          concurrency: 4,
          items: { tool: 'find_files', args: { path: 'src/app', glob: '*.js' } },
          template: { tool: 'grep_files', args: { pattern: 'cacheKey\\(', path: '{item}', count: true } },
        },
      },
    }, {});
    const out = result.output as { files: string[]; counts: number[] };
    log('for_each: cacheKey( calls per file, in one call:');
    out.files.forEach((file, i) => log(`  ${file}: ${out.counts[i]}`));
    return result;
  });
}

if (isMain(import.meta.url)) await main();
