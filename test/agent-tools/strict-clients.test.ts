/**
 * What a strict client sends: `null` for every optional field it leaves out, and, where a tool's
 * own schema has open objects (run_pipeline's `args`, compose's tree), the tool's strict form
 * (`strictInputSchema`), whose every object is closed and whose open parts are JSON text.
 */
import { describe, expect, it } from 'vitest';
import { RunContext } from '@openai/agents';
import { toOpenAIAgentsTools } from '../../src/adapters/openai-agents.js';
import { toStrictSchema } from '../../src/adapters/strict-schema.js';
import { createComposeTool, createRunPipelineTool, createStepGate, type ITool, type JSONSchemaObject } from '../../src/index.js';
import { tool } from '../helpers/tools.js';

function host() {
  const lookup = tool('lookup', (args) => ({ name: `user-${String(args.id)}` }), { hasSideEffects: false, inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } });
  const greet = tool('greet', (args) => `Hello, ${String(args.name)}!`, { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
  const registry = new Map<string, ITool>([lookup, greet].map((t) => [t.name, t]));
  const gate = createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys() });
  return { runPipeline: createRunPipelineTool(gate), compose: createComposeTool(gate) };
}

/** Every object of `schema` closed, with every property required: what strict mode takes. */
function closedEverywhere(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(closedEverywhere);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) {
    const properties = Object.keys((node.properties as object | undefined) ?? {});
    if (node.additionalProperties !== false) return false;
    if (!properties.every((name) => (node.required as string[] | undefined)?.includes(name))) return false;
  }
  return Object.values(node).every(closedEverywhere);
}

describe('run_pipeline and a strict client', () => {
  it('takes null for every optional field (a step id, its args, stop_on_error) as left out', async () => {
    const { runPipeline } = host();
    const result = await runPipeline.execute({
      steps: [{ id: null, tool: 'lookup', args: { id: 3 } }, { id: 'hi', tool: 'greet', args: { name: '${step_1.output.name}' } }, { id: null, tool: 'lookup', args: null }],
      stop_on_error: null,
    }, {});
    // The third step's args left out: the tool's own schema refuses it, as it would any call without its id.
    expect(result.output).toMatch(/^step_1: ok\n\{"name":"user-3"\}\nhi: ok\nHello, user-3!\nstep_3: error args_invalid: /u);
  });

  it('takes the nulls through a gate that checks its arguments (a framework adapter, sending its ordinary schema)', async () => {
    const { runPipeline } = host();
    const [loose] = toOpenAIAgentsTools([runPipeline], { strict: false });
    const answer = await loose.invoke(new RunContext({}), JSON.stringify({ steps: [{ id: null, tool: 'lookup', args: { id: 5 } }], stop_on_error: null }));
    expect(answer).toBe('step_1: ok\n{"name":"user-5"}');
    // A null where a field is required is still refused, by the ordinary form's rule.
    const refused = await loose.invoke(new RunContext({}), JSON.stringify({ steps: [{ id: null, tool: null }] }));
    expect(refused).toMatch(/^error args_invalid: .*steps\.0\.tool must be string/u);
  });

  it('offers a strict form, every object closed, whose args are JSON text; the tool takes either', async () => {
    const { runPipeline } = host();
    const strict = runPipeline.strictInputSchema as JSONSchemaObject;
    expect(strict).toBeDefined();
    expect(closedEverywhere(strict)).toBe(true);
    expect(toStrictSchema(strict).ok).toBe(true);
    // As a strict client sends it: every field, null where left out, args as JSON text.
    const result = await runPipeline.execute({
      steps: [{ id: 'user', tool: 'lookup', args: '{"id": 4}' }, { id: null, tool: 'greet', args: JSON.stringify({ name: '${user.output.name}' }) }],
      stop_on_error: null,
    }, {});
    expect(result).toMatchObject({ success: true, output: 'user: ok\n{"name":"user-4"}\nstep_2: ok\nHello, user-4!' });
    // JSON text that is not an object is refused, saying which step.
    for (const bad of ['{"id": ', '[1]', '"text"']) {
      const refused = await runPipeline.execute({ steps: [{ id: null, tool: 'lookup', args: bad }], stop_on_error: null }, {});
      expect(refused.details?.code, bad).toBe('input_invalid');
      expect(refused.error, bad).toMatch(/input\.steps\.0\.args: .*JSON text of an object/u);
    }
  });
});

describe('compose and a strict client', () => {
  it('offers a strict form, the tree as JSON text, and runs it as the tree', async () => {
    const { compose } = host();
    const strict = compose.strictInputSchema as JSONSchemaObject;
    expect(strict).toBeDefined();
    expect(closedEverywhere(strict)).toBe(true);
    expect(toStrictSchema(strict).ok).toBe(true);
    const tree = { combinator: 'gather', calls: { a: { tool: 'lookup', args: { id: 1 } }, b: { tool: 'lookup', args: { id: 2 } } } };
    const result = await compose.execute({ tree_json: JSON.stringify(tree) }, {});
    expect(result).toMatchObject({ success: true, output: { a: { name: 'user-1' }, b: { name: 'user-2' } } });
    const refused = await compose.execute({ tree_json: '{"combinator": "gather", ' }, {});
    expect(refused.details?.code).toBe('spec_invalid');
    expect(refused.error).toMatch(/tree_json: .*JSON text of an object/u);
  });
});
