import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ToolEvent } from '../../src/tool-events.js';
import { delay, registry, tool } from '../helpers/tools.js';

describe('context.onEvent hears every call under the context, through every door', () => {
  it('a composite: each step starts and ends, with its verdict and time', async () => {
    const read = tool('read', async () => (await delay(5), 'text'));
    const fail = tool('fail', () => ({ success: false, error: 'no', details: { code: 'E_NO' } }));
    const reg = registry(read, fail);
    const builder = new ComposableToolBuilder(reg.gate());
    const events: ToolEvent[] = [];
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ name: 'first', tool: 'read', inputMapping: {} }, { name: 'second', tool: 'fail', inputMapping: {} }] });
    await composite.execute({}, { onEvent: (e) => events.push(e) });
    expect(events.map((e) => [e.type, e.tool, e.step, e.type === 'call_ended' ? e.ok : null, e.type === 'call_ended' ? e.code ?? null : null])).toEqual([
      ['call_started', 'read', 'first', null, null],
      ['call_ended', 'read', 'first', true, null],
      ['call_started', 'fail', 'second', null, null],
      ['call_ended', 'fail', 'second', false, 'step_failed'],
    ]);
    expect(events[1]).toMatchObject({ door: 'composite', path: ['toolweave:c'] });
    expect((events[1] as { ms: number }).ms).toBeGreaterThanOrEqual(4);
  });

  it("an end carries a failure's message, never a success's", async () => {
    const odd = tool('odd', () => ({ success: true, output: 1, error: 'not an error', details: { code: 'E_ODD' } }));
    const bare = tool('bare', () => ({ success: false, error: 'no' }));
    const plain = tool('plain', () => 'text');
    const events: ToolEvent[] = [];
    const gate = registry(odd, bare, plain).gate();
    await gate.run(plain, {}, { onEvent: (e) => events.push(e) });
    await gate.run(odd, {}, { onEvent: (e) => events.push(e) });
    await gate.run(bare, {}, { onEvent: (e) => events.push(e) }, undefined, { step: 'mine' });
    const ended = events.filter((e) => e.type === 'call_ended');
    expect(ended.map((e) => ({ ...e, ms: 0 }))).toStrictEqual([
      { type: 'call_ended', tool: 'plain', step: 'plain', path: [], ok: true, ms: 0 },
      { type: 'call_ended', tool: 'odd', step: 'odd', path: [], ok: true, code: 'E_ODD', ms: 0 },
      { type: 'call_ended', tool: 'bare', step: 'mine', path: [], ok: false, code: 'step_failed', error: 'no', ms: 0 },
    ]);
  });

  it('a script calling compose: the script call and the nested ones, and refusals too', async () => {
    const read = tool('read', () => 'text');
    const reg = registry(read);
    const gate = reg.gate({ permissionManager: { isExecutionAllowed: (t, a) => ({ isAllowed: a.path !== 'secret' }) } });
    reg.add(createComposeTool(gate));
    const script = createScriptTool(gate);
    const events: ToolEvent[] = [];
    const result = await script.execute(
      { intention: 'x', code: "await callTool('read', { path: 'a' }); await callTool('compose', { combinator: 'gather', calls: { b: { tool: 'read', args: { path: 'b' } }, s: { tool: 'read', args: { path: 'secret' } } } }); return 'done';" },
      { onEvent: (e) => events.push(e) },
    );
    expect(result.success).toBe(true);
    const ended = events.filter((e) => e.type === 'call_ended') as Extract<ToolEvent, { type: 'call_ended' }>[];
    const seen = ended.map((e) => [e.tool, e.door, e.ok, e.code ?? null]);
    expect(seen[0]).toEqual(['read', 'run_js', true, null]);
    // The gather's two calls end in either order.
    expect(seen.slice(1, 3)).toEqual(expect.arrayContaining([['read', 'compose', true, null], ['read', 'compose', false, 'permission_denied']]));
    expect(seen[3]).toEqual(['compose', 'run_js', false, 'step_failed']);
  });

  it('calls a door refuses before the gate runs them: the tool, the door, the step, the code and why', async () => {
    const read = tool('read', () => 'text');
    const write = tool('write', () => 'written', { hasSideEffects: true });
    const reg = registry(read, write);
    const gate = reg.gate();
    const events: ToolEvent[] = [];
    const onEvent = (e: ToolEvent) => events.push(e);
    const refusedOnes = () => events.filter((e): e is Extract<ToolEvent, { type: 'call_ended' }> => e.type === 'call_ended' && !e.ok);

    // A script: the chainability rule refuses the call, and the script goes on.
    await createScriptTool(gate).execute({ code: "await callTool('write', {}); await callTool('nope', {}); return 'done';" }, { onEvent });
    expect(refusedOnes()).toEqual([
      { type: 'call_ended', tool: 'write', step: 'call 1', door: 'run_js', path: [], ok: false, code: 'step_not_chainable', error: expect.stringMatching(/^Tool "write" has side effects/u), ms: 0 },
      { type: 'call_ended', tool: 'nope', step: 'call 2', door: 'run_js', path: [], ok: false, code: 'step_missing', error: 'No tool named "nope" is registered.', ms: 0 },
    ]);

    // A pipeline is refused whole before any step runs: the refused step is told, and no other.
    events.length = 0;
    const pipeline = await createRunPipelineTool(gate).execute({ steps: [{ tool: 'read', args: {} }, { tool: 'write', args: {} }] }, { onEvent });
    expect(pipeline.details?.code).toBe('step_not_chainable');
    expect(refusedOnes()).toEqual([
      expect.objectContaining({ type: 'call_ended', tool: 'write', step: 'step_2', door: 'run_pipeline', ok: false, code: 'step_not_chainable', error: expect.stringMatching(/^step_2: Tool "write" has side effects/u) }),
    ]);
    expect(events.filter((e) => e.type === 'call_started')).toEqual([]);

    // A composite whose step's tool became side-effecting after it was built: refused at run time.
    events.length = 0;
    reg.add(tool('swap', () => 'ok'));
    const composite = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, { steps: [{ name: 'first', tool: 'swap', inputMapping: {} }] });
    reg.add(tool('swap', () => 'ok', { hasSideEffects: true }));
    await composite.execute({}, { onEvent });
    expect(events).toEqual([
      { type: 'call_ended', tool: 'swap', step: 'first', door: 'composite', path: ['toolweave:c'], ok: false, code: 'step_not_chainable', error: expect.stringMatching(/^Tool "swap" has side effects/u), ms: 0 },
    ]);
  });

  it('a listener that throws changes nothing', async () => {
    const read = tool('read', () => 'text');
    const builder = new ComposableToolBuilder(registry(read).gate());
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'read', inputMapping: {} }] });
    const result = await composite.execute({}, {
      onEvent: () => {
        throw new Error('listener broke');
      },
    });
    expect(result).toMatchObject({ success: true, output: 'text' });
  });

  it('a call refused before the gate ran it is heard too: its end, with the refusal\'s code', async () => {
    const write = tool('write', () => 'written', { hasSideEffects: true });
    const reg = registry(tool('read', () => 'text'), write);
    const gate = reg.gate();
    const events: ToolEvent[] = [];
    const onEvent = (e: ToolEvent) => events.push(e);
    await createRunPipelineTool(gate).execute({ steps: [{ id: 'r', tool: 'read' }, { id: 'w', tool: 'write' }] }, { onEvent });
    await createScriptTool(gate).execute({ code: "await callTool('run_js', {}); await callTool('nope', {}); return 1;" }, { onEvent });
    expect(events.map((e) => [e.type, e.tool, e.step, e.door, e.type === 'call_ended' ? e.code : null])).toEqual([
      ['call_ended', 'write', 'w', 'run_pipeline', 'step_not_chainable'],
      ['call_ended', 'run_js', 'call 1', 'run_js', 'pipeline_self_call'],
      ['call_ended', 'nope', 'call 2', 'run_js', 'step_missing'],
    ]);
    expect(write.calls).toEqual([]);
  });
});
