/**
 * toolweave/langchain with LangChain's own pieces: a fake chat model (`@langchain/core/utils/testing`)
 * bound to the tools answers tool calls, each invoked as LangChain's tool loop does, with the
 * `ToolCall`, answering a `ToolMessage`; and a LangChain tool as a step in a composite.
 */
import { AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromLangChainTools, toLangChainTools } from '../../src/adapters/langchain.js';
import { ComposableToolBuilder, createStepGate, PresentedError, type ITool } from '../../src/index.js';
import { hostSetup } from './helpers.js';

describe('toLangChainTools', () => {
  it("answers each of a chat model's tool calls with a ToolMessage: the text, and the rest as its artifact; a failure with status error and its code", async () => {
    const setup = hostSetup();
    const tools = toLangChainTools([setup.greetUser, setup.noteUser, setup.runPipeline, setup.runJs]);
    const calls = [
      { id: 'c1', name: 'greet_user', args: { id: 7 } },
      { id: 'c2', name: 'note_user', args: { id: 4 } },
      { id: 'c3', name: 'run_pipeline', args: { steps: [{ tool: 'lookup', args: { id: 1 } }] } },
      { id: 'c4', name: 'greet_user', args: { id: 'seven' } },
      { id: 'c5', name: 'run_js', args: { intention: 'fail', code: 'throw new Error("no such user")' } },
    ];
    const model = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: calls })] });
    const reply = await model.bindTools(tools).invoke('greet user 7');
    expect(reply.tool_calls?.map((c) => c.name)).toEqual(calls.map((c) => c.name));

    const messages: ToolMessage[] = [];
    for (const call of reply.tool_calls ?? []) {
      const answer: unknown = await tools.find((t) => t.name === call.name)!.invoke({ ...call, type: 'tool_call' });
      expect(answer).toBeInstanceOf(ToolMessage);
      messages.push(answer as ToolMessage);
    }
    expect(messages.map((m) => [m.tool_call_id, m.status])).toEqual([['c1', 'success'], ['c2', 'success'], ['c3', 'success'], ['c4', 'error'], ['c5', 'error']]);
    expect(messages[0].content).toBe('Hello, user-7!');
    expect(messages[0].artifact).toMatchObject({ isError: false, trace: [expect.objectContaining({ tool: 'lookup' }), expect.objectContaining({ tool: 'greet' })] });
    expect(messages[1].artifact).toMatchObject({ effects: [{ tool: 'write_note', ran: true, outcome: 'ran' }] });
    expect(messages[2].content).toBe('step_1: ok\n{"name":"user-1"}');
    expect(messages[3].content).toMatch(/^error args_invalid: .*id must be number \(got "seven"\)/u);
    expect(messages[3].artifact).toMatchObject({ isError: true, code: 'args_invalid' });
    expect(messages[4].content).toMatch(/^error script_error: .*no such user/u);
    expect(setup.notes).toEqual(['user-4']);
  });

  it('without a tool call, answers the text, and throws a PresentedError for a failure', async () => {
    const setup = hostSetup();
    const [greetUser] = toLangChainTools([setup.greetUser]);
    expect(await greetUser.invoke({ id: 2 })).toBe('Hello, user-2!');
    const failed = await greetUser.invoke({ id: 'two' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(PresentedError);
    expect((failed as PresentedError).code).toBe('args_invalid');
  });

  it("passes the run's abort signal to the gate, and its configurable as the context", async () => {
    const setup = hostSetup();
    const [wait, greetUser] = toLangChainTools([setup.waitThenGreet, setup.greetUser]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    // LangChain itself rejects a call whose signal fires; the composite underneath was stopped too.
    await expect(wait.invoke({}, { signal: controller.signal })).rejects.toThrow();
    expect(setup.waitForAbort.contexts[0].signal?.aborted).toBe(true);
    await greetUser.invoke({ id: 1 }, { configurable: { userId: 'u-1' } });
    expect(setup.lookup.contexts.at(-1)).toMatchObject({ userId: 'u-1' });
  });
});

describe('fromLangChainTools', () => {
  const weather = tool(async ({ city }) => `21 degrees in ${city}`, { name: 'weather', description: 'The weather in a city.', schema: z.object({ city: z.string() }) });
  const broken = tool(async () => new ToolMessage({ status: 'error', content: 'the service is down', tool_call_id: 'x' }), { name: 'broken', description: 'Always fails.', schema: z.object({}) });
  const thrower = tool(async (): Promise<string> => { throw new Error('boom'); }, { name: 'thrower', description: 'Throws.', schema: z.object({}) });

  it('a declared LangChain tool is a step of a composite', async () => {
    const imported = fromLangChainTools([weather], { tools: { weather: { hasSideEffects: false } } });
    expect(imported[0]).toMatchObject({ name: 'weather', id: 'langchain:weather', hasSideEffects: false, inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } });
    const registry = new Map<string, ITool>(imported.map((t) => [t.name, t]));
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
    const twoCities = builder.build('two_cities', 'The weather in two cities.',
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] },
      { steps: [
        { name: 'a', tool: 'weather', inputMapping: { city: '$input.a' } },
        { name: 'b', tool: 'weather', inputMapping: { city: '$input.b' } },
      ], output: { a: '$steps.a', b: '$steps.b' } });
    expect(await twoCities.execute({ a: 'Oslo', b: 'Rome' }, {})).toMatchObject({ success: true, output: { a: '21 degrees in Oslo', b: '21 degrees in Rome' } });
  });

  it('an undeclared one is never chained, and callable directly', async () => {
    const [undeclared] = fromLangChainTools([weather]);
    expect('hasSideEffects' in undeclared).toBe(false);
    const registry = new Map<string, ITool>([[undeclared.name, undeclared]]);
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
    expect(builder.validate({ steps: [{ tool: 'weather', inputMapping: { city: '$input.city' } }] }).errors?.join('\n')).toMatch(/does not declare/u);
    expect(await undeclared.execute({ city: 'Oslo' }, {})).toEqual({ success: true, output: '21 degrees in Oslo' });
  });

  it('answers an error ToolMessage, a throw and bad arguments with codes', async () => {
    const [w, b, t] = fromLangChainTools([weather, broken, thrower]);
    expect(await b.execute({}, {})).toMatchObject({ success: false, error: expect.stringContaining('the service is down'), details: { code: 'tool_failed' } });
    expect(await t.execute({}, {})).toMatchObject({ success: false, error: expect.stringContaining('boom'), details: { code: 'tool_failed' } });
    expect(await w.execute({ city: 3 }, {})).toMatchObject({ success: false, details: { code: 'args_invalid', fields: ['city'] } });
  });
});
