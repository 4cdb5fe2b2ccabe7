/**
 * toolweave in the AI SDK: a composite and run_pipeline handed to generateText in one line, and
 * an AI SDK tool brought back as a step. The model is the AI SDK's own mock (no network): it asks
 * for the composite, then answers.
 * Run: npx tsx examples/adapters/ai-sdk.ts
 */
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { fromAiSdkTools, toAiSdkTools } from '../../src/adapters/ai-sdk.js';
import { ComposableToolBuilder, createRunPipelineTool } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/** Run the example; returns what the loop recorded for the tool call, and the imported tool's run. */
export async function main(log: (line: string) => void = console.log) {
  return withWorkspace(async ({ tools: registry, gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const usesOf = builder.build('uses_of', 'Find the files under a folder, then the lines that use a name.',
      { type: 'object', properties: { dir: { type: 'string' }, name: { type: 'string' } }, required: ['dir', 'name'] },
      { steps: [{ tool: 'grep_files', inputMapping: { pattern: '$input.name', path: '$input.dir' } }] });

    // The one line: toolweave's tools as an AI SDK tool set.
    const tools = toAiSdkTools([usesOf, createRunPipelineTool(gate)]);

    const model = new MockLanguageModelV3({ doGenerate: [
      { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'uses_of', input: JSON.stringify({ dir: 'src/app', name: 'cacheKey' }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
      { content: [{ type: 'text', text: 'report.js passes the arguments in the wrong order.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
    ] });
    const result = await generateText({ model, tools, prompt: 'Who calls cacheKey?', stopWhen: stepCountIs(3) });
    const recorded = result.steps[0].toolResults[0];
    log(`the model called ${recorded.toolName}; it read:`);
    for (const line of (recorded.output as { text: string }).text.split('\n')) log(`  | ${show(line, 70)}`);
    log(`the model answered: ${result.text}`);

    // The other way: an AI SDK tool as a toolweave tool, declared pure so run_pipeline may chain it.
    const [lineCount] = fromAiSdkTools({
      line_count: tool({
        description: 'Count the lines of a text.',
        inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
        execute: async ({ text }) => text.split('\n').length,
      }),
    }, { tools: { line_count: { hasSideEffects: false } } });
    registry.set(lineCount.name, lineCount);
    const counted = await createRunPipelineTool(gate).execute({ steps: [
      { id: 'file', tool: 'read_file', args: { path: 'src/app/report.js' } },
      { tool: 'line_count', args: { text: '${file.output}' } },
    ] }, {});
    log(`run_pipeline with the imported AI SDK tool: ${show(String(counted.output).split('\n').slice(-2).join(' '), 70)}`);
    return { recorded, counted };
  });
}

if (isMain(import.meta.url)) await main();
