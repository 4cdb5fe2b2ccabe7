/**
 * One step's call as a host and a model see it, at its edges: what a failure says and carries,
 * what a dry run and the trace record, what an undo is given and how it is listed, and a tool
 * that disappears between the run's check and its step.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ToolExecutionContext } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

function setup(options: { strictMode?: boolean; onWarning?: (warning: string) => void } = {}) {
  const undoContexts: ToolExecutionContext[] = [];
  const controller = new AbortController();
  const tools = {
    abortNow: tool('abort_now', () => {
      controller.abort();
      return 'aborted';
    }),
    echo: tool('echo', (a) => a),
    edit: tool('edit', (a) => ({ edited: a.id }), { hasSideEffects: true }),
    unedit: tool('unedit', (a, context) => {
      undoContexts.push(context);
      return `undid ${String(a.id)}`;
    }, { hasSideEffects: true }),
    pureUndo: tool('pure_undo', () => 'nothing to undo'),
    fail: tool('fail', () => ({ success: false, error: 'it broke', details: { code: 'E_BROKE' } })),
    blank: tool('blank', () => ({ success: false, error: '', details: { code: 'E_BLANK' } })),
    garbled: { ...tool('garbled', () => 1, { hasSideEffects: true }), execute: async () => 'not a result' as never },
  };
  const reg = registry(...Object.values(tools));
  const builder = new ComposableToolBuilder(reg.gate(), options);
  builder.bind({ sideEffectingTools: ['edit', 'unedit', 'garbled'] });
  return { builder, tools, reg, undoContexts, controller };
}

const run = (builder: ComposableToolBuilder, spec: ComposableToolSpec, input: Record<string, unknown> = {}, context: ToolExecutionContext = {}, options = {}) =>
  builder.runPipeline(spec, input, context, options);

describe('a failing step', () => {
  it('names its step and tool in front of the message, or says it failed when the tool gave no message', async () => {
    const { builder } = setup();
    expect((await run(builder, { steps: [{ name: 'go', tool: 'fail' }] })).error).toBe('Step "go" (fail): it broke');
    // The gate words a failure that came without a message; the step is put in front of it.
    const blank = await run(builder, { steps: [{ name: 'go', tool: 'blank' }] });
    expect(blank.error).toBe('Step "go" (blank): Tool "blank" failed.');
    expect(blank.details).toMatchObject({ code: 'step_failed', step: 'go', tool: 'blank' });
  });

  it('through a gate the host made, says the step failed when the failure has no message', async () => {
    const { reg } = setup();
    const gate = reg.gate();
    const bare = { ...gate, run: async () => ({ success: false, error: '', details: { code: 'E_HOST' } }) };
    const builder = new ComposableToolBuilder(bare);
    const result = await run(builder, { steps: [{ name: 'go', tool: 'echo', args: { a: 1 } }] });
    expect(result.error).toBe('Step "go" (echo) failed.');
    expect(result.details).toMatchObject({ code: 'E_HOST', step: 'go', tool: 'echo' });
  });

  it('says what its arguments resolved to when they are not an object, naming the step and tool', async () => {
    const { builder, tools } = setup();
    const cases: [unknown, string][] = [
      [null, 'null'],
      [['a'], 'an array'],
      ['text', 'a string'],
      [3, 'a number'],
    ];
    for (const [value, said] of cases) {
      const result = await run(builder, { steps: [{ name: 'call', tool: 'echo', inputMapping: '$input.value' as never }] }, { value });
      expect(result.details).toMatchObject({ code: 'input_invalid', step: 'call', tool: 'echo' });
      expect(result.error).toBe(`Step "call": its arguments resolved to ${said}, not an object.`);
    }
    expect(tools.echo.calls).toHaveLength(0);
  });

  it('inside annotate, carries the innermost intent (and its hypothesis only when given)', async () => {
    const { builder } = setup();
    const spec: ComposableToolSpec = {
      steps: [{ combinator: 'annotate', intent: 'outer', hypothesis: 'h', do: { combinator: 'annotate', intent: 'inner', do: { name: 'f', tool: 'fail' } } }],
    };
    const result = await run(builder, spec);
    expect(result.details).toMatchObject({ step: 'f', tool: 'fail', intent: 'inner' });
    expect(result.details?.hypothesis).toBeUndefined();
    const ok = await run(builder, { steps: [{ combinator: 'annotate', intent: 'only intent', do: { name: 'e', tool: 'echo', args: { a: 1 } } }] });
    const entry = (ok.details?.trace as Record<string, unknown>[]).find((e) => e.step === 'e')!;
    expect(entry).toMatchObject({ step: 'e', tool: 'echo', ok: true, intent: 'only intent' });
    expect('hypothesis' in entry).toBe(false);
  });

  it('lists a side-effecting tool that answered something that is not a result as started, with an unknown outcome', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ name: 'g', tool: 'garbled' }] });
    expect(result.details?.code).toBe('step_bad_result');
    expect(result.effects).toEqual([{ step: 'g', tool: 'garbled', ran: true, outcome: 'unknown' }]);
  });

  it('suggests the closest names when its tool disappeared after the run was checked', async () => {
    const fetchUser = tool('fetch_user', (a) => a);
    const reg = registry(fetchUser, tool('fetch_users', (a) => a));
    const remover = tool('remove', () => {
      reg.map.delete('fetch_user');
      return 'removed';
    });
    reg.add(remover);
    const builder = new ComposableToolBuilder(reg.gate());
    const result = await run(builder, { steps: [{ tool: 'remove' }, { name: 'get', tool: 'fetch_user', args: { id: 1 } }] });
    expect(result.details).toMatchObject({ code: 'step_missing', step: 'get' });
    expect(result.error).toContain('did you mean fetch_users?');
    // A dry run (its pure steps still run) says the same.
    reg.add(fetchUser);
    const dry = await run(builder, { steps: [{ tool: 'remove' }, { name: 'get', tool: 'fetch_user', args: { id: 1 } }] }, {}, {}, { dry: { stepOutputs: {} } });
    expect(dry.details).toMatchObject({ code: 'step_missing', step: 'get' });
    expect(dry.error).toContain('did you mean fetch_users?');
    expect(fetchUser.calls).toHaveLength(0);
  });
});

describe('a dry run of a step', () => {
  it('marks a stubbed step dry in the trace, and says where to give a missing output', async () => {
    const { builder, tools } = setup();
    const stubbed = await run(builder, { steps: [{ name: 'w', tool: 'edit', args: { id: 1 } }] }, {}, {}, { dry: { stepOutputs: { w: { edited: 1 } } } });
    expect(stubbed.success).toBe(true);
    expect(stubbed.details?.trace).toEqual([{ step: 'w', tool: 'edit', ok: true, dry: true }]);
    expect(tools.edit.calls).toHaveLength(0);
    const missing = await run(builder, { steps: [{ name: 'w', tool: 'edit', args: { id: 1 } }] }, {}, {}, { dry: { stepOutputs: {} } });
    expect(missing.details?.code).toBe('dry_run_needs_output');
    expect(missing.error).toContain('Dry run: step "w" (edit) would run; give its output in dry.stepOutputs["w"].');
  });

  it('keeps the per-item calls of a for_each out of the trace, as a real run does', async () => {
    const { builder } = setup();
    const spec: ComposableToolSpec = { steps: [{ combinator: 'for_each', items: '$input.ids', template: { name: 'w', tool: 'edit', args: { id: '$item' } } }] };
    const real = await run(builder, spec, { ids: [1, 2, 3] });
    const dry = await run(builder, spec, { ids: [1, 2, 3] }, {}, { dry: { stepOutputs: { w: { edited: 0 } } } });
    expect(dry.success).toBe(true);
    expect(dry.effects).toHaveLength(3);
    expect((dry.details?.trace as unknown[]).length).toBe((real.details?.trace as unknown[]).length);
  });
});

describe('an undo', () => {
  const rollback = (undo: { tool: string; args?: Record<string, unknown> }): ComposableToolSpec => ({
    steps: [{ combinator: 'scope', do: { combinator: 'pipe', stages: [{ tool: 'edit', args: { id: 7 }, compensate: undo }, { tool: 'fail' }] } }],
  });

  it('reads $prev as its own step output, even after the first step, with no warning in either mode', async () => {
    const warnings: string[] = [];
    const { builder, tools } = setup({ onWarning: (w) => warnings.push(w) });
    const spec = rollback({ tool: 'unedit', args: { id: '$prev.edited' } });
    builder.build('b', 'b', { type: 'object' }, spec);
    expect(warnings).toEqual([]);
    const result = await run(builder, spec);
    expect(result.details?.code).toBe('step_failed');
    expect(tools.unedit.calls).toEqual([{ id: 7 }]);
    expect(() => setup({ strictMode: true }).builder.build('s', 's', { type: 'object' }, spec)).not.toThrow();
  });

  it("runs with the host's context (without the aborted signal) after an abort", async () => {
    const { builder, undoContexts, controller } = setup();
    const spec: ComposableToolSpec = {
      steps: [{ combinator: 'scope', do: { combinator: 'pipe', stages: [{ tool: 'edit', args: { id: 7 }, compensate: { tool: 'unedit', args: { id: '$prev.edited' } } }, { tool: 'abort_now' }, { tool: 'echo', args: { never: true } }] } }],
    };
    const result = await run(builder, spec, {}, { userId: 'ann', signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(undoContexts).toHaveLength(1);
    expect(undoContexts[0].userId).toBe('ann');
    expect(undoContexts[0].signal?.aborted ?? false).toBe(false);
  });

  it('is listed in the effects only when its tool has side effects and it started', async () => {
    const { builder } = setup();
    const pure = await run(builder, rollback({ tool: 'pure_undo' }));
    expect(pure.effects).toEqual([{ step: 'steps[0].do.stages[0]', tool: 'edit', ran: true, outcome: 'ran' }]);
    // An undo the host's check refuses never started: it is not listed.
    const { reg } = setup();
    const strictHost = new ComposableToolBuilder(reg.gate({ checks: [({ tool: t }) => ({ isAllowed: t.name !== 'unedit', reason: 'no undos today' })] }));
    strictHost.bind({ sideEffectingTools: ['edit', 'unedit'] });
    const refused = await run(strictHost, rollback({ tool: 'unedit', args: { id: '$prev.edited' } }));
    expect(refused.details?.code).toBe('step_failed');
    expect(refused.effects?.map((e) => e.tool)).toEqual(['edit']);
    const real = await run(builder, rollback({ tool: 'unedit', args: { id: '$prev.edited' } }));
    expect(real.effects?.map((e) => [e.tool, e.outcome])).toEqual([
      ['edit', 'ran'],
      ['unedit', 'ran'],
    ]);
  });
});
