/**
 * for_each in a composite: find the modules in a folder, then count a pattern in each, four at
 * a time. The template reads the current item as `$item`; `items` reads a named step.
 * Run: npx tsx examples/builder/for-each.ts
 */
import { ComposableToolBuilder, type ComposableToolSpec, type ToolExecutionResult } from '../../src/index.js';
import { isMain, withWorkspace } from '../tools/workspace.js';

/** The composite's spec (the guide shows it). */
export const spec: ComposableToolSpec = {
  steps: [
    { name: 'files', tool: 'find_files', inputMapping: { path: '$input.dir', glob: '*.js' } },
    {
      name: 'counts',
      combinator: 'for_each',
      items: '$steps.files',
      concurrency: 4,
      template: { tool: 'grep_files', inputMapping: { pattern: '$input.pattern', path: '$item', count: true } },
    },
  ],
  output: { files: '$steps.files', counts: '$steps.counts' },
};

/** Run the example; returns the composite's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const countPerFile = builder.build('count_per_file', 'Count the lines matching a pattern in each module of a folder.', {
      type: 'object',
      properties: { dir: { type: 'string' }, pattern: { type: 'string' } },
      required: ['dir', 'pattern'],
    }, spec);
    const result = await countPerFile.execute({ dir: 'src/app', pattern: 'recall|remember' }, {});
    const out = result.output as { files: string[]; counts: number[] };
    log('for_each: lines using the cache, per module, in one call:');
    out.files.forEach((file, i) => log(`  ${file}: ${out.counts[i]}`));
    return result;
  });
}

if (isMain(import.meta.url)) await main();
