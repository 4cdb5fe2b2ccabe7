/**
 * toolweave/openai-agents in the SDK's own loop: a full `Runner` run, in strict mode, with a model
 * of the tests' own (the SDK takes any `Model`) that calls the tools and then answers; every
 * assertion reads what the run recorded or what the model was sent.
 */
import { Agent, Runner, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromOpenAIAgentsTools, toOpenAIAgentsTools } from '../../src/adapters/openai-agents.js';
import { createRunPipelineTool, createStepGate } from '../../src/index.js';
import { hostSetup } from './helpers.js';

type Call = { name: string; args: Record<string, unknown> };

/** A model that calls the given tools in its first turn and answers "done" in its second. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly calls: Call[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output: ModelResponse['output'] = this.requests.length === 1
      ? this.calls.map((call, i) => ({ type: 'function_call' as const, callId: `call_${i}`, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' as const }))
      : [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'done' }] }];
    return { usage: new Usage(), output };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in these tests');
  }
}

const runner = new Runner({ tracingDisabled: true });

/** The outputs of the run's tool calls, in call order: what the model read, and the custom data beside it. */
function toolOutputs(result: { newItems: readonly { type: string; output?: unknown; customData?: Record<string, unknown> }[] }) {
  return result.newItems.filter((item) => item.type === 'tool_call_output_item').map((item) => ({
    output: item.output,
    customData: item.customData,
  }));
}

describe('toOpenAIAgentsTools in a Runner run (strict mode)', () => {
  it('runs a composite, run_pipeline, compose, run_js and get_observation; a failure is a coded text, never a masked one', async () => {
    const setup = hostSetup();
    const tools = toOpenAIAgentsTools([setup.greetUser, setup.noteUser, setup.runPipeline, setup.compose, setup.runJs, setup.getObservation]);
    const model = new ScriptedModel([
      // Strict mode: the model sends null for an optional field; the tool never sees it.
      { name: 'greet_user', args: { id: 7, punctuation: null } },
      { name: 'note_user', args: { id: 4 } },
      // Their strict forms: every field sent, null where left out, open objects as JSON text.
      { name: 'run_pipeline', args: { steps: [{ id: 'user', tool: 'lookup', args: '{"id":3}' }, { id: null, tool: 'greet', args: JSON.stringify({ name: '${user.output.name}' }) }], stop_on_error: null } },
      { name: 'compose', args: { tree_json: JSON.stringify({ combinator: 'gather', calls: { a: { tool: 'lookup', args: { id: 1 } }, b: { tool: 'lookup', args: { id: 2 } } } }) } },
      { name: 'run_js', args: { intention: 'greet', code: 'return (await callTool("greet", { name: "Ann" })).text;' } },
      { name: 'get_observation', args: { ids: ['obs_unknown'], offset: null, lines: null } },
      { name: 'run_js', args: { intention: 'fail', code: 'throw new Error("no such user")' } },
    ]);
    const agent = new Agent({ name: 'host', instructions: 'Use the tools.', model, tools });
    const result = await runner.run(agent, 'greet people', { context: { userId: 'u-1' } });

    expect(result.finalOutput).toBe('done');
    const outputs = toolOutputs(result);
    expect(outputs.map((o) => o.output)).toEqual([
      'Hello, user-7!',
      'stored note 1',
      'user: ok\n{"name":"user-3"}\nstep_2: ok\nHello, user-3!',
      '{"a":{"name":"user-1"},"b":{"name":"user-2"}}',
      'Hello, Ann!',
      expect.stringMatching(/^error observation_unknown: /u),
      expect.stringMatching(/^error script_error: .*no such user/u),
    ]);
    expect(outputs[0].customData).toMatchObject({ isError: false, trace: [expect.objectContaining({ tool: 'lookup' }), expect.objectContaining({ tool: 'greet' })] });
    expect(outputs[1].customData).toMatchObject({ effects: [{ tool: 'write_note', ran: true, outcome: 'ran' }] });
    expect(outputs[5].customData).toMatchObject({ isError: true, code: 'observation_unknown' });
    expect(setup.notes).toEqual(['user-4']);
    // The run's context reached the steps.
    expect(setup.lookup.contexts[0]).toMatchObject({ userId: 'u-1' });
    // What the model read back: the coded text, not the SDK's "An error occurred while running the tool".
    const sentBack = JSON.stringify(model.requests[1].input);
    expect(sentBack).toContain('error script_error');
    expect(sentBack).not.toContain('An error occurred');
  });

  it('sends every tool strict: run_pipeline and compose in their strictInputSchema', async () => {
    const setup = hostSetup();
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: 'host', instructions: 'Use the tools.', model, tools: toOpenAIAgentsTools([setup.greetUser, setup.runPipeline, setup.compose, setup.runJs, setup.getObservation]) });
    await runner.run(agent, 'hi');
    const sent = Object.fromEntries(model.requests[0].tools.map((t) => [t.name, t as { strict?: boolean; parameters?: Record<string, unknown> }]));
    expect(Object.fromEntries(Object.entries(sent).map(([name, t]) => [name, t.strict]))).toEqual({ greet_user: true, run_pipeline: true, compose: true, run_js: true, get_observation: true });
    expect(sent.greet_user.parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'number' }, punctuation: { type: ['string', 'null'] } },
      required: ['id', 'punctuation'],
      additionalProperties: false,
    });
    expect(sent.compose.parameters).toEqual(setup.compose.strictInputSchema);
    expect(sent.run_pipeline.parameters).toEqual(setup.runPipeline.strictInputSchema);
    // Without strict mode, each is sent as it is.
    const loose = toOpenAIAgentsTools([setup.runPipeline, setup.compose], { strict: false });
    expect(loose.map((t) => [t.strict, t.parameters])).toEqual([[false, setup.runPipeline.inputSchema], [false, setup.compose.inputSchema]]);
  });

  it("passes the call's abort signal to the gate; approveSideEffects sets the SDK's needsApproval", async () => {
    const setup = hostSetup();
    const [wait] = toOpenAIAgentsTools([setup.waitThenGreet]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const { RunContext } = await import('@openai/agents');
    const answer = await wait.invoke(new RunContext({}), '{}', { signal: controller.signal });
    expect(answer).toMatch(/^error step_aborted: /u);
    const [pure, effects] = toOpenAIAgentsTools([setup.greetUser, setup.noteUser], { approveSideEffects: true });
    const context = new RunContext({});
    expect([await pure.needsApproval(context, { id: 1 }), await effects.needsApproval(context, { id: 1 })]).toEqual([false, true]);
  });
});

describe('fromOpenAIAgentsTools: a function tool invoked outside a run', () => {
  const weather = tool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: z.object({ city: z.string(), unit: z.enum(['C', 'F']).nullable().optional() }),
    execute: async ({ city, unit }) => `21 degrees ${unit ?? 'C'} in ${city}`,
  });
  const thrower = tool({ name: 'thrower', description: 'Throws.', parameters: z.object({}), execute: async (): Promise<string> => { throw new Error('boom'); } });

  it('runs it, declared, as a step of run_pipeline; its context is the run context', async () => {
    const [imported] = fromOpenAIAgentsTools([weather], { tools: { weather: { hasSideEffects: false } } });
    expect(imported).toMatchObject({ id: 'openai-agents:weather', hasSideEffects: false, inputSchema: { type: 'object', required: ['city', 'unit'] } });
    const registry = new Map([[imported.name, imported]]);
    const pipeline = createRunPipelineTool(createStepGate({ resolve: (name) => registry.get(name) }));
    const result = await pipeline.execute({ steps: [{ tool: 'weather', args: { city: 'Oslo', unit: 'F' } }, { tool: 'weather', args: { city: 'Rome', unit: null } }] }, {});
    expect(result.output).toBe('step_1: ok\n21 degrees F in Oslo\nstep_2: ok\n21 degrees C in Rome');
  });

  it('answers a throw and bad arguments with codes; undeclared, it is never chained', async () => {
    const [w, t] = fromOpenAIAgentsTools([weather, thrower]);
    expect(await t.execute({}, {})).toMatchObject({ success: false, details: { code: 'tool_failed' } });
    expect(await w.execute({ city: 'Oslo' }, {})).toMatchObject({ success: false, details: { code: 'args_invalid', fields: ['unit'] } });
    const registry = new Map([[w.name, w]]);
    const pipeline = createRunPipelineTool(createStepGate({ resolve: (name) => registry.get(name) }));
    expect((await pipeline.execute({ steps: [{ tool: 'weather', args: { city: 'Oslo', unit: null } }] }, {})).details?.code).toBe('side_effects_undeclared');
  });
});
