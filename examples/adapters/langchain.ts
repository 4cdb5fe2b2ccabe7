/**
 * toolweave in LangChain: a composite handed to a chat model in one line, each tool call answered
 * with a ToolMessage (a failure with status "error" and its code), and a LangChain tool brought
 * back as a step of a composite. The model is LangChain's own fake chat model (no network).
 * Run: npx tsx examples/adapters/langchain.ts
 */
import { AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { z } from 'zod';
import { fromLangChainTools, toLangChainTools } from '../../src/adapters/langchain.js';
import { ComposableToolBuilder } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the ToolMessages and the composite's result. */
export async function main(log: (line: string) => void = console.log) {
  return withWorkspace(async ({ tools: registry, gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const readTest = builder.build('read_test', 'Read a test file and run the tests.',
      { type: 'object', properties: { test: { type: 'string' } }, required: ['test'] },
      { steps: [
        { name: 'test', tool: 'read_file', inputMapping: { path: '$input.test' } },
        { name: 'status', tool: 'run_tests', inputMapping: {} },
      ], output: { test: '$steps.test', failures: '$steps.status.failures' } });

    // The one line: toolweave's tools as LangChain structured tools.
    const tools = toLangChainTools([readTest]);

    const model = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: [
      { id: 'c1', name: 'read_test', args: { test: 'test/cache.test.json' } },
      { id: 'c2', name: 'read_test', args: { test: 42 } },
    ] })] });
    const reply = await model.bindTools(tools).invoke('Why do the cache tests fail?');
    const messages: ToolMessage[] = [];
    for (const call of reply.tool_calls ?? []) messages.push(await tools[0].invoke({ ...call, type: 'tool_call' }) as ToolMessage);
    for (const m of messages) log(`${m.tool_call_id} (${m.status}): ${show(m.content, 90)}`);

    // The other way: a LangChain tool as a step of a composite, declared pure.
    const [countMatches] = fromLangChainTools([tool(async ({ text, word }) => text.split(word).length - 1, {
      name: 'count_word', description: 'Count a word in a text.', schema: z.object({ text: z.string(), word: z.string() }),
    })], { tools: { count_word: { hasSideEffects: false } } });
    registry.set(countMatches.name, countMatches);
    const counted = await builder.build('count_in_file', 'Count a word in a file.',
      { type: 'object', properties: { path: { type: 'string' }, word: { type: 'string' } }, required: ['path', 'word'] },
      { steps: [
        { name: 'file', tool: 'read_file', inputMapping: { path: '$input.path' } },
        { tool: 'count_word', inputMapping: { text: '$steps.file', word: '$input.word' } },
      ] }).execute({ path: 'src/app/report.js', word: 'cacheKey' }, {});
    log(`count_word, a LangChain tool, as a step: ${show(counted.output)}`);
    return { messages, counted };
  });
}

if (isMain(import.meta.url)) await main();
