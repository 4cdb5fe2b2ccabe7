import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { SnapshotProvider } from '../../src/engine/snapshot.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import { delay, registry, tool } from '../helpers/tools.js';

function setup(options: { snapshots?: SnapshotProvider; stepTimeoutMs?: number } = {}) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const tools = {
    read: tool('read', async (a) => { log.push(`read ${String(a.path)}`); await delay(Number(a.ms ?? 1)); return `content of ${String(a.path)}`; }),
    list: tool('list', () => ['a.ts', 'b.ts', 'c.ts']),
    slow: tool('slow', async (a) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await delay(Number(a.ms ?? 5));
      inFlight--;
      return { item: a.item, index: a.index };
    }),
    upper: tool('upper', (a) => String(a.text).toUpperCase()),
    echo: tool('echo', (a) => a),
    fail: tool('fail', () => ({ success: false, error: 'it broke', details: { code: 'E_BROKE' } })),
    check: tool('check', (a) => ({ passed: a.pass === true })),
    edit: tool('edit', (a) => { log.push(`edit ${String(a.id)}`); return { edited: a.id }; }, { hasSideEffects: true }),
    unedit: tool('unedit', (a) => { log.push(`unedit ${String(a.id)}`); return 'undone'; }, { hasSideEffects: true }),
    badUndo: tool('bad_undo', () => ({ success: false, error: 'cannot undo', details: { code: 'E_UNDO' } }), { hasSideEffects: true }),
    unlisted: tool('unlisted', () => 'should not run', { hasSideEffects: true }),
  };
  const reg = registry(...Object.values(tools));
  const builder = new ComposableToolBuilder(reg.gate(), options);
  builder.bind({ sideEffectingTools: ['edit', 'unedit', 'bad_undo'] });
  return { builder, tools, log, reg, maxInFlight: () => maxInFlight };
}

const run = (builder: ComposableToolBuilder, spec: ComposableToolSpec, input: Record<string, unknown> = {}, options = {}) => builder.runPipeline(spec, input, {}, options);

describe('gather', () => {
  it('runs named calls concurrently and returns their outputs by name', async () => {
    const { builder, maxInFlight } = setup();
    const result = await run(builder, {
      steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', args: { item: 'a', ms: 20 } }, b: { tool: 'slow', args: { item: 'b', ms: 20 } }, c: { tool: 'slow', args: { item: 'c', ms: 20 } } } }],
    });
    expect(result.output).toEqual({ a: { item: 'a' }, b: { item: 'b' }, c: { item: 'c' } });
    expect(maxInFlight()).toBe(3); // all three were running at once
  });

  it('fails with the failing call named, after every call has settled', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ combinator: 'gather', calls: { ok: { tool: 'read', args: { path: 'x' } }, bad: { tool: 'fail' } } }] });
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'E_BROKE', call: 'bad' });
  });

  it('abort in the middle: calls that have not started are refused', async () => {
    const { builder, tools } = setup();
    const controller = new AbortController();
    const aborter = tool('aborter', async () => { await delay(5); controller.abort(); return 'aborted'; });
    const { reg } = setup();
    reg.map.set('aborter', aborter);
    reg.map.set('read', tools.read);
    const b = new ComposableToolBuilder(reg.gate());
    const result = await b.runPipeline({
      steps: [{
        combinator: 'gather',
        calls: {
          first: { tool: 'aborter' },
          second: { combinator: 'pipe', stages: [{ tool: 'read', args: { path: 'p', ms: 20 } }, { tool: 'read', args: { path: 'after-abort' } }] },
        },
      }],
    }, {}, {}, { signal: controller.signal });
    void builder;
    expect(result.details?.code).toBe('step_aborted');
    expect(tools.read.calls.map((c) => c.path)).toEqual(['p']);
  });

  it('a call named __proto__ stays an own field', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ combinator: 'gather', calls: JSON.parse('{"__proto__": {"tool": "list"}}') }] });
    expect(Object.getPrototypeOf(result.output)).toBe(Object.prototype);
    expect(Object.hasOwn(result.output as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).length).toBeUndefined();
  });
});

describe('for_each', () => {
  it('runs the template per item with $item, $index and {item} holes, results in item order', async () => {
    const { builder } = setup();
    const result = await run(builder, {
      steps: [{
        combinator: 'for_each',
        items: '$input.files',
        template: { tool: 'echo', args: { path: '{item}', label: 'file {item} #{index}', i: '$index', same: '$item' } },
      }],
    }, { files: ['a', 'b', 'c'] });
    expect(result.output).toEqual([
      { path: 'a', label: 'file a #0', i: 0, same: 'a' },
      { path: 'b', label: 'file b #1', i: 1, same: 'b' },
      { path: 'c', label: 'file c #2', i: 2, same: 'c' },
    ]);
  });

  it('takes items from a node output; a whole-string hole keeps the value as it is', async () => {
    const { builder } = setup();
    const result = await run(builder, {
      steps: [{ combinator: 'for_each', items: { tool: 'list' }, template: { tool: 'echo', args: { value: '{item}', text: 'x{item}' } } }],
    });
    expect(result.output).toEqual([{ value: 'a.ts', text: 'xa.ts' }, { value: 'b.ts', text: 'xb.ts' }, { value: 'c.ts', text: 'xc.ts' }]);
    const lists = await run(builder, { steps: [{ combinator: 'for_each', items: '$input.groups', template: { tool: 'echo', args: { group: '{item}' } } }] }, { groups: [[1, 2], [3]] });
    expect(lists.output).toEqual([{ group: [1, 2] }, { group: [3] }]);
  });

  it('never has more in flight than the bound, and keeps item order', async () => {
    const { builder, maxInFlight } = setup();
    const items = Array.from({ length: 40 }, (_, i) => i);
    const result = await run(builder, {
      steps: [{ combinator: 'for_each', items: '$input.items', concurrency: 3, template: { tool: 'slow', args: { item: '$item', index: '$index', ms: 2 } } }],
    }, { items });
    expect(maxInFlight()).toBe(3);
    expect((result.output as { item: number }[]).map((r) => r.item)).toEqual(items);
  });

  it('defaults to a small bound, never unbounded', async () => {
    const { builder, maxInFlight } = setup();
    await run(builder, { steps: [{ combinator: 'for_each', items: '$input.items', template: { tool: 'slow', args: { ms: 2 } } }] }, { items: Array.from({ length: 30 }, (_, i) => i) });
    expect(maxInFlight()).toBe(4);
  });

  it('refuses a huge list before any item runs, and a non-array', async () => {
    const { builder, tools } = setup();
    const huge = await run(builder, { steps: [{ combinator: 'for_each', items: '$input.items', template: { tool: 'edit', args: { id: '$item' } } }] }, { items: Array.from({ length: 5000 }, (_, i) => i) });
    expect(huge.details).toMatchObject({ code: 'too_many_items', items: 5000, maxItems: 1000 });
    expect(tools.edit.calls).toHaveLength(0);
    const capped = await run(builder, { steps: [{ combinator: 'for_each', maxItems: 2, items: '$input.items', template: { tool: 'edit' } }] }, { items: [1, 2, 3] });
    expect(capped.details?.code).toBe('too_many_items');
    const notArray = await run(builder, { steps: [{ combinator: 'for_each', items: '$input.items', template: { tool: 'echo' } }] }, { items: 'abc' });
    expect(notArray.details?.code).toBe('items_not_array');
  });

  it('stops taking items after a failure and names the index', async () => {
    const { builder, tools } = setup();
    const failOnTwo = tool('maybe', (a) => (a.n === 2 ? { success: false, error: 'two', details: { code: 'E_TWO' } } : a.n));
    const { reg } = setup();
    reg.map.set('maybe', failOnTwo);
    const b = new ComposableToolBuilder(reg.gate());
    const result = await b.runPipeline({ steps: [{ combinator: 'for_each', concurrency: 1, items: '$input.items', template: { tool: 'maybe', args: { n: '$item' } } }] }, { items: [0, 1, 2, 3, 4] }, {});
    void builder; void tools;
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'E_TWO', index: 2 });
    expect(failOnTwo.calls.map((c) => c.n)).toEqual([0, 1, 2]);
  });
});

describe('pipe', () => {
  it("feeds each stage's output to the next as $prev and {result}", async () => {
    const { builder } = setup();
    const result = await run(builder, {
      steps: [{ combinator: 'pipe', stages: [{ tool: 'read', args: { path: 'x' } }, { tool: 'upper', args: { text: '{result}' } }, { tool: 'echo', args: { text: '$prev', note: 'got: {result}' } }] }],
    });
    expect(result.output).toEqual({ text: 'CONTENT OF X', note: 'got: CONTENT OF X' });
  });

  it('{result} in the first stage is plain text', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ combinator: 'pipe', stages: [{ tool: 'echo', args: { t: '{result}' } }] }] });
    expect(result.output).toEqual({ t: '{result}' });
  });
});

describe('try_and_check', () => {
  it('returns both outputs when the check passes', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ combinator: 'try_and_check', do: { tool: 'edit', args: { id: 1 } }, check: { tool: 'check', args: { pass: true } } }] });
    expect(result.output).toEqual({ do: { edited: 1 }, check: { passed: true } });
  });

  it("fails with the check's result when the check fails, after the bounded attempts", async () => {
    const { builder, tools } = setup();
    const result = await run(builder, { steps: [{ combinator: 'try_and_check', attempts: 2, do: { tool: 'edit', args: { id: 1 } }, check: { tool: 'check', args: { pass: false } } }] });
    expect(result.details).toMatchObject({ code: 'check_failed', attempts: 2, check: { success: true, output: { passed: false } } });
    expect(tools.edit.calls).toHaveLength(2);
    const failingCheck = await run(builder, { steps: [{ combinator: 'try_and_check', do: { tool: 'echo' }, check: { tool: 'fail' } }] });
    expect(failingCheck.details).toMatchObject({ code: 'check_failed', check: { details: { innerCode: 'E_BROKE' } } });
  });

  it('the check sees the work as $prev', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ combinator: 'try_and_check', do: { tool: 'echo', args: { pass: true } }, check: { tool: 'check', args: { pass: '$prev.pass' } } }] });
    expect(result.success).toBe(true);
  });
});

describe('scope with rollback', () => {
  it('undoes every step in reverse order, then restores the snapshot, and reports it', async () => {
    const events: string[] = [];
    const snapshots: SnapshotProvider = { snapshot: () => (events.push('snapshot'), 'token-1'), restore: (t) => { events.push(`restore ${String(t)}`); } };
    const { builder, log } = setup({ snapshots });
    const result = await run(builder, {
      steps: [{
        combinator: 'scope',
        on_failure: 'rollback',
        do: {
          combinator: 'pipe',
          stages: [
            { tool: 'edit', args: { id: 1 }, compensate: { tool: 'unedit', args: { id: '$prev.edited' } } },
            { tool: 'edit', args: { id: 2 }, compensate: { tool: 'unedit', args: { id: '$prev.edited' } } },
            { tool: 'fail' },
          ],
        },
      }],
    });
    expect(result.success).toBe(false);
    expect(log).toEqual(['edit 1', 'edit 2', 'unedit 2', 'unedit 1']);
    expect(events).toEqual(['snapshot', 'restore token-1']);
    expect(result.details).toMatchObject({
      code: 'step_failed',
      rollback: {
        complete: true,
        rolledBack: [
          { undo: 'unedit', ok: true },
          { undo: 'unedit', ok: true },
          { undo: 'snapshot', ok: true },
        ],
      },
    });
    expect(result.effects!.map((e) => e.tool)).toEqual(['edit', 'edit', 'unedit', 'unedit']);
  });

  it('a failing undo is reported, never swallowed, and the rest still run', async () => {
    const { builder, log } = setup({ snapshots: { snapshot: () => 1, restore: () => { throw new Error('disk gone'); } } });
    const result = await run(builder, {
      steps: [{
        combinator: 'scope',
        do: {
          combinator: 'pipe',
          stages: [
            { tool: 'edit', args: { id: 1 }, compensate: { tool: 'unedit', args: { id: 1 } } },
            { tool: 'edit', args: { id: 2 }, compensate: { tool: 'bad_undo' } },
            { tool: 'fail' },
          ],
        },
      }],
    });
    const rollback = (result.details as { rollback: { complete: boolean; rolledBack: { ok: boolean; code?: string; error?: string }[] } }).rollback;
    expect(rollback.complete).toBe(false);
    expect(rollback.rolledBack.map((e) => e.ok)).toEqual([false, true, false]);
    expect(rollback.rolledBack[0]).toMatchObject({ code: 'step_failed', error: 'cannot undo' });
    expect(rollback.rolledBack[2].error).toContain('disk gone');
    expect(log).toContain('unedit 1');
    expect(result.error).toContain('NOT all succeeded');
  });

  it('a successful scope keeps its work, and an enclosing scope can still undo it', async () => {
    const { builder, log } = setup();
    const ok = await run(builder, { steps: [{ combinator: 'scope', do: { tool: 'edit', args: { id: 1 }, compensate: { tool: 'unedit', args: { id: 1 } } } }] });
    expect(ok.success).toBe(true);
    expect(log).toEqual(['edit 1']);
    log.length = 0;
    const nested = await run(builder, {
      steps: [{
        combinator: 'scope',
        do: { combinator: 'pipe', stages: [{ combinator: 'scope', do: { tool: 'edit', args: { id: 7 }, compensate: { tool: 'unedit', args: { id: 7 } } } }, { tool: 'fail' }] },
      }],
    });
    expect(nested.success).toBe(false);
    expect(log).toEqual(['edit 7', 'unedit 7']);
  });

  it('refuses an unlisted side-effecting step inside the scope before anything runs', async () => {
    const { builder, log, tools } = setup();
    const result = await run(builder, {
      steps: [{ combinator: 'scope', do: { combinator: 'pipe', stages: [{ tool: 'edit', args: { id: 3 }, compensate: { tool: 'unedit', args: { id: 3 } } }, { tool: 'unlisted' }] } }],
    });
    expect(result.details).toMatchObject({ code: 'step_not_chainable', step: 'steps[0].do.stages[1]', completed: [] });
    expect(tools.unlisted.calls).toHaveLength(0);
    expect(log).toEqual([]);
  });

  it('rolls back what ran when a step is refused mid-run (its tool replaced by name after the run began)', async () => {
    const { builder, log, tools, reg } = setup();
    // The edit replaces the next step's tool with an unlisted side-effecting one, as a hot reload would.
    reg.add(tool('swap_edit', (a) => (log.push(`edit ${String(a.id)}`), reg.add(tools.unlisted, 'later'), 'edited'), { hasSideEffects: true }));
    reg.add(tools.read, 'later');
    builder.bind({ sideEffectingTools: ['swap_edit', 'unedit'] });
    const result = await run(builder, {
      steps: [{ combinator: 'scope', do: { combinator: 'pipe', stages: [{ tool: 'swap_edit', args: { id: 3 }, compensate: { tool: 'unedit', args: { id: 3 } } }, { tool: 'later' }] } }],
    });
    expect(result.details).toMatchObject({ code: 'step_not_chainable', rollback: { complete: true } });
    expect(tools.unlisted.calls).toHaveLength(0);
    expect(log).toEqual(['edit 3', 'unedit 3']);
  });
});

describe('annotate', () => {
  it('carries intent and hypothesis into the trace, the result and any error, without changing what runs', async () => {
    const { builder } = setup();
    const ok = await run(builder, { steps: [{ combinator: 'annotate', intent: 'find the bug', hypothesis: 'quotes kept', do: { tool: 'read', args: { path: 'x' } } }] });
    expect(ok.output).toBe('content of x');
    expect(ok.details).toMatchObject({ annotations: [{ intent: 'find the bug', hypothesis: 'quotes kept' }], trace: [{ tool: 'read', intent: 'find the bug', hypothesis: 'quotes kept' }] });
    const bad = await run(builder, { steps: [{ combinator: 'annotate', intent: 'fix it', do: { tool: 'fail' } }] });
    expect(bad.details).toMatchObject({ code: 'step_failed', intent: 'fix it' });
  });
});

describe('when, timeoutMs, retry, onError', () => {
  it('when: a falsy condition skips the step (output null, recorded as skipped)', async () => {
    const { builder, tools } = setup();
    const result = await run(builder, { steps: [{ name: 'maybe', tool: 'edit', when: '$input.go' }, { tool: 'echo', args: { before: '$prev' } }] }, { go: false });
    expect(result.output).toEqual({ before: null });
    expect(tools.edit.calls).toHaveLength(0);
    expect((result.details?.trace as object[])[0]).toMatchObject({ step: 'maybe', skipped: true });
    const ran = await run(builder, { steps: [{ tool: 'edit', when: '$input.go' }] }, { go: true });
    expect(ran.success).toBe(true);
  });

  it('per-step timeoutMs', async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ tool: 'read', timeoutMs: 20, args: { path: 'x', ms: 200 } }] });
    expect(result.details).toMatchObject({ code: 'step_timeout', timeoutMs: 20 });
  });

  it('retry: bounded attempts with backoff, not for refusals', async () => {
    let n = 0;
    const flaky = tool('flaky', () => (++n < 3 ? { success: false, error: 'flaky', details: { code: 'E_FLAKY' } } : 'third time'));
    const { reg } = setup();
    reg.map.set('flaky', flaky);
    const b = new ComposableToolBuilder(reg.gate());
    const started = Date.now();
    const result = await b.runPipeline({ steps: [{ tool: 'flaky', retry: { attempts: 3, backoffMs: 10 } }] }, {}, {});
    expect(result.output).toBe('third time');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25); // 10 + 20 ms of backoff
    const trace = result.details?.trace as { ok: boolean; attempts?: number }[];
    expect(trace.map((t) => t.ok)).toEqual([false, false, true]); // every try is in the trace
    expect(trace[2].attempts).toBe(3);
    n = -10;
    expect((await b.runPipeline({ steps: [{ tool: 'flaky', retry: { attempts: 2, backoffMs: 0 } }] }, {}, {})).success).toBe(false);
    const refused = await b.runPipeline({ steps: [{ tool: 'unlisted', retry: { attempts: 5 } }] }, {}, {});
    expect(refused.details?.code).toBe('step_not_chainable');
  });

  it("onError 'continue' records the failure and goes on", async () => {
    const { builder } = setup();
    const result = await run(builder, { steps: [{ tool: 'fail', onError: 'continue' }, { tool: 'echo', args: { prev: '$prev' } }] });
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ prev: null });
    expect(result.details).toMatchObject({ continued: [{ details: { innerCode: 'E_BROKE' } }], trace: [{ ok: false, code: 'step_failed' }, { ok: true }] });
  });
});

describe('the grade rule and dry runs through combinators', () => {
  it('hasSideEffectingStep and hasSideEffects see through every combinator', () => {
    const { builder } = setup();
    const wrap = (leaf: object): ComposableToolSpec => ({
      steps: [{ combinator: 'annotate', intent: 'i', do: { combinator: 'scope', do: { combinator: 'gather', calls: { a: { combinator: 'for_each', items: '$input.x', template: { combinator: 'try_and_check', do: { tool: 'echo' }, check: { combinator: 'pipe', stages: [leaf as never] } } } } } } }],
    });
    expect(builder.hasSideEffectingStep(wrap({ tool: 'echo' }))).toBe(false);
    expect(builder.hasSideEffectingStep(wrap({ tool: 'edit' }))).toBe(true);
    expect(builder.build('p', 'p', { type: 'object' }, wrap({ tool: 'echo' })).hasSideEffects).toBe(false);
    expect(builder.build('q', 'q', { type: 'object' }, wrap({ tool: 'edit' })).hasSideEffects).toBe(true);
    expect(builder.hasSideEffectingStep({ steps: [{ tool: 'echo', compensate: { tool: 'unedit' } }] })).toBe(true);
  });

  it('a dry run goes through nested combinators: pure steps run, side-effecting ones are listed', async () => {
    const { builder, tools } = setup();
    const result = await run(builder, {
      steps: [{
        combinator: 'scope',
        do: {
          combinator: 'gather',
          calls: {
            files: { combinator: 'for_each', items: { tool: 'list' }, template: { name: 'save', tool: 'edit', args: { id: '{item}' } } },
            check: { combinator: 'try_and_check', do: { name: 'patch', tool: 'edit', args: { id: 'p' } }, check: { tool: 'check', args: { pass: true } } },
          },
        },
      }],
    }, {}, { dry: { stepOutputs: { save: 'saved', patch: { edited: 'p' } } } });
    expect(result.success).toBe(true);
    expect(tools.edit.calls).toHaveLength(0);
    expect(tools.list.calls).toHaveLength(1);
    expect(result.output).toEqual({ files: ['saved', 'saved', 'saved'], check: { do: { edited: 'p' }, check: { passed: true } } });
    expect(result.effects!.filter((e) => e.wouldRun).map((e) => e.args)).toEqual(expect.arrayContaining([{ id: 'a.ts' }, { id: 'b.ts' }, { id: 'c.ts' }, { id: 'p' }]));
  });
});

describe("the gate's refusals inside each combinator", () => {
  const leaf = { tool: 'unlisted' };
  const cases: Record<string, object> = {
    gather: { combinator: 'gather', calls: { a: leaf } },
    for_each: { combinator: 'for_each', items: '$input.items', template: leaf },
    pipe: { combinator: 'pipe', stages: [{ tool: 'echo' }, leaf] },
    try_and_check: { combinator: 'try_and_check', do: leaf, check: { tool: 'echo' } },
    scope: { combinator: 'scope', do: leaf },
    annotate: { combinator: 'annotate', intent: 'x', do: leaf },
  };
  for (const [name, node] of Object.entries(cases)) {
    it(`${name}: an unlisted side-effecting tool is refused before it runs`, async () => {
      const { builder, tools } = setup();
      const result = await run(builder, { steps: [node as never] }, { items: [1] });
      expect(result.details?.code).toBe('step_not_chainable');
      expect(tools.unlisted.calls).toHaveLength(0);
    });
    it(`${name}: a permission refusal holds inside`, async () => {
      const { reg, tools } = setup();
      const b = new ComposableToolBuilder(reg.gate({ permissionManager: { isExecutionAllowed: (t) => ({ isAllowed: t.name !== 'echo' && t.name !== 'unlisted', reason: 'no' }) } }));
      b.bind({ sideEffectingTools: ['unlisted'] });
      const result = await b.runPipeline({ steps: [node as never] }, { items: [1] }, {});
      expect(result.details?.code).toBe('permission_denied');
      expect(tools.unlisted.calls).toHaveLength(0);
    });
  }
});

describe('validation of combinator trees', () => {
  it('refuses an unknown combinator, a cycle, a too-deep tree, each with every problem listed', () => {
    const { builder } = setup();
    const unknown = builder.validate({ steps: [{ combinator: 'teleport' } as never, { combinator: 'gather', calls: {} } as never] });
    expect(unknown.errors!.join('\n')).toMatch(/unknown combinator "teleport"/);
    expect(unknown.errors!.join('\n')).toMatch(/steps\[1\].calls/);
    const cyclic: Record<string, unknown> = { combinator: 'scope' };
    cyclic.do = cyclic;
    expect(builder.validate({ steps: [cyclic as never] }).errors!.join()).toMatch(/cycle/);
    let deep: object = { tool: 'echo' };
    for (let i = 0; i < 20; i++) deep = { combinator: 'annotate', intent: 'x', do: deep };
    expect(builder.validate({ steps: [deep as never] }).errors!.join()).toMatch(/deeper than 16/);
  });

  it('an output mapping shapes the final answer', async () => {
    const { builder } = setup();
    const result = await run(builder, {
      steps: [{ name: 'both', combinator: 'gather', calls: { a: { tool: 'read', args: { path: 'a' } }, b: { tool: 'list' } } }],
      output: { first: '$steps.both.a', count: '$steps.both.b[2]' },
    });
    expect(result.output).toEqual({ first: 'content of a', count: 'c.ts' });
  });
});
