import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const asked: ApprovalAction[] = [];
  const write = tool('write_file', () => 'written', { hasSideEffects: true });
  const reg = registry(write);
  const gate = reg.gate({ approvals: { requestApproval: (a) => (asked.push(a), { approved: true }) } });
  const options = { sideEffectingTools: ['write_file'] };
  return { asked, reg, gate, options, write };
}

describe('approval requests carry their caller', () => {
  it('a composite: the door, its name and the composition path; only the args come from the caller', async () => {
    const { asked, gate, options } = setup();
    const builder = new ComposableToolBuilder(gate);
    builder.bind(options);
    await builder.build('save', 'save', { type: 'object' }, { steps: [{ name: 'write', tool: 'write_file', inputMapping: { path: '$input.path' } }] }).execute({ path: 'a' }, {});
    expect(asked).toEqual([
      { toolId: 'test:write_file', toolName: 'write_file', step: 'write', args: { path: 'a' }, caller: { door: 'composite', composite: 'save', path: ['toolweave:save'], modelChosen: ['args'] } },
    ]);
  });

  it('run_pipeline and compose: the step names are the model\'s', async () => {
    const { asked, gate, options } = setup();
    await createRunPipelineTool(gate, options).execute({ steps: [{ id: 'looks_harmless', tool: 'write_file', args: { path: 'b' } }] }, {});
    await createComposeTool(gate, options).execute({ combinator: 'gather', calls: { harmless: { tool: 'write_file', args: { path: 'c' } } } }, {});
    expect(asked.map((a) => [a.step, a.caller])).toEqual([
      ['looks_harmless', { door: 'run_pipeline', path: [], modelChosen: ['step', 'args'] }],
      ['tree.calls.harmless', { door: 'compose', path: [], modelChosen: ['step', 'args'] }],
    ]);
  });

  it('run_js: the intention, marked as the model\'s', async () => {
    const { asked, gate, options } = setup();
    const result = await createScriptTool(gate, options).execute({ intention: 'tidy up the notes', code: "await callTool('write_file', { path: 'd' }); return 'ok';" }, {});
    expect(result.success).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolName: 'write_file', args: { path: 'd' }, caller: { door: 'run_js', intention: 'tidy up the notes', modelChosen: ['intention', 'args'] } });
  });

  it('a direct call through the gate carries no caller', async () => {
    const { asked, gate, write } = setup();
    await gate.run(write, { path: 'e' }, {});
    expect(asked).toEqual([{ toolId: 'test:write_file', toolName: 'write_file', step: 'write_file', args: { path: 'e' } }]);
  });
});

describe('one prompt per effect', () => {
  it('a step that is itself a side-effecting composition is not asked about; its leaf side-effecting steps are', async () => {
    const { asked, reg, gate, options } = setup();
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: [...options.sideEffectingTools, 'save_twice'] });
    const inner = builder.build('save_twice', 'save twice', { type: 'object' }, {
      steps: [{ name: 'one', tool: 'write_file', inputMapping: { path: 'x' } }, { name: 'two', tool: 'write_file', inputMapping: { path: 'y' } }],
    });
    reg.add(inner as ITool);
    expect(inner.hasSideEffects).toBe(true);
    const outer = builder.build('outer', 'outer', { type: 'object' }, { steps: [{ name: 'nested', tool: 'save_twice', inputMapping: {} }] });
    const result = await outer.execute({}, {});
    expect(result.success).toBe(true);
    expect(asked.map((a) => [a.toolName, a.step, a.caller?.path])).toEqual([
      ['write_file', 'one', ['toolweave:outer', 'toolweave:save_twice']],
      ['write_file', 'two', ['toolweave:outer', 'toolweave:save_twice']],
    ]);
  });
});

describe('an approval knows whose call it is', () => {
  it('is given the context the call would run with', async () => {
    const seen: unknown[] = [];
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const gate = registry(write).gate({ approvals: { requestApproval: (_a, context) => (seen.push(context.sessionId), { approved: true }) } });
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['write_file'] });
    await pipeline.execute({ steps: [{ tool: 'write_file', args: {} }] }, { sessionId: 'session-9' });
    expect(seen).toEqual(['session-9']);
  });
});

describe('a person is asked only about a call that can still run', () => {
  function asking(extra: { budget?: { calls: number } } = {}, answer: () => boolean = () => true) {
    const asked: ApprovalAction[] = [];
    const signals: (AbortSignal | undefined)[] = [];
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const reg = registry(write);
    const gate = reg.gate({
      ...extra,
      approvals: { requestApproval: (action, context) => (asked.push(action), signals.push(context.signal), { approved: answer() }) },
    });
    return { asked, signals, reg, gate, write };
  }

  it('a call aborted before it starts is refused without asking', async () => {
    const { asked, gate, write } = asking();
    const controller = new AbortController();
    controller.abort();
    const direct = await gate.run(write, { path: 'a' }, {}, controller.signal);
    const viaContext = await gate.run(write, { path: 'b' }, { signal: controller.signal });
    expect([direct.details?.code, viaContext.details?.code]).toEqual(['step_aborted', 'step_aborted']);
    expect(asked).toEqual([]);
    expect(write.calls).toEqual([]);
  });

  it('the step after a composite was aborted is not asked about', async () => {
    const controller = new AbortController();
    const stop = tool('stop', () => (controller.abort(), 'stopped'), { hasSideEffects: false });
    const { asked, reg, gate, write } = asking();
    reg.add(stop);
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['write_file'] });
    const composite = builder.build('stop_then_write', 'x', { type: 'object' }, {
      steps: [{ name: 'stop', tool: 'stop', inputMapping: {} }, { name: 'write', tool: 'write_file', inputMapping: { path: 'a' } }],
    });
    const result = await composite.execute({}, { signal: controller.signal });
    expect(result.success).toBe(false);
    expect(asked).toEqual([]);
    expect(write.calls).toEqual([]);
  });

  it('three writes started together with budget left for one: the person is asked once', async () => {
    const { asked, gate, write } = asking({ budget: { calls: 1 } });
    const script = createScriptTool(gate, { sideEffectingTools: ['write_file'] });
    const code = "const all = await Promise.all(['a', 'b', 'c'].map((path) => callTool('write_file', { path }))); return all.map((r) => r.error ? r.error.code : 'ok');";
    const result = await script.execute({ code }, {});
    expect(JSON.parse(String(result.output)).sort()).toEqual(['budget_exceeded', 'budget_exceeded', 'ok']);
    expect(asked).toHaveLength(1);
    expect(write.calls).toHaveLength(1);
  });

  it('a call the person refused still counts against the budget, so a model cannot ask without end', async () => {
    const { asked, gate } = asking({ budget: { calls: 2 } }, () => false);
    const script = createScriptTool(gate, { sideEffectingTools: ['write_file'] });
    const code = "const codes = []; for (const path of ['a', 'b', 'c']) { const r = await callTool('write_file', { path }); codes.push(r.error.code); } return codes;";
    const result = await script.execute({ code }, {});
    expect(JSON.parse(String(result.output))).toEqual(['approval_rejected', 'approval_rejected', 'budget_exceeded']);
    expect(asked).toHaveLength(2);
  });

  it('a call aborted while the person was asked does not run, whatever the answer', async () => {
    const controller = new AbortController();
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const gate = registry(write).gate({ approvals: { requestApproval: () => (controller.abort(), { approved: true }) } });
    const result = await gate.run(write, { path: 'a' }, {}, controller.signal);
    expect(result.details?.code).toBe('step_aborted');
    expect(write.calls).toEqual([]);
  });

  it('the hook is given the call\'s own abort signal in its context, and the run\'s under a script', async () => {
    const { signals, gate, write } = asking();
    const controller = new AbortController();
    await gate.run(write, { path: 'a' }, {}, controller.signal);
    expect(signals[0]).toBe(controller.signal);
    const script = createScriptTool(gate, { sideEffectingTools: ['write_file'] });
    const host = new AbortController();
    await script.execute({ code: "await callTool('write_file', { path: 'b' }); return 1;" }, { signal: host.signal });
    // The script's run has a signal of its own, which fired when the run ended.
    expect(signals[1]).toBeInstanceOf(AbortSignal);
    expect(signals[1]).not.toBe(host.signal);
    expect(signals[1]!.aborted).toBe(true);
  });
});
