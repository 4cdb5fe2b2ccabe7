import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ComposableToolSpec, SpecNode } from '../../src/spec/types.js';
import { delay, registry, tool } from '../helpers/tools.js';

function setup() {
  const log: string[] = [];
  const slow = tool('slow', async (a) => (await delay(Number(a.ms ?? 100)), { v: a.v ?? null }));
  const write = tool('write', async (a) => (await delay(5), log.push(`write ${String(a.v)}`), { wrote: a.v }), { hasSideEffects: true });
  const read = tool('read', () => ({ seen: [...log] }));
  const reg = registry(slow, write, read);
  const builder = new ComposableToolBuilder(reg.gate());
  builder.bind({ sideEffectingTools: ['write'] });
  return { builder, log, reg };
}

describe("schedule: 'auto'", () => {
  it('runs three independent 100 ms steps side by side: about 100 ms, not 300', async () => {
    const { builder } = setup();
    const steps: SpecNode[] = ['a', 'b', 'c'].map((v) => ({ name: v, tool: 'slow', inputMapping: { v, ms: 100 } }));
    const auto = builder.build('auto', 'auto', { type: 'object' }, { schedule: 'auto', steps, output: { a: '$steps.a.v', b: '$steps.b.v', c: '$steps.c.v' } });
    const started = performance.now();
    const result = await auto.execute({}, {});
    const took = performance.now() - started;
    expect(result).toMatchObject({ success: true, output: { a: 'a', b: 'b', c: 'c' } });
    expect(took).toBeLessThan(250);
    // The trace keeps the declared order.
    expect((result.details?.trace as { step: string }[]).map((e) => e.step)).toEqual(['a', 'b', 'c']);
  });

  it('waits for what a step reads: $prev, $steps[n] and $steps.name', async () => {
    const { builder } = setup();
    const result = await builder.build('c', 'c', { type: 'object' }, {
      schedule: 'auto',
      steps: [
        { name: 'first', tool: 'slow', inputMapping: { v: 1, ms: 30 } },
        { name: 'second', tool: 'slow', inputMapping: { v: '$prev.v', ms: 10 } },
        { name: 'third', tool: 'slow', inputMapping: { v: '$steps[0].v', ms: 10 } },
        { name: 'fourth', tool: 'slow', inputMapping: { v: '$steps.second.v', ms: 10 } },
      ],
      output: ['$steps.second.v', '$steps.third.v', '$steps.fourth.v'],
    }).execute({}, {});
    expect(result.output).toEqual([1, 1, 1]);
  });

  it('makes a side-effecting step a barrier: a read after a write sees the write', async () => {
    const { builder, log } = setup();
    const result = await builder.build('c', 'c', { type: 'object' }, {
      schedule: 'auto',
      steps: [
        { name: 'slow_before', tool: 'slow', inputMapping: { ms: 40 } },
        { name: 'w', tool: 'write', inputMapping: { v: 1 } },
        { name: 'after', tool: 'read', inputMapping: {} },
      ],
      output: '$steps.after.seen',
    }).execute({}, {});
    expect(result.output).toEqual(['write 1']);
    expect(log).toEqual(['write 1']);
  });

  it('stops starting steps after a failure, and reports the first failure in declared order', async () => {
    const { builder, reg } = setup();
    reg.add(tool('fail', async () => (await delay(10), { success: false, error: 'no', details: { code: 'E' } })));
    const result = await builder.build('c', 'c', { type: 'object' }, {
      schedule: 'auto',
      steps: [
        { name: 'bad', tool: 'fail', inputMapping: {} },
        { name: 'ok', tool: 'slow', inputMapping: { ms: 30 } },
        { name: 'w', tool: 'write', inputMapping: { v: 2 } },
      ],
    }).execute({}, {});
    expect(result.details).toMatchObject({ code: 'step_failed', step: 'bad', innerCode: 'E' });
    // The write is a barrier after a failed step: it never started.
    expect(result.effects).toEqual([]);
  });

  it('gives the same outputs and the same order of side effects as the sequential schedule (property)', async () => {
    const stepArb = fc.oneof(
      fc.record({ kind: fc.constant('pure' as const), ms: fc.integer({ min: 0, max: 8 }), from: fc.constantFrom('input', 'prev', 'none') }),
      fc.record({ kind: fc.constant('write' as const), ms: fc.constant(0), from: fc.constantFrom('input', 'prev', 'none') }),
      fc.record({ kind: fc.constant('read' as const), ms: fc.constant(0), from: fc.constant('none') }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), async (shape) => {
        const steps: SpecNode[] = shape.map((s, i) => {
          const v = s.from === 'input' ? '$input.v' : s.from === 'prev' && i > 0 ? '$prev.v' : i;
          if (s.kind === 'pure') return { tool: 'slow', inputMapping: { v, ms: s.ms } };
          if (s.kind === 'write') return { tool: 'write', inputMapping: { v } };
          return { tool: 'read', inputMapping: {} };
        });
        const outputs: unknown[] = [];
        const ledgers: string[][] = [];
        for (const schedule of ['sequential', 'auto'] as const) {
          const { builder, log } = setup();
          const spec: ComposableToolSpec = { schedule, steps, output: steps.map((_, i) => `$steps[${i}]`) };
          const result = await builder.build('c', 'c', { type: 'object' }, spec).execute({ v: 'in' }, {});
          expect(result.success).toBe(true);
          outputs.push(result.output);
          ledgers.push([...log, ...(result.effects ?? []).map((e) => e.step)]);
        }
        expect(outputs[1]).toEqual(outputs[0]);
        expect(ledgers[1]).toEqual(ledgers[0]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("run_pipeline with schedule: 'auto'", () => {
  it('runs independent steps side by side, waits for ${step_N.output}, and reports in order', async () => {
    const { reg } = setup();
    const { createRunPipelineTool } = await import('../../src/agent-tools/run-pipeline.js');
    const pipeline = createRunPipelineTool(reg.gate(), { schedule: 'auto' });
    const started = performance.now();
    const result = await pipeline.execute({
      steps: [
        { id: 'a', tool: 'slow', args: { v: 'a', ms: 100 } },
        { id: 'b', tool: 'slow', args: { v: 'b', ms: 100 } },
        { id: 'c', tool: 'slow', args: { v: '${a.output.v}+', ms: 10 } },
      ],
    }, {});
    const took = performance.now() - started;
    expect(result.success).toBe(true);
    expect((result.details?.steps as { id: string; output: unknown }[]).map((s) => [s.id, s.output])).toEqual([
      ['a', { v: 'a' }],
      ['b', { v: 'b' }],
      ['c', { v: 'a+' }],
    ]);
    expect(took).toBeLessThan(200);
    // The model-facing schema does not grow.
    expect(pipeline.inputSchema).toEqual(createRunPipelineTool(reg.gate()).inputSchema);
  });
});

describe("schedule: 'auto' and a pipe", () => {
  it("a later stage's $prev reads the stage before it, so the pipe does not wait for the step before", async () => {
    const order: string[] = [];
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    // `hold` ends once the pipe's stages have run, or after 2 s if the pipe waits for it.
    const hold = tool('hold', async () => (order.push('hold started'), await Promise.race([opened, delay(2000)]), order.push('hold ended'), { v: 'h' }));
    const stage = tool('stage', (a) => (order.push(`stage ${String(a.v)}`), a.v === 2 && open(), { v: Number(a.v) + 1 }));
    const builder = new ComposableToolBuilder(registry(hold, stage).gate());
    const result = await builder.build('c', 'c', { type: 'object' }, {
      schedule: 'auto',
      steps: [
        { name: 'held', tool: 'hold', inputMapping: {} },
        { name: 'piped', combinator: 'pipe', stages: [{ tool: 'stage', inputMapping: { v: 1 } }, { tool: 'stage', inputMapping: { v: '$prev.v' } }] },
      ],
      output: { held: '$steps.held.v', piped: '$steps.piped.v' },
    }).execute({}, {});
    expect(result).toMatchObject({ success: true, output: { held: 'h', piped: 3 } });
    expect(order).toEqual(['hold started', 'stage 1', 'stage 2', 'hold ended']);
  });
});
