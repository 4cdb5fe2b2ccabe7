/**
 * pipe in a composite: find a module by its file name, then search it. Each stage reads the
 * previous stage's output as `$prev` (here its first path, `$prev[0]`).
 * Run: npx tsx examples/builder/pipe.ts
 */
import { ComposableToolBuilder, type ComposableToolSpec, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    {
      name: 'uses',
      combinator: 'pipe',
      stages: [
        { tool: 'find_files', inputMapping: { path: 'src', glob: '$input.file' } },
        { tool: 'grep_files', inputMapping: { pattern: '$input.pattern', path: '$prev[0]' } },
      ],
    },
  ],
};

/** Run the example; returns the composite's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const searchModule = builder.build('search_module', 'Find a module by its file name and search it.', {
      type: 'object',
      properties: { file: { type: 'string' }, pattern: { type: 'string' } },
      required: ['file', 'pattern'],
    }, spec);
    const result = await searchModule.execute({ file: 'report.js', pattern: 'cacheKey\\(' }, {});
    log(`pipe: ${String(result.output)}`);
    return result;
  });
}

if (isMain(import.meta.url)) await main();
