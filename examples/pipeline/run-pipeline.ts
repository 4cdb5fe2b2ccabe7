/**
 * run_pipeline: the 4-step investigation (list_dir, grep_files, read_file, calculator) as one
 * tool call a model makes, with ${step_N.output} threading an output into a later step.
 * Run: npx tsx examples/pipeline/run-pipeline.ts
 */
import { createRunPipelineTool, type ToolExecutionResult } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the pipeline's result. */
export async function main(log: (line: string) => void = console.log): Promise<ToolExecutionResult> {
  return withWorkspace(async ({ gate }) => {
    const pipeline = createRunPipelineTool(gate);
    const result = await pipeline.execute({
      steps: [
        { id: 'list', tool: 'list_dir', args: { path: 'src/adapters' } },
        { id: 'find', tool: 'grep_files', args: { pattern: 'class \\w+Adapter', path: 'src/adapters', count: true } },
        { id: 'read', tool: 'read_file', args: { path: 'src/adapters/queue-adapter.js' } },
        { id: 'math', tool: 'calculator', args: { expression: '${find.output} * 2' } },
      ],
    }, {});
    // What the model reads back: every step's output under its own line.
    for (const line of String(result.output).split('\n')) log(`  | ${show(line, 70)}`);
    log('run_pipeline: 4 tool calls in 1 model turn instead of 4');
    return result;
  });
}

if (isMain(import.meta.url)) await main();
