import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createStepGate } from '../../src/gate/step-gate.js';
import type { GateCheck } from '../../src/gate/host-hooks.js';
import type { StepGate } from '../../src/gate/options.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

/** The four doors over one gate, each asked to write `path` once. */
async function throughEveryDoor(gate: StepGate, reg: ReturnType<typeof registry>): Promise<Record<string, ToolExecutionResult>> {
  const options = { sideEffectingTools: ['write_file'] };
  const builder = new ComposableToolBuilder(gate);
  builder.bind(options);
  const composite = builder.build('save', 'save', { type: 'object' }, { steps: [{ tool: 'write_file', inputMapping: { path: '$input.path' } }] });
  const pipeline = createRunPipelineTool(gate, options);
  const compose = createComposeTool(gate, options);
  const script = createScriptTool(gate, options);
  for (const t of [pipeline, compose, script]) reg.add(t);
  return {
    composite: await composite.execute({ path: '/etc/passwd' }, {}),
    run_pipeline: await pipeline.execute({ steps: [{ tool: 'write_file', args: { path: '/etc/passwd' } }] }, {}),
    compose: await compose.execute({ tool: 'write_file', args: { path: '/etc/passwd' } }, {}),
    run_js: await script.execute({ intention: 'write', code: "const r = await callTool('write_file', { path: '/etc/passwd' }); return r.error && r.error.code;" }, {}),
  };
}

function writer() {
  return tool('write_file', (a) => `wrote ${String(a.path)}`, { hasSideEffects: true });
}

/** The host's policy: nothing under /etc is written. */
const noEtc: GateCheck = ({ args }) => (String(args.path).startsWith('/etc/') ? { isAllowed: false, reason: 'system files are read-only' } : { isAllowed: true });

describe('a check the host adds holds at every door', () => {
  it('through the checks option of createStepGate', async () => {
    const write = writer();
    const reg = registry(write);
    const gate = reg.gate({ checks: [noEtc] });
    const results = await throughEveryDoor(gate, reg);
    expect(write.calls).toEqual([]);
    for (const door of ['composite', 'run_pipeline', 'compose'] as const) {
      expect(results[door].success).toBe(false);
      expect(results[door].details).toMatchObject({ code: 'permission_denied', reason: 'system files are read-only' });
    }
    expect(results.run_js).toMatchObject({ success: true, output: 'permission_denied' });
  });

  it('through a wrapper that replaces run: a copy of the gate is driven through its own run', async () => {
    const write = writer();
    const reg = registry(write);
    const original = reg.gate();
    const wrapped: StepGate = {
      ...original,
      run: (t, args, context, signal, options) =>
        String(args.path).startsWith('/etc/')
          ? Promise.resolve({ success: false, error: 'system files are read-only', details: { code: 'permission_denied' } })
          : original.run(t, args, context, signal, options),
    };
    const results = await throughEveryDoor(wrapped, reg);
    expect(write.calls).toEqual([]);
    for (const door of ['composite', 'run_pipeline', 'compose'] as const) expect(results[door].details?.code).toBe('permission_denied');
    expect(results.run_js.output).toBe('permission_denied');
  });

  it('cannot be undone by changing the gate: a gate createStepGate made is frozen', () => {
    const gate = createStepGate({ resolve: () => undefined });
    expect(Object.isFrozen(gate)).toBe(true);
    expect(() => Object.assign(gate, { run: () => Promise.resolve({ success: true }) })).toThrow(TypeError);
  });

  it('asks every check in order after the permission check and before the approval, with the step', async () => {
    const asked: string[] = [];
    const write = writer();
    const reg = registry(write);
    const gate = reg.gate({
      permissionManager: { isExecutionAllowed: () => (asked.push('permission'), { isAllowed: true }) },
      checks: [
        ({ step }) => (asked.push(`first ${step}`), { isAllowed: true }),
        async ({ tool: t }) => (asked.push(`second ${t.name}`), { isAllowed: true }),
      ],
      approvals: { requestApproval: () => (asked.push('approval'), { approved: true }) },
    });
    expect((await gate.run(write, { path: 'a' }, {}, undefined, { step: 'save' })).success).toBe(true);
    expect(asked).toEqual(['permission', 'first save', 'second write_file', 'approval']);
  });
});

describe('the gate fails closed on a malformed decision', () => {
  const malformed: unknown[] = [{ isAllowed: 'false' }, 'deny', 1, {}, { isAllowed: 1 }, null, undefined, { isAllowed: 'true' }];

  it.each(malformed.map((d) => [JSON.stringify(d) ?? 'undefined', d]))('refuses a permission decision of %s', async (_, decision) => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => decision as never } });
    const result = await gate.run(t, {}, {});
    expect(result.details).toMatchObject({ code: 'permission_denied', reason: 'malformed decision' });
    expect(result.error).toMatch(/malformed/);
    expect(t.calls).toHaveLength(0);
  });

  it.each(malformed.map((d) => [JSON.stringify(d) ?? 'undefined', d]))('refuses a check answer of %s', async (_, decision) => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ checks: [() => decision as never] });
    expect((await gate.run(t, {}, {})).details?.code).toBe('permission_denied');
    expect(t.calls).toHaveLength(0);
  });

  it.each([{ approved: 'no' }, { approved: 'yes' }, {}, 'ok', 1, null])('refuses an approval of %j', async (decision) => {
    const w = writer();
    const gate = registry(w).gate({ approvals: { requestApproval: () => decision as never } });
    const result = await gate.run(w, {}, {});
    expect(result.details).toMatchObject({ code: 'approval_rejected', reason: 'malformed decision' });
    expect(w.calls).toHaveLength(0);
  });

  it('reads a refusal well formed when it is: its reason and details are kept', async () => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'ro', details: { policy: 'p' } }) } });
    expect((await gate.run(t, {}, {})).details).toMatchObject({ code: 'permission_denied', reason: 'ro', permission: { policy: 'p' } });
  });

  it('reports an approval hook that throws as an approval failure, not a permission refusal', async () => {
    const w = writer();
    const gate = registry(w).gate({
      approvals: {
        requestApproval: () => {
          throw new Error('approval service down');
        },
      },
    });
    const result = await gate.run(w, {}, {});
    expect(result.details?.code).toBe('approval_rejected');
    expect(result.error).toMatch(/approval service down/);
    expect(w.calls).toHaveLength(0);
  });

  it('refuses when a check throws', async () => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({
      checks: [
        () => {
          throw new Error('policy store down');
        },
      ],
    });
    const result = await gate.run(t, {}, {});
    expect(result.details?.code).toBe('permission_denied');
    expect(result.error).toMatch(/policy store down/);
  });
});

describe('a door declares the grade of what it can do, for good', () => {
  it('copies the host list: a side-effecting tool added later is still refused by a "pure" door', async () => {
    const write = writer();
    const reg = registry(write);
    const list = new Set<string>();
    const pipeline = createRunPipelineTool(reg.gate(), { sideEffectingTools: list });
    const compose = createComposeTool(reg.gate(), { sideEffectingTools: list });
    const script = createScriptTool(reg.gate(), { sideEffectingTools: list });
    const doors: ITool[] = [pipeline, compose, script];
    for (const door of doors) expect(door.hasSideEffects).toBe(false);
    list.add('write_file');
    expect((await pipeline.execute({ steps: [{ tool: 'write_file', args: {} }] }, {})).details?.code).toBe('step_not_chainable');
    expect((await compose.execute({ tool: 'write_file', args: {} }, {})).details?.code).toBe('step_not_chainable');
    expect((await script.execute({ intention: 'w', code: "return (await callTool('write_file', {})).error.code;" }, {})).output).toBe('step_not_chainable');
    expect(write.calls).toEqual([]);
  });
});
