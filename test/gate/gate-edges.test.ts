/**
 * What the gate tells and how its limits read, at their edges: events of refused and direct
 * calls, the composition path through doors that are not compositions, interactive tools under a
 * script inside a script, limits a host gives wrongly, a call that waited for its place and then
 * hangs, and schemas of both JSON Schema drafts.
 */
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { argsRefusal } from '../../src/gate/stages/arguments.js';
import type { ToolCallEnded, ToolEvent } from '../../src/tool-events.js';
import type { ITool } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

describe('events', () => {
  it('a direct call: no door, an empty path, a time from its start, and no code on success', async () => {
    const t = tool('t', async () => (await delay(5), 'ok'));
    const events: ToolEvent[] = [];
    await registry(t).gate().run(t, {}, { onEvent: (e) => events.push(e) }, undefined, { step: 'one' });
    expect(events.map((e) => e.type)).toEqual(['call_started', 'call_ended']);
    const ended = events[1] as ToolCallEnded;
    expect(ended).toMatchObject({ tool: 't', step: 'one', path: [], ok: true });
    expect('door' in ended).toBe(false);
    expect('code' in ended).toBe(false);
    expect(ended.ms).toBeGreaterThanOrEqual(4);
    expect(ended.ms).toBeLessThan(5000);
  });

  it('a call refused before it started takes 0 ms and carries its code and why', async () => {
    const t = tool('t', () => 'ok');
    const controller = new AbortController();
    controller.abort();
    const events: ToolEvent[] = [];
    await registry(t).gate().run(t, {}, { onEvent: (e) => events.push(e), signal: controller.signal });
    expect(events).toEqual([{ type: 'call_ended', tool: 't', step: 't', path: [], ok: false, code: 'step_aborted', error: expect.any(String), ms: 0 }]);
    const refused: ToolEvent[] = [];
    await registry(t).gate({ checks: [() => ({ isAllowed: false })] }).run(t, {}, { onEvent: (e) => refused.push(e) });
    expect(refused).toEqual([{ type: 'call_ended', tool: 't', step: 't', path: [], ok: false, code: 'permission_denied', error: 'Permission denied for tool "t".', ms: 0 }]);
    expect(t.calls).toHaveLength(0);
  });

  it('a listener that is not a function is ignored, and one that throws cannot change the run', async () => {
    const t = tool('t', () => 'ok');
    const gate = registry(t).gate();
    expect(await gate.run(t, {}, { onEvent: 'not a function' as never })).toEqual({ success: true, output: 'ok' });
    const throwing = () => {
      throw new Error('listener down');
    };
    expect(await gate.run(t, {}, { onEvent: throwing })).toEqual({ success: true, output: 'ok' });
  });
});

describe('the composition path through doors that are not compositions', () => {
  it('a composite calling run_pipeline that calls the composite again is a cycle', async () => {
    const log = tool('log', (a) => a, { hasSideEffects: true });
    const reg = registry(log);
    const gate = reg.gate();
    reg.add(createRunPipelineTool(gate, { sideEffectingTools: ['log', 'outer'] }));
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['log', 'run_pipeline'] });
    const outer = builder.build('outer', 'outer', { type: 'object' }, {
      steps: [
        { tool: 'log', inputMapping: { from: 'outer' } },
        { tool: 'run_pipeline', inputMapping: { steps: [{ tool: 'outer', args: {} }] } },
      ],
    });
    reg.add(outer as ITool);
    const result = await outer.execute({}, {});
    expect(result.success).toBe(false);
    expect(JSON.stringify(result)).toContain('composition_cycle');
    expect(log.calls).toEqual([{ from: 'outer' }]);
  });

  it('a tool under a pipeline gets a path array of the run, which it may change without harm to the next run', async () => {
    const seen: unknown[] = [];
    const grab = tool('grab', (_a, context) => {
      const path = context.sessionData?.compositionPath as string[];
      seen.push([...path]);
      path.push('written by the tool');
      return 'ok';
    });
    const reg = registry(grab);
    const pipeline = createRunPipelineTool(reg.gate());
    for (let i = 0; i < 2; i++) {
      const result = await pipeline.execute({ steps: [{ tool: 'grab', args: {} }, { tool: 'grab', args: {} }] }, {});
      expect(result.success).toBe(true);
    }
    // The steps of one run share the run's path; each run starts from an empty one.
    expect(seen).toEqual([[], ['written by the tool'], [], ['written by the tool']]);
    const underComposite = await pipeline.execute({ steps: [{ tool: 'grab', args: {} }] }, { sessionData: { compositionPath: ['toolweave:host'] } });
    expect(underComposite.success).toBe(true);
    expect(seen[4]).toEqual(['toolweave:host']);
  });
});

describe('interactive tools under a script inside a script', () => {
  it('the outer script forbids what it forbids, whatever the inner one lists', async () => {
    const deploy = tool('deploy_prompt', () => 'asked');
    const reg = registry(deploy);
    const gate = reg.gate();
    const outer = createScriptTool(gate, { interactiveTools: ['deploy_prompt'] });
    const inner = { ...createScriptTool(gate, { interactiveTools: ['something_else'] }), name: 'inner_js', id: 'inner_js' };
    reg.add(inner as ITool);
    const result = await outer.execute({
      intention: 'nest',
      code: "const r = await callTool('inner_js', { intention: 'ask', code: \"const x = await callTool('deploy_prompt', {}); return x.error ? x.error.code : 'ran';\" }); return r;",
    }, {});
    expect(JSON.stringify(result)).toContain('tool_interactive');
    expect(deploy.calls).toEqual([]);
  });
});

describe('limits a host gives wrongly take their defaults', () => {
  it.each([
    ['zero', { calls: 0, inFlight: 0, sandboxes: 0 }],
    ['negative', { calls: -1, inFlight: -5, sandboxes: -1 }],
    ['not finite', { calls: Number.NaN, inFlight: Number.POSITIVE_INFINITY, sandboxes: Number.NaN }],
    ['fractions below one', { calls: 0.5, inFlight: 0.9, sandboxes: 0.1 }],
    ['not numbers', { calls: '3', inFlight: null, sandboxes: {} } as never],
  ])('%s', async (_, budget) => {
    const t = tool('t', (a) => a.n);
    const reg = registry(t);
    const compose = createComposeTool(reg.gate({ budget }));
    const calls = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`c${i}`, { tool: 't', args: { n: i } }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result).toMatchObject({ success: true, output: { c0: 0, c5: 5 } });
  });

  it('a fraction above one is rounded down', async () => {
    const t = tool('t', (a) => a.n);
    const reg = registry(t);
    const compose = createComposeTool(reg.gate({ budget: { calls: 3.9 } }));
    const calls = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`c${i}`, { tool: 't', args: { n: i } }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'calls', value: 3 });
  });
});

describe('a call that waited for its place', () => {
  it('and then hangs ends with step_timeout, not as if it were still waiting', async () => {
    const quick = tool('quick', async () => (await delay(20), 'quick'));
    const hang = tool('hang', () => new Promise(() => {}));
    const reg = registry(quick, hang);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }));
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ combinator: 'gather', calls: { a: { tool: 'quick', inputMapping: {}, timeoutMs: 2000 }, b: { tool: 'hang', inputMapping: {}, timeoutMs: 300 } } }],
    });
    const result = await composite.execute({}, {});
    expect(result.details).toMatchObject({ code: 'step_timeout', tool: 'hang' });
    expect(hang.calls).toHaveLength(1);
  });

  it('and never got it ends with budget_exceeded, saying how long it waited', async () => {
    const slow = tool('slow', async () => (await delay(400), 'slow'));
    const reg = registry(slow);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }));
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {}, timeoutMs: 2000 }, b: { tool: 'slow', inputMapping: {}, timeoutMs: 50 } } }],
    });
    const result = await composite.execute({}, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'inFlight', value: 1 });
    expect(result.error).toContain('Tool "slow" waited 50 ms for a free place and did not start: the call\'s budget allows 1 calls at once.');
    expect(slow.calls).toHaveLength(1);
  });
});

describe('arguments against schemas of both drafts', () => {
  const withSchema = (inputSchema: Record<string, unknown>): ITool => tool('t', () => 'ok', { hasSideEffects: false, inputSchema });

  it('a 2020-12 schema is read as 2020-12 (prefixItems), a draft-07 one as draft-07 (items as a tuple)', () => {
    const modern = withSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } });
    expect(argsRefusal(modern, 't', 's', { pair: [1] })?.details).toMatchObject({ code: 'args_invalid', field: 'pair.0' });
    expect(argsRefusal(modern, 't', 's', { pair: ['a'] })).toBeUndefined();
    const classic = withSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } });
    expect(argsRefusal(classic, 't', 's', { pair: [1] })?.details).toMatchObject({ code: 'args_invalid', field: 'pair.0' });
    const unstated = withSchema({ type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } });
    expect(argsRefusal(unstated, 't', 's', { pair: [1] })?.details).toMatchObject({ code: 'args_invalid' });
  });

  it('names a field whose name holds / or ~ as written, and the arguments themselves as (arguments)', () => {
    const t = withSchema({ type: 'object', maxProperties: 2, properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } } });
    const refusal = argsRefusal(t, 'tool_name', 'step_name', { 'a/b': 1, 'c~d': 2, e: 3 });
    expect(refusal?.details).toMatchObject({ code: 'args_invalid', tool: 'tool_name', step: 'step_name', fields: ['(arguments)', 'a/b', 'c~d'] });
    expect(refusal?.error).toBe(
      'Step "step_name": the arguments of tool "tool_name" do not match its inputSchema: (arguments) must NOT have more than 2 properties (got {"a/b":1,"c~d":2,"e":3}); a/b must be string (got 1); c~d must be string (got 2). Fix the arguments and call again.',
    );
  });

  it('a schema ajv cannot compile is not checked', () => {
    const broken = withSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    expect(argsRefusal(broken, 't', 's', { a: 1 })).toBeUndefined();
  });
});
