/**
 * Every model-facing tool toolweave ships (run_pipeline, compose, run_js, get_observation, a
 * built composite) as each framework converts it with its own converter, and as the MCP SDK
 * lists it; then each converted tool is run once.
 */
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { RunContext, tool as openAITool } from '@openai/agents';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { asSchema, type ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import { toAiSdkTools } from '../../src/adapters/ai-sdk.js';
import { toLangChainTools } from '../../src/adapters/langchain.js';
import { toOpenAIAgentsTools } from '../../src/adapters/openai-agents.js';
import { toStrictSchema } from '../../src/adapters/strict-schema.js';
import type { ITool } from '../../src/index.js';
import { hostSetup, modelFacingTools } from './helpers.js';

/** Arguments that run each tool (get_observation answers that the id is unknown: it ran). */
const ARGS: Record<string, Record<string, unknown>> = {
  run_pipeline: { steps: [{ tool: 'lookup', args: { id: 1 } }] },
  compose: { tool: 'lookup', args: { id: 1 } },
  // Their strict forms: open objects as JSON text (a model in strict mode sends these).
  'run_pipeline strict': { steps: [{ id: null, tool: 'lookup', args: '{"id":1}' }] },
  'compose strict': { tree_json: '{"tool":"lookup","args":{"id":1}}' },
  run_js: { intention: 'look up', code: 'return (await callTool("lookup", { id: 1 })).text;' },
  get_observation: { ids: ['obs_aaaaaaaaaaaaaaaaaaaa'] },
  greet_user: { id: 1 },
};
/** What each answers, as the model reads it. */
const ANSWERS: Record<string, RegExp> = {
  run_pipeline: /^step_1: ok\n\{"name":"user-1"\}$/u,
  compose: /^\{"name":"user-1"\}$/u,
  run_js: /user-1/u,
  get_observation: /^error observation_unknown: /u,
  greet_user: /^Hello, user-1!$/u,
};

/** OpenAI's strict rules, checked on a schema: one object at the root, every object closed with every property required. */
function strictRuleBreaks(schema: unknown, at = 'input'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const breaks: string[] = [];
  if (at === 'input' && ('anyOf' in node || node.type !== 'object')) breaks.push(`${at}: not one object`);
  if (node.properties && typeof node.properties === 'object') {
    const keys = Object.keys(node.properties);
    if (node.additionalProperties !== false) breaks.push(`${at}: open`);
    if (JSON.stringify([...(node.required as string[] ?? [])].sort()) !== JSON.stringify([...keys].sort())) breaks.push(`${at}: not every property required`);
  } else if (node.type === 'object' && node.additionalProperties !== false) breaks.push(`${at}: open`);
  for (const [key, value] of Object.entries(node)) {
    if (Array.isArray(value)) value.forEach((v, i) => breaks.push(...strictRuleBreaks(v, `${at}.${key}[${i}]`)));
    else if (typeof value === 'object' && value !== null) breaks.push(...strictRuleBreaks(value, `${at}.${key}`));
  }
  return breaks;
}

describe('every model-facing schema, in every framework', () => {
  const setup = hostSetup();
  const tools = modelFacingTools(setup);

  it('has no root $ref, and an object root', () => {
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect('$ref' in t.inputSchema, t.name).toBe(false);
    }
  });

  it('the AI SDK takes it as it is, and runs each tool', async () => {
    const converted = toAiSdkTools(tools);
    for (const t of tools) {
      expect(await asSchema(converted[t.name].inputSchema).jsonSchema, t.name).toEqual(t.inputSchema);
      const options: ToolExecutionOptions = { toolCallId: t.name, messages: [] };
      const answer = await Promise.resolve(converted[t.name].execute!(ARGS[t.name], options) as PromiseLike<{ text: string }>).then((shown) => shown.text, (error: Error) => error.message);
      expect(answer, t.name).toMatch(ANSWERS[t.name]);
    }
  });

  it("LangChain's converter gives the model the schema as it is, and runs each tool", async () => {
    for (const t of toLangChainTools(tools)) {
      const source = tools.find((s) => s.name === t.name) as ITool;
      expect(convertToOpenAITool(t).function.parameters, t.name).toEqual(source.inputSchema);
      const answer = await t.invoke({ type: 'tool_call', id: `call-${t.name}`, name: t.name, args: ARGS[t.name] });
      expect(String((answer as { content: unknown }).content), t.name).toMatch(ANSWERS[t.name]);
    }
  });

  it("the OpenAI Agents SDK builds each strict, in a form that keeps OpenAI's rules, and runs each", async () => {
    // The SDK's own strict conversion takes compose but leaves a step's args an open object, which
    // OpenAI's strict rules refuse: the reason toolweave sends compose its strictInputSchema.
    const sdkStrict = openAITool({ name: 'compose', description: '', parameters: setup.compose.inputSchema as never, strict: true, execute: () => '' });
    expect(strictRuleBreaks(sdkStrict.parameters)).toContain('input.properties.args.anyOf[0]: open');
    for (const t of toOpenAIAgentsTools(tools)) {
      const source = tools.find((s) => s.name === t.name) as ITool;
      expect(t.strict, t.name).toBe(true);
      expect(strictRuleBreaks(t.parameters), t.name).toEqual([]);
      // Its own schema's strict form, else (run_pipeline, compose) that of its strictInputSchema.
      const own = toStrictSchema(source.inputSchema);
      const form = own.ok ? own : toStrictSchema(source.strictInputSchema!);
      expect(form.ok && form.schema, t.name).toEqual(t.parameters);
      const given = own.ok ? ARGS[t.name] : ARGS[`${t.name} strict`];
      // In strict mode the model sends every property; null for those it leaves out.
      const args = { ...Object.fromEntries(Object.keys((t.parameters as { properties: object }).properties).map((k) => [k, null])), ...given };
      expect(await t.invoke(new RunContext({}), JSON.stringify(args)), t.name).toMatch(ANSWERS[t.name]);
    }
    // Without strict mode, each is sent as it is.
    for (const t of toOpenAIAgentsTools(tools, { strict: false })) expect([t.strict, t.parameters], t.name).toEqual([false, tools.find((s) => s.name === t.name)!.inputSchema]);
  });

  it('the MCP SDK accepts each as a tool, and a client lists it unchanged', async () => {
    for (const t of tools) expect(ToolSchema.safeParse({ name: t.name, description: t.description, inputSchema: t.inputSchema }).success, t.name).toBe(true);
    const server = new Server({ name: 'toolweave-schemas', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })) }));
    const client = new Client({ name: 'toolweave-schemas-client', version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => [t.name, t.inputSchema])).toEqual(tools.map((t) => [t.name, t.inputSchema]));
    } finally {
      await client.close();
      await server.close();
    }
  });
});
