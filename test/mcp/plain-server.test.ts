/**
 * mcpTools against a server the tests define with the SDK (no annotations): structured content,
 * other parts, paging, cancellation, time-outs and a closed connection, each a result with a code.
 */
import { describe, expect, it } from 'vitest';
import { createComposeTool, createStepGate, createScriptTool, type ITool } from '../../src/index.js';
import { MAX_TOOL_LIST_PAGES, mcpTools } from '../../src/mcp/index.js';
import { createPlainServer } from './fixtures/plain-server.js';
import { connectInMemory, sleep } from './helpers.js';

async function plain(options: Parameters<typeof createPlainServer>[0] = {}) {
  const { server, log } = createPlainServer(options);
  const client = await connectInMemory(server);
  return { client, log, server };
}

const named = (tools: ITool[], name: string) => tools.find((t) => t.name === name)!;

describe('mcpTools against a server without annotations', () => {
  it('leaves every tool undeclared, trusted or not (no annotations reads as not read-only when trusted)', async () => {
    const { client } = await plain();
    for (const tool of await mcpTools(client)) expect('hasSideEffects' in tool).toBe(false);
    for (const tool of await mcpTools(client, { trustAnnotations: true })) expect(tool.hasSideEffects, tool.name).toBe(true);
    const overridden = await mcpTools(client, { tools: { echo: { hasSideEffects: false } } });
    expect(named(overridden, 'echo').hasSideEffects).toBe(false);
    expect('hasSideEffects' in named(overridden, 'sleep')).toBe(false);
  });

  it('an undeclared tool is refused in a script, and runs there once overridden as pure', async () => {
    const { client } = await plain();
    const code = `const r = await callTool('echo', { text: 'hi' }); return r.error ? r.error.code : r.text;`;
    for (const [options, expected] of [[{}, 'side_effects_undeclared'], [{ tools: { echo: { hasSideEffects: false } } }, 'hi']] as const) {
      const tools = await mcpTools(client, options);
      const script = createScriptTool(createStepGate({ resolve: (n) => tools.find((t) => t.name === n) }));
      expect((await script.execute({ intention: 'echo', code }, {})).output).toBe(expected);
    }
  });

  it('compose reads a text result that is JSON as its value, as run_js does: one rule for both', async () => {
    const { client } = await plain();
    const tools = await mcpTools(client, { tools: { echo: { hasSideEffects: false } } });
    const gate = createStepGate({ resolve: (n) => tools.find((t) => t.name === n) });
    const json = '{"files":["a.ts","b.ts"],"count":2}';
    const composed = await createComposeTool(gate).execute(
      { combinator: 'gather', calls: { listing: { tool: 'echo', args: { text: json } }, list: { tool: 'echo', args: { text: '[1,2]' } }, words: { tool: 'echo', args: { text: '{not json' } }, plain: { tool: 'echo', args: { text: 'hello' } } } },
      {},
    );
    const fromScript = await createScriptTool(gate).execute(
      { code: `return { listing: await tools.echo({ text: ${JSON.stringify(json)} }), list: await tools.echo({ text: '[1,2]' }), words: await tools.echo({ text: '{not json' }), plain: await tools.echo({ text: 'hello' }) };` },
      {},
    );
    expect(composed).toMatchObject({ success: true, output: { listing: { files: ['a.ts', 'b.ts'], count: 2 }, list: [1, 2], words: '{not json', plain: 'hello' } });
    expect(JSON.parse(fromScript.output as string)).toEqual(composed.output);
    // A later stage reads a part of it by path.
    const piped = await createComposeTool(gate).execute({ combinator: 'pipe', stages: [{ tool: 'echo', args: { text: json } }, { tool: 'echo', args: { text: 'first: {result.files.0}' } }] }, {});
    expect(piped).toMatchObject({ success: true, output: 'first: a.ts' });
  });

  it('keeps structured content as the output object, and other parts in details', async () => {
    const { client } = await plain();
    const tools = await mcpTools(client);
    expect(await named(tools, 'stats').execute({}, {})).toEqual({ success: true, output: { files: 3, lines: 40 } });
    const picture = await named(tools, 'picture').execute({}, {});
    expect(picture).toEqual({ success: true, output: 'a red dot', details: { mcpContent: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] } });
  });

  it('reads every page of tools/list, and stops a server that pages in a circle', async () => {
    const paged = await plain({ pageSize: 2 });
    expect((await mcpTools(paged.client)).map((t) => t.name)).toEqual(['echo', 'sleep', 'stats', 'picture', 'fail', 'refuse', 'crash']);
    const looping = await plain({ pageSize: 2, loopingCursor: true });
    const tools = await mcpTools(looping.client);
    // The first page, then the cursor seen once more: two pages, not MAX_TOOL_LIST_PAGES.
    expect(tools.map((t) => t.name)).toEqual(['echo', 'sleep', 'echo', 'sleep']);
    expect(MAX_TOOL_LIST_PAGES).toBeGreaterThan(2);
  });

  it('the context’s abort cancels the request: the server is told, the result is step_aborted', async () => {
    const { client, log } = await plain();
    const sleepTool = named(await mcpTools(client), 'sleep');
    const controller = new AbortController();
    const running = sleepTool.execute({ ms: 5000 }, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    const result = await running;
    expect(result.details?.code).toBe('step_aborted');
    await sleep(20);
    expect(log.cancelled).toEqual(['sleep']);
  });

  it('50 calls in flight on one signal raise no listener-leak warning, and its abort still cancels each', async () => {
    const { client, log } = await plain();
    const tools = await mcpTools(client);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const echoes = await Promise.all(Array.from({ length: 50 }, (_, i) => named(tools, 'echo').execute({ text: `${i}` }, { signal: controller.signal })));
      expect(echoes.map((r) => r.output)).toEqual(Array.from({ length: 50 }, (_, i) => `${i}`));
      const sleeping = Array.from({ length: 50 }, () => named(tools, 'sleep').execute({ ms: 5000 }, { signal: controller.signal }));
      await sleep(50);
      controller.abort();
      expect((await Promise.all(sleeping)).map((r) => r.details?.code)).toEqual(Array(50).fill('step_aborted'));
      await sleep(20);
      expect(log.cancelled).toEqual(Array(50).fill('sleep'));
      // Node emits the warning on the next tick of the loop.
      await sleep(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('a call past its timeout is step_timeout, and the server is told to stop', async () => {
    const { client, log } = await plain();
    const sleepTool = named(await mcpTools(client, { timeoutMs: 100 }), 'sleep');
    const result = await sleepTool.execute({ ms: 5000 }, {});
    expect(result).toMatchObject({ success: false, details: { code: 'step_timeout', server: 'plain', tool: 'sleep', mcpCode: -32001 } });
    await sleep(20);
    expect(log.cancelled).toEqual(['sleep']);
  });

  it('a closed connection is upstream_unavailable, for a call in flight and for the next one', async () => {
    const { client } = await plain();
    const tools = await mcpTools(client);
    const inFlight = named(tools, 'sleep').execute({ ms: 5000 }, {});
    await sleep(20);
    await client.close();
    expect((await inFlight).details?.code).toBe('upstream_unavailable');
    const next = await named(tools, 'echo').execute({ text: 'x' }, {});
    expect(next).toMatchObject({ success: false, details: { code: 'upstream_unavailable', server: 'plain', tool: 'echo' } });
  });

  it('a protocol error is upstream_error carrying the MCP code', async () => {
    const { client } = await plain();
    const result = await named(await mcpTools(client), 'refuse').execute({}, {});
    expect(result).toMatchObject({ success: false, details: { code: 'upstream_error', mcpCode: -32602, server: 'plain', tool: 'refuse' } });
    expect(result.error).toContain('refuse takes no calls today');
  });

  it('a tool that reports an error is tool_error with its text', async () => {
    const { client } = await plain();
    const result = await named(await mcpTools(client), 'fail').execute({}, {});
    expect(result).toEqual({ success: false, error: 'the disk is full', details: { code: 'tool_error', server: 'plain', tool: 'fail' } });
  });
});
