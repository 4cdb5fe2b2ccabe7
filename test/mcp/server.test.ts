/**
 * createMcpServer driven by the SDK's own Client: the listing (annotations, schemas as they are),
 * results, failures, progress, list changes, cancellation and approvals through elicitation.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  ComposableToolBuilder,
  createComposeTool,
  createObservationStore,
  createRunPipelineTool,
  createStepGate,
  withObservations,
  type ITool,
} from '../../src/index.js';
import { createMcpServer, createToolList, elicitationApprovals, mcpTools } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';
import { createPlainServer } from './fixtures/plain-server.js';
import { connectInMemory, sleep } from './helpers.js';

const shout = tool('shout', (args) => String(args.text).toUpperCase(), { hasSideEffects: false });
const count = tool('count', (args) => ({ chars: String(args.text).length }), { hasSideEffects: false });
const boom = tool('boom', () => {
  throw new Error('kaboom');
}, { hasSideEffects: false });

/** A registry, a gate over it, and the server; `extra` tools added to the registry too. */
function serve(tools: ITool[], options: { approvals?: boolean; sideEffectingTools?: string[] } = {}) {
  const registry = new Map(tools.map((t) => [t.name, t]));
  let server: Server | undefined;
  const gate = createStepGate({
    resolve: (n) => registry.get(n),
    names: () => registry.keys(),
    ...(options.approvals ? { approvals: elicitationApprovals(() => server!) } : {}),
  });
  registry.set('run_pipeline', createRunPipelineTool(gate, { sideEffectingTools: options.sideEffectingTools ?? [] }));
  registry.set('compose', createComposeTool(gate, { sideEffectingTools: options.sideEffectingTools ?? [] }));
  const list = createToolList([...registry.values()]);
  server = createMcpServer(list, { gate });
  return { server, registry, gate, list };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
}

describe('tools/list', () => {
  it('serves annotations from hasSideEffects, computed when listed, and schemas as they are', async () => {
    const plain = createPlainServer();
    const upstream = await mcpTools(await connectInMemory(plain.server), { tools: { stats: { hasSideEffects: false } } });
    const stats = upstream.find((t) => t.name === 'stats')!;
    const wrappedStats = { ...withObservations(stats, createObservationStore()), name: 'stats_preview' };
    const write = { ...tool('write', () => 'ok', { hasSideEffects: true }), annotations: { readOnlyHint: false, destructiveHint: true, title: 'Write' } };
    const { server, registry, list } = serve([shout, write, stats, wrappedStats, tool('vague', () => 'x', {})]);
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n) }));
    builder.bind({ sideEffectingTools: ['write'] });
    const composite = builder.build('shout_twice', 'Shout, then write.', { type: 'object', properties: { text: { type: 'string' } } }, {
      steps: [{ name: 'loud', tool: 'shout', inputMapping: { text: '$input.text' } }],
      outputSchema: { type: 'object', properties: { loud: { type: 'string' } } },
      output: { loud: '$steps.loud' },
    });
    registry.set(composite.name, composite);
    list.set([...registry.values()]);
    const client = await connectInMemory(server);
    const { tools } = await client.listTools();
    const by = new Map(tools.map((t) => [t.name, t]));
    expect(by.get('shout')!.annotations).toEqual({ readOnlyHint: true });
    expect(by.get('write')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, title: 'Write' });
    expect(by.get('vague')!.annotations).toBeUndefined();
    // An upstream outputSchema is served where the result still matches it, not once it may be a preview.
    expect(by.get('stats')!.outputSchema).toMatchObject({ properties: { files: { type: 'number' } } });
    expect(by.get('stats_preview')!.outputSchema).toBeUndefined();
    // A composite's own outputSchema holds (its output is checked against it), and it is pure here.
    expect(by.get('shout_twice')).toMatchObject({ outputSchema: { properties: { loud: { type: 'string' } } }, annotations: { readOnlyHint: true } });
    expect((await call(client, 'shout_twice', { text: 'a' })).structuredContent).toEqual({ loud: 'A' });
    // compose's schema reaches the client whole: one self-contained object with every kind's fields, no root union.
    const compose = by.get('compose')!.inputSchema as Record<string, unknown>;
    expect(compose).not.toHaveProperty('anyOf');
    expect(Object.keys(compose.properties as object)).toEqual(expect.arrayContaining(['combinator', 'tool', 'calls', 'stages', 'do', 'intent']));
    expect(JSON.stringify(compose)).toContain('"$ref":"#"');
    expect(by.get('run_pipeline')!.inputSchema).toMatchObject({ required: ['steps'] });
  });

  it('grades a composite as the registry stands when listed', async () => {
    let pure = true;
    const flip: ITool = { ...tool('flip', () => 'x', { hasSideEffects: true }), get hasSideEffects() { return !pure; } };
    const { server } = serve([flip]);
    const client = await connectInMemory(server);
    expect((await client.listTools()).tools.find((t) => t.name === 'flip')!.annotations).toEqual({ readOnlyHint: true });
    pure = false;
    expect((await client.listTools()).tools.find((t) => t.name === 'flip')!.annotations).toEqual({ readOnlyHint: false });
  });

  it('tells the client when the tool list changes', async () => {
    const { server, list } = serve([shout]);
    const client = await connectInMemory(server);
    const told = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    list.set([...list.current(), count]);
    await told;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('count');
  });
});

describe('tools/call', () => {
  it('a string output is one text part; an object is JSON text plus structuredContent', async () => {
    const client = await connectInMemory(serve([shout, count]).server);
    expect(await call(client, 'shout', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'HI' }] });
    expect(await call(client, 'count', { text: 'four' })).toEqual({ content: [{ type: 'text', text: '{"chars":4}' }], structuredContent: { chars: 4 } });
  });

  it('keeps an upstream structured result that matches its schema, and other parts as parts', async () => {
    const plain = createPlainServer();
    const upstream = await mcpTools(await connectInMemory(plain.server));
    const client = await connectInMemory(serve(upstream).server);
    // The SDK client checks structuredContent against the listed outputSchema: this passes it.
    expect((await call(client, 'stats', {})).structuredContent).toEqual({ files: 3, lines: 40 });
    expect((await call(client, 'picture', {})).content).toEqual([{ type: 'text', text: 'a red dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]);
    // The client called the tool itself: its own code shows, not the gate's step_failed around it.
    expect(await call(client, 'fail', {})).toEqual({ content: [{ type: 'text', text: 'error tool_error: the disk is full' }], isError: true, _meta: { 'toolweave/code': 'tool_error' } });
  });

  it('a failure is isError with its code and message; a tool that throws does not take the server down', async () => {
    const client = await connectInMemory(serve([shout, boom]).server);
    const failed = await call(client, 'boom', {});
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: expect.stringMatching(/^error step_threw: .*kaboom/u) }]);
    expect(failed._meta).toEqual({ 'toolweave/code': 'step_threw' });
    expect((await call(client, 'shout', { text: 'still here' })).content).toEqual([{ type: 'text', text: 'STILL HERE' }]);
  });

  it('an unknown tool is step_missing, naming the closest tools', async () => {
    const client = await connectInMemory(serve([shout]).server);
    const result = await call(client, 'shuot', {});
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^error step_missing: No tool named "shuot".*did you mean shout\?/u);
  });

  it('puts effects and the trace in _meta', async () => {
    const written: string[] = [];
    const write = tool('write', (args) => {
      written.push(String(args.text));
      return 'ok';
    }, { hasSideEffects: true });
    const { server, registry, list } = serve([shout, write]);
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n) }));
    builder.bind({ sideEffectingTools: ['write'] });
    const composite = builder.build('shout_and_write', 'Shout, then write it.', { type: 'object', properties: { text: { type: 'string' } } }, {
      steps: [
        { name: 'loud', tool: 'shout', inputMapping: { text: '$input.text' } },
        { name: 'saved', tool: 'write', inputMapping: { text: '$steps.loud' } },
      ],
    });
    registry.set(composite.name, composite);
    list.set([...registry.values()]);
    const client = await connectInMemory(server);
    const result = await call(client, 'shout_and_write', { text: 'hey' });
    expect(written).toEqual(['HEY']);
    expect(result._meta).toMatchObject({
      'toolweave/effects': [{ step: 'saved', tool: 'write', ran: true, outcome: 'ran' }],
      'toolweave/trace': [{ step: 'loud', tool: 'shout', ok: true }, { step: 'saved', tool: 'write', ok: true }],
    });
  });

  it('reports progress for each step of a pipeline, "n/total tool ok"', async () => {
    const client = await connectInMemory(serve([shout, count]).server);
    const messages: string[] = [];
    await client.callTool(
      { name: 'run_pipeline', arguments: { steps: [{ tool: 'shout', args: { text: 'a' } }, { tool: 'count', args: { text: 'bb' } }, { tool: 'nope', args: {} }], stop_on_error: false } },
      undefined,
      { onprogress: (progress) => messages.push(`${progress.progress}:${progress.message}`) },
    );
    // The pipeline is refused before it runs: a step names an unknown tool. Only that refusal is
    // reported, with its code; nothing ran. Now a good one.
    expect(messages).toEqual(['1:1/3 nope step_missing']);
    messages.length = 0;
    await client.callTool(
      { name: 'run_pipeline', arguments: { steps: [{ tool: 'shout', args: { text: 'a' } }, { tool: 'count', args: { text: 'bb' } }, { tool: 'shout', args: { text: 'c' } }] } },
      undefined,
      { onprogress: (progress) => messages.push(`${progress.progress}/${progress.total}:${progress.message}`) },
    );
    expect(messages).toEqual(['1/3:1/3 shout ok', '2/3:2/3 count ok', '3/3:3/3 shout ok']);
  });

  it('a cancelled call starts nothing more, and what it did reaches the client’s log', async () => {
    const started: number[] = [];
    const slowWrite = tool('slow_write', async () => {
      started.push(Date.now());
      await sleep(80);
      return 'written';
    }, { hasSideEffects: true });
    const client = await connectInMemory(serve([slowWrite], { sideEffectingTools: ['slow_write'] }).server);
    const logged = new Promise<unknown>((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params.data)));
    const controller = new AbortController();
    let cancelledAt = 0;
    const steps = Array.from({ length: 8 }, () => ({ tool: 'slow_write', args: {} }));
    const running = client.callTool({ name: 'run_pipeline', arguments: { steps } }, undefined, {
      signal: controller.signal,
      onprogress: (progress) => {
        if (progress.progress === 2) {
          cancelledAt = Date.now();
          controller.abort('enough');
        }
      },
    });
    await expect(running).rejects.toThrow(/enough/u);
    const data = (await logged) as { cancelled: string; effects: { tool: string; ran: boolean }[] };
    expect(data.cancelled).toBe('run_pipeline');
    expect(data.effects.length).toBe(started.length);
    expect(data.effects.every((e) => e.tool === 'slow_write' && e.ran)).toBe(true);
    await sleep(200);
    expect(started.length).toBeLessThanOrEqual(3);
    expect(started.filter((at) => at > cancelledAt)).toEqual([]);
  });
});

describe('approvals through elicitation', () => {
  function approvingClient(answer: (request: ElicitRequest) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }, server: Server) {
    const asked: string[] = [];
    return connectInMemory(server, { elicitation: {} }).then((client) => {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(String(request.params.message));
        return answer(request);
      });
      return { client, asked };
    });
  }

  it('asks the person once per side-effecting call, nested or direct, showing what the model chose', async () => {
    const written: string[] = [];
    const write = tool('write', (args) => {
      written.push(String(args.text));
      return 'ok';
    }, { hasSideEffects: true });
    const { server } = serve([shout, write], { approvals: true, sideEffectingTools: ['write'] });
    const { client, asked } = await approvingClient(() => ({ action: 'accept', content: { approve: true } }), server);
    const result = await call(client, 'run_pipeline', { steps: [{ id: 'loud', tool: 'shout', args: { text: 'x' } }, { id: 'save', tool: 'write', args: { text: 'note' } }] });
    expect(result.isError).toBeUndefined();
    expect(written).toEqual(['note']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Tool: write');
    expect(asked[0]).toContain('Step (chosen by the model): "save"');
    expect(asked[0]).toContain('Through: run_pipeline');
    expect(asked[0]).toContain('Arguments (chosen by the model), 1 field:\n  "text": "note"');
    await call(client, 'write', { text: 'direct' });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain('Through: a direct call from the client');
    expect(written).toEqual(['note', 'direct']);
  });

  it('a no, a decline or a dismissal refuses the call with approval_rejected; nothing runs', async () => {
    const written: string[] = [];
    const write = tool('write', (args) => void written.push(String(args.text)), { hasSideEffects: true });
    for (const answer of [{ action: 'accept' as const, content: { approve: false } }, { action: 'decline' as const }, { action: 'cancel' as const }]) {
      const { server } = serve([write], { approvals: true });
      const { client } = await approvingClient(() => answer, server);
      const result = await call(client, 'write', { text: 'x' });
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/^error approval_rejected: The person at the client (answered no to|declined|dismissed) the call to "write"/u);
    }
    expect(written).toEqual([]);
  });

  it('a client without elicitation gets the call refused, saying why', async () => {
    const write = tool('write', () => 'ok', { hasSideEffects: true });
    const { server } = serve([write, shout], { approvals: true });
    const client = await connectInMemory(server);
    const result = await call(client, 'write', { text: 'x' });
    expect((result.content[0] as { text: string }).text).toMatch(/^error approval_rejected: .*does not support elicitation/u);
    // Pure tools need no approval.
    expect((await call(client, 'shout', { text: 'ok' })).isError).toBeUndefined();
  });
});
