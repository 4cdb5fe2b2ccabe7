import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ApprovalAction } from '../../src/gate/step-gate.js';
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
