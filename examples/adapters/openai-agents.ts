/**
 * toolweave in the OpenAI Agents SDK: a composite and run_pipeline given to an Agent in one line,
 * sent in strict mode where they have a strict form, run by the SDK's Runner, and a function tool
 * brought back as a step. The model is the example's own (the SDK takes any Model; no network):
 * it calls the composite with `null` for its optional field, as strict mode makes it, then answers.
 * Run: npx tsx examples/adapters/openai-agents.ts
 */
import { Agent, Runner, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { z } from 'zod';
import { fromOpenAIAgentsTools, toOpenAIAgentsTools } from '../../src/adapters/openai-agents.js';
import { ComposableToolBuilder, createRunPipelineTool } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Calls `read_module` in its first turn, answers in its second. */
class ExampleModel implements Model {
  turns = 0;
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    this.turns += 1;
    return {
      usage: new Usage(),
      output: this.turns === 1
        ? [{ type: 'function_call', callId: 'c1', name: 'read_module', arguments: JSON.stringify({ file: 'src/app/report.js', test: null }), status: 'completed' }]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'report.js calls cacheKey(region, user).' }] }],
    };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('this example does not stream');
  }
}

/** Run the example; returns the run's tool output items and the imported tool's run. */
export async function main(log: (line: string) => void = console.log) {
  return withWorkspace(async ({ tools: registry, gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const readModule = builder.build('read_module', 'Read a module, and its test when one is named.',
      { type: 'object', properties: { file: { type: 'string' }, test: { type: 'string' } }, required: ['file'] },
      { steps: [{ tool: 'read_file', inputMapping: { path: '$input.file' } }] });

    // The one line: toolweave's tools as function tools (strict where they have a strict form).
    const tools = toOpenAIAgentsTools([readModule, createRunPipelineTool(gate)]);
    log(`strict: ${tools.map((t) => `${t.name} ${t.strict}`).join(', ')}`);

    const agent = new Agent({ name: 'reviewer', instructions: 'Use the tools.', model: new ExampleModel(), tools });
    const result = await new Runner({ tracingDisabled: true }).run(agent, 'What does report.js do?');
    const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item') as { output: unknown; customData?: Record<string, unknown> }[];
    log(`read_module answered: ${show(String(outputs[0].output).split('\n')[0], 70)}`);
    log(`its custom data: ${show(outputs[0].customData, 90)}`);
    log(`the agent answered: ${result.finalOutput}`);

    // The other way: a function tool invoked outside a run, as a step of run_pipeline.
    const [upper] = fromOpenAIAgentsTools([tool({
      name: 'upper', description: 'Upper-case a text.', parameters: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase(),
    })], { tools: { upper: { hasSideEffects: false } } });
    registry.set(upper.name, upper);
    const shouted = await createRunPipelineTool(gate).execute({ steps: [
      { id: 'list', tool: 'list_dir', args: { path: 'src' } },
      { tool: 'upper', args: { text: '${list.output}' } },
    ] }, {});
    log(`run_pipeline with the imported function tool: ${show(String(shouted.output).split('\n').slice(-3).join(' '), 70)}`);
    return { outputs, finalOutput: result.finalOutput, shouted };
  });
}

if (isMain(import.meta.url)) await main();
