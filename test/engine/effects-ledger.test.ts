import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** A card charge that counts what it really did; `hang` makes the first attempts outlast their timeout. */
function charge(hang = 0) {
  const charged: unknown[] = [];
  let attempt = 0;
  const t = tool(
    'charge',
    async (a) => {
      attempt++;
      charged.push(a.amount);
      if (attempt <= hang) await delay(200);
      return 'charged';
    },
    { hasSideEffects: true },
  );
  return { tool: t, charged };
}

describe('the effects ledger lists every attempt that may have had an effect', () => {
  it('a side-effecting step that started and timed out is listed timed_out', async () => {
    const c = charge(1);
    const builder = new ComposableToolBuilder(registry(c.tool).gate(), { stepTimeoutMs: 30 });
    builder.bind({ sideEffectingTools: ['charge'] });
    const result = await builder.build('pay', 'pay', { type: 'object' }, { steps: [{ name: 'pay', tool: 'charge', inputMapping: { amount: 5 } }] }).execute({}, {});
    expect(result.details?.code).toBe('step_timeout');
    expect(result.effects).toEqual([{ step: 'pay', tool: 'charge', ran: true, outcome: 'timed_out' }]);
  });

  it('with retry, each charge is listed: the one that timed out and the one that succeeded', async () => {
    const c = charge(1);
    const builder = new ComposableToolBuilder(registry(c.tool).gate(), { stepTimeoutMs: 30 });
    builder.bind({ sideEffectingTools: ['charge'] });
    const result = await builder
      .build('pay', 'pay', { type: 'object' }, { steps: [{ name: 'pay', tool: 'charge', inputMapping: { amount: 5 }, retry: { attempts: 2, backoffMs: 0 } }] })
      .execute({}, {});
    expect(result.success).toBe(true);
    expect(c.charged).toEqual([5, 5]);
    expect(result.effects).toEqual([
      { step: 'pay', tool: 'charge', ran: true, outcome: 'timed_out' },
      { step: 'pay', tool: 'charge', ran: true, outcome: 'ran' },
    ]);
  });

  it('a side-effecting tool that fails or throws after it started is listed failed; a refused one is not listed', async () => {
    const failing = tool('send', () => ({ success: false, error: 'smtp down' }), { hasSideEffects: true });
    const throwing = tool('push', () => {
      throw new Error('boom');
    }, { hasSideEffects: true });
    const reg = registry(failing, throwing);
    const builder = new ComposableToolBuilder(reg.gate());
    builder.bind({ sideEffectingTools: ['send', 'push'] });
    const tree = (t: string) => ({ steps: [{ tool: t, inputMapping: {} }] });
    expect((await builder.build('a', 'a', { type: 'object' }, tree('send')).execute({}, {})).effects).toEqual([{ step: 'steps[0]', tool: 'send', ran: true, outcome: 'failed' }]);
    expect((await builder.build('b', 'b', { type: 'object' }, tree('push')).execute({}, {})).effects).toEqual([{ step: 'steps[0]', tool: 'push', ran: true, outcome: 'failed' }]);
    const denied = new ComposableToolBuilder(reg.gate({ permissionManager: { isExecutionAllowed: () => ({ isAllowed: false }) } }));
    denied.bind({ sideEffectingTools: ['send'] });
    expect((await denied.build('c', 'c', { type: 'object' }, tree('send')).execute({}, {})).effects).toEqual([]);
  });

  it('lists failures on the fast paths too: a for_each of charges where one fails', async () => {
    let n = 0;
    const flaky = tool('charge', () => (++n === 2 ? { success: false, error: 'declined' } : 'ok'), { hasSideEffects: true });
    const builder = new ComposableToolBuilder(registry(flaky).gate());
    builder.bind({ sideEffectingTools: ['charge'] });
    const result = await builder
      .build('all', 'all', { type: 'object' }, { steps: [{ combinator: 'for_each', items: '$input.cards', concurrency: 1, template: { tool: 'charge', inputMapping: { card: '$item' } } }] })
      .execute({ cards: ['a', 'b', 'c'] }, {});
    expect(result.effects?.map((e) => e.outcome)).toEqual(['ran', 'failed']);
  });
});

describe('run_pipeline keeps its ledger and its reports whatever the outputs', () => {
  it('an output JSON cannot write (a BigInt, a cycle) is named as such; the write that ran stays in the ledger', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const big = tool('big', () => 10n);
    const loop = tool('loop', () => cyclic);
    const reg = registry(write, big, loop);
    const pipeline = createRunPipelineTool(reg.gate(), { sideEffectingTools: ['write_file'] });
    const result = await pipeline.execute({ steps: [{ tool: 'write_file', args: {} }, { tool: 'big', args: {} }, { tool: 'loop', args: {} }] }, {});
    expect(result.success).toBe(true);
    expect(result.effects).toEqual([{ step: 'step_1', tool: 'write_file', ran: true, outcome: 'ran' }]);
    const text = String(result.output);
    expect(text).toContain('step_1: ok\nwritten');
    expect(text).toMatch(/step_2: ok\n\[output not shown: it cannot be written as JSON \(.*BigInt.*\)\]/);
    expect(text).toMatch(/step_3: ok\n\[output not shown: it cannot be written as JSON/);
    expect((result.details?.steps as unknown[]).length).toBe(3);
  });

  it('refuses a step whose arguments cannot be compiled (a cyclic object from a host caller) before anything runs', async () => {
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const pipeline = createRunPipelineTool(registry(write).gate(), { sideEffectingTools: ['write_file'] });
    const args: Record<string, unknown> = {};
    args.again = args;
    const result = await pipeline.execute({ steps: [{ tool: 'write_file', args }] }, {});
    expect(result.success).toBe(false);
    expect(result.details?.code).toBe('input_invalid');
    expect(write.calls).toEqual([]);
  });
});

describe('a dry run never runs an undo', () => {
  it('lists a compensation as one that would run, with its arguments, and does not call it', async () => {
    const deleteAll = tool('delete_all', () => 'deleted everything', { hasSideEffects: true });
    const read = tool('read', () => ({ id: 7 }));
    const fail = tool('check', () => ({ success: false, error: 'bad' }));
    const reg = registry(deleteAll, read, fail);
    const builder = new ComposableToolBuilder(reg.gate());
    builder.bind({ sideEffectingTools: ['delete_all'] });
    const spec = {
      steps: [
        {
          combinator: 'scope' as const,
          do: {
            combinator: 'pipe' as const,
            stages: [
              { name: 'got', tool: 'read', inputMapping: {}, compensate: { tool: 'delete_all', args: { id: '$prev.id' } } },
              { tool: 'check', inputMapping: {} },
            ],
          },
        },
      ],
    };
    const result = await builder.runPipeline(spec, {}, {}, { dry: { stepOutputs: {} } });
    expect(result.success).toBe(false);
    expect(deleteAll.calls).toEqual([]);
    expect(result.effects).toEqual([{ step: 'got (undo)', tool: 'delete_all', wouldRun: true, args: { id: 7 } }]);
    expect(result.details?.rollback).toMatchObject({ rolledBack: [{ step: 'got', undo: 'delete_all', ok: true }], complete: true });
    expect(JSON.stringify(result.effects)).not.toContain('"ran"');
  });

  it('lists the undo of a step whose output was given, too', async () => {
    const send = tool('send', () => 'sent', { hasSideEffects: true });
    const recall = tool('recall', () => 'recalled', { hasSideEffects: true });
    const fail = tool('check', () => ({ success: false, error: 'bad' }));
    const builder = new ComposableToolBuilder(registry(send, recall, fail).gate());
    builder.bind({ sideEffectingTools: ['send', 'recall'] });
    const spec = {
      steps: [
        {
          combinator: 'scope' as const,
          do: { combinator: 'pipe' as const, stages: [{ name: 'mail', tool: 'send', inputMapping: {}, compensate: { tool: 'recall', args: { id: '$prev' } } }, { tool: 'check', inputMapping: {} }] },
        },
      ],
    };
    const result = await builder.runPipeline(spec, {}, {}, { dry: { stepOutputs: { mail: 'm-1' } } });
    expect(send.calls).toEqual([]);
    expect(recall.calls).toEqual([]);
    expect(result.effects).toEqual([
      { step: 'mail', tool: 'send', wouldRun: true, args: {} },
      { step: 'mail (undo)', tool: 'recall', wouldRun: true, args: { id: 'm-1' } },
    ]);
  });
});

describe('compose refuses a tree over budget before its first call', () => {
  it('a gather wider than the calls left', async () => {
    const read = tool('read', () => 'r');
    const reg = registry(read);
    const compose = createComposeTool(reg.gate({ budget: { calls: 10 } }));
    const calls = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`r${i}`, { tool: 'read', args: {} }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'calls' });
    expect(read.calls).toEqual([]);
  });
});
