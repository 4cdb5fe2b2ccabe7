/**
 * toolweave/ai-sdk in the AI SDK's own loop: `generateText` with the SDK's mock language model
 * (`ai/test`), which emits tool calls; every assertion reads what the loop recorded.
 */
import { generateText, jsonSchema, stepCountIs, tool, type ToolExecutionOptions } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAiSdkTools, toAiSdkTools } from '../../src/adapters/ai-sdk.js';
import { createRunPipelineTool, createStepGate, PresentedError, type ITool, type PresentedResult } from '../../src/index.js';
import { hostSetup } from './helpers.js';

type ToolCall = { toolName: string; input: unknown };
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A mock model whose first turn calls the given tools and whose second turn answers in text. */
function modelCalling(calls: ToolCall[]) {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: calls.map((call, i) => ({ type: 'tool-call' as const, toolCallId: `call_${i}`, toolName: call.toolName, input: JSON.stringify(call.input) })),
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] },
    ],
  });
}

const callOptions = (signal?: AbortSignal): ToolExecutionOptions => ({ toolCallId: 'direct', messages: [], abortSignal: signal });

describe('toAiSdkTools in generateText', () => {
  it('runs a composite, run_pipeline and run_js; an invalid input and a script error are tool-error parts the model reads with their code', async () => {
    const setup = hostSetup();
    const model = modelCalling([
      { toolName: 'greet_user', input: { id: 7 } },
      { toolName: 'run_pipeline', input: { steps: [{ id: 'user', tool: 'lookup', args: { id: 3 } }, { tool: 'greet', args: { name: '${user.output.name}' } }] } },
      { toolName: 'run_js', input: { intention: 'greet two users', code: 'const a = await callTool("greet", { name: "Ann" }); const b = await callTool("greet", { name: "Bo" }); return [a.text, b.text];' } },
      { toolName: 'greet_user', input: { id: 'seven' } },
      { toolName: 'run_js', input: { intention: 'fail', code: 'throw new Error("no such user");' } },
    ]);
    const tools = toAiSdkTools([setup.greetUser, setup.runPipeline, setup.runJs]);
    const result = await generateText({ model, tools, prompt: 'greet people', stopWhen: stepCountIs(3) });

    expect(result.text).toBe('done');
    const [first] = result.steps;
    const results = first.toolResults.map((r) => [r.toolName, (r.output as { text: string }).text]);
    expect(results).toEqual([
      ['greet_user', 'Hello, user-7!'],
      ['run_pipeline', 'user: ok\n{"name":"user-3"}\nstep_2: ok\nHello, user-3!'],
      ['run_js', '["Hello, Ann!","Hello, Bo!"]'],
    ]);
    const errors = first.content.filter((part) => part.type === 'tool-error');
    expect(errors.map((e) => e.toolName)).toEqual(['greet_user', 'run_js']);
    expect(errors[0].error).toBeInstanceOf(PresentedError);
    expect((errors[0].error as PresentedError).code).toBe('args_invalid');
    expect((errors[0].error as Error).message).toMatch(/^error args_invalid: .*id must be number \(got "seven"\)/u);
    expect((errors[1].error as PresentedError).code).toBe('script_error');
    expect((errors[1].error as Error).message).toMatch(/^error script_error: .*no such user/u);

    // What the model is sent next: the text, and each failure's coded message.
    const toolMessages = model.doGenerateCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content);
    const outputs = toolMessages.map((part) => (part.type === 'tool-result' ? part.output : undefined));
    expect(outputs).toContainEqual({ type: 'text', value: 'Hello, user-7!' });
    expect(outputs).toContainEqual({ type: 'error-text', value: expect.stringMatching(/^error args_invalid: /u) });
    expect(outputs).toContainEqual({ type: 'error-text', value: expect.stringMatching(/^error script_error: /u) });
  });

  it('sends each tool its inputSchema as it is', async () => {
    const setup = hostSetup();
    const model = modelCalling([]);
    const shipped = [setup.runPipeline, setup.compose, setup.runJs, setup.getObservation, setup.greetUser];
    await generateText({ model, tools: toAiSdkTools(shipped), prompt: 'hi' });
    const sent = model.doGenerateCalls[0].tools ?? [];
    expect(sent.map((t) => t.name)).toEqual(shipped.map((t) => t.name));
    for (const t of shipped) expect(sent.find((s) => s.name === t.name)).toMatchObject({ type: 'function', inputSchema: t.inputSchema, description: t.description });
  });

  it('keeps effects and the trace on the recorded result', async () => {
    const setup = hostSetup();
    const result = await generateText({ model: modelCalling([{ toolName: 'note_user', input: { id: 4 } }]), tools: toAiSdkTools([setup.noteUser]), prompt: 'note', stopWhen: stepCountIs(2) });
    const output = result.steps[0].toolResults[0].output as { effects: unknown[]; trace: unknown[]; text: string };
    expect(setup.notes).toEqual(['user-4']);
    expect(output.text).toBe('stored note 1');
    expect(output.effects).toEqual([{ step: 'steps[1]', tool: 'write_note', ran: true, outcome: 'ran' }]);
    expect(output.trace).toEqual([expect.objectContaining({ tool: 'lookup', ok: true }), expect.objectContaining({ tool: 'write_note', ok: true })]);
  });

  it("passes the call's abort signal to the gate, and the host's context to every step", async () => {
    const setup = hostSetup();
    const tools = toAiSdkTools([setup.waitThenGreet, setup.greetUser], { context: (options) => ({ userId: `user-of-${options.toolCallId}` }) });
    const controller = new AbortController();
    const running = tools.wait_then_greet.execute!({}, callOptions(controller.signal));
    setTimeout(() => controller.abort(), 20);
    await expect(running).rejects.toMatchObject({ code: 'step_aborted', message: expect.stringMatching(/^error step_aborted: /u) });
    await tools.greet_user.execute!({ id: 1 }, callOptions());
    expect(setup.lookup.contexts.at(-1)).toMatchObject({ userId: 'user-of-direct' });
  });

  it('asks the AI SDK for approval before a tool with side effects or undeclared ones, when asked to', async () => {
    const setup = hostSetup();
    const undeclared: ITool = { ...setup.greet, name: 'greet_undeclared', hasSideEffects: undefined };
    const tools = toAiSdkTools([setup.greetUser, setup.noteUser, undeclared], { approveSideEffects: true });
    expect([tools.greet_user.needsApproval, tools.note_user.needsApproval, tools.greet_undeclared.needsApproval]).toEqual([undefined, true, true]);
    const result = await generateText({ model: modelCalling([{ toolName: 'note_user', input: { id: 4 } }]), tools, prompt: 'note', stopWhen: stepCountIs(2) });
    expect(result.content.some((part) => part.type === 'tool-approval-request')).toBe(true);
    expect(setup.notes).toEqual([]);
    expect(toAiSdkTools([setup.noteUser]).note_user.needsApproval).toBeUndefined();
  });

  it("gives the model the text, from the AI SDK 6's call and from the AI SDK 5's bare output", async () => {
    const setup = hostSetup();
    const greetUser = toAiSdkTools([setup.greetUser]).greet_user;
    const shown = (await greetUser.execute!({ id: 5 }, callOptions())) as PresentedResult;
    expect(await greetUser.toModelOutput!({ toolCallId: 'c', input: { id: 5 }, output: shown })).toEqual({ type: 'text', value: 'Hello, user-5!' });
    expect(await greetUser.toModelOutput!(shown as never)).toEqual({ type: 'text', value: 'Hello, user-5!' });
  });

  it('refuses two tools with one name', () => {
    const setup = hostSetup();
    expect(() => toAiSdkTools([setup.greet, setup.greet])).toThrow(/two tools are named "greet"/u);
  });
});

describe('fromAiSdkTools', () => {
  const weather = tool({
    description: 'The weather in a city.',
    inputSchema: z.object({ city: z.string(), unit: z.enum(['C', 'F']).default('C') }),
    execute: async ({ city, unit }) => ({ city, unit, degrees: 21 }),
  });
  const failing = tool({ description: 'Always fails.', inputSchema: jsonSchema<{ why: string }>({ type: 'object', properties: { why: { type: 'string' } }, required: ['why'] }), execute: async ({ why }): Promise<string> => { throw new Error(why); } });
  async function* countdown() { yield 3; yield 2; yield 1; }
  const streaming = tool({ description: 'Counts down.', inputSchema: z.object({}), execute: () => countdown() });

  it('makes toolweave tools: the JSON schema, the declared side effects, the output of execute', async () => {
    const [w, f, s] = fromAiSdkTools({ weather, failing, streaming }, { tools: { weather: { hasSideEffects: false } } });
    expect(w).toMatchObject({ name: 'weather', id: 'ai-sdk:weather', description: 'The weather in a city.', hasSideEffects: false });
    expect(w.inputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: expect.arrayContaining(['city']) });
    expect('hasSideEffects' in f).toBe(false);
    // The AI SDK schema's own validation applies its default.
    expect(await w.execute({ city: 'Oslo' }, {})).toEqual({ success: true, output: { city: 'Oslo', unit: 'C', degrees: 21 } });
    expect(await s.execute({}, {})).toEqual({ success: true, output: 1 });
  });

  it('answers a throw and bad arguments with a code', async () => {
    const [w, f] = fromAiSdkTools({ weather, failing });
    expect(await f.execute({ why: 'the service is down' }, {})).toMatchObject({ success: false, error: expect.stringContaining('the service is down'), details: { code: 'tool_failed' } });
    expect(await w.execute({ city: 5 }, {})).toMatchObject({ success: false, details: { code: 'args_invalid', fields: ['city'] } });
  });

  it('an imported tool is chained only when declared, and is always callable directly', async () => {
    const declared = fromAiSdkTools({ weather }, { tools: { weather: { hasSideEffects: false } } });
    const undeclared = fromAiSdkTools({ weather });
    for (const [tools, chained] of [[declared, true], [undeclared, false]] as const) {
      const registry = new Map(tools.map((t) => [t.name, t]));
      const pipeline = createRunPipelineTool(createStepGate({ resolve: (name) => registry.get(name) }));
      const result = await pipeline.execute({ steps: [{ tool: 'weather', args: { city: 'Oslo' } }] }, {});
      expect(result.success).toBe(chained);
      if (!chained) expect(result.details?.code).toBe('side_effects_undeclared');
      expect((await tools[0].execute({ city: 'Oslo' }, {})).success).toBe(true);
    }
  });

  it('refuses a declaration for a tool that is not there, and a tool without execute', () => {
    expect(() => fromAiSdkTools({ weather }, { tools: { wether: { hasSideEffects: false } } })).toThrow(/declares "wether", not among the tools given \(weather\)/u);
    expect(() => fromAiSdkTools({ client: tool({ description: 'runs in the browser', inputSchema: z.object({}) }) })).toThrow(/has no execute function/u);
  });
});
