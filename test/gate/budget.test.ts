import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { DEFAULT_BUDGET_LIMITS } from '../../src/gate/budget.js';
import type { StepGateOptions } from '../../src/gate/options.js';
import { delay, registry, tool } from '../helpers/tools.js';
import { raw } from './raw-tool.js';

/** A tool that counts its calls and how many run at once, and takes `ms` to answer. */
function counted(name: string, ms = 0) {
  const stats = { calls: 0, now: 0, most: 0 };
  const t = tool(name, async (a) => {
    stats.calls++;
    stats.now++;
    stats.most = Math.max(stats.most, stats.now);
    if (ms > 0) await delay(ms);
    stats.now--;
    return a.n ?? 'ok';
  });
  return { tool: t, stats };
}

function setup(budget?: StepGateOptions['budget'], ms = 0) {
  const work = counted('work', ms);
  const list = tool('list', (a) => Array.from({ length: Number(a.n) }, (_, i) => i));
  const reg = registry(work.tool, list);
  const gate = reg.gate({ budget });
  const compose = createComposeTool(gate);
  reg.add(compose);
  return { reg, gate, compose, stats: work.stats };
}

describe('the budget of a call from outside', () => {
  it('has defaults sized for one process', () => {
    expect(DEFAULT_BUDGET_LIMITS).toEqual({ calls: 5000, inFlight: 64, sandboxes: 4 });
  });

  it('runs a gather of 2,000 calls at most inFlight at once, and every call still answers', async () => {
    const { compose, stats } = setup({ inFlight: 16 }, 1);
    const calls = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`c${i}`, { tool: 'work', args: { n: i } }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result.success).toBe(true);
    expect(Object.keys(result.output as object)).toHaveLength(2000);
    expect((result.output as Record<string, number>).c1999).toBe(1999);
    expect(stats.calls).toBe(2000);
    expect(stats.most).toBe(16);
  });

  it('bounds calls in flight across nested for_each, which share one budget', async () => {
    const { compose, stats } = setup({ inFlight: 10, calls: 100_000 }, 1);
    const level = (inner: object) => ({ combinator: 'for_each', items: { tool: 'list', args: { n: 12 } }, concurrency: 64, template: inner });
    const result = await compose.execute(level(level(level({ tool: 'work', args: { n: '{item}' } }))), {});
    expect(result.success).toBe(true);
    expect(stats.calls).toBe(12 ** 3);
    expect(stats.most).toBeLessThanOrEqual(10);
  });

  it('refuses the call past the calls limit with budget_exceeded naming the limit, and starts nothing past it', async () => {
    const { compose, stats } = setup({ calls: 50 });
    const level = (inner: object) => ({ combinator: 'for_each', items: { tool: 'list', args: { n: 20 } }, concurrency: 1, template: inner });
    const result = await compose.execute(level(level({ tool: 'work', args: {} })), {});
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'calls', value: 50 });
    expect(result.error).toMatch(/budget allows 50 tool calls/);
    // 50 calls in all: the lists (1 outer, then one per outer item) and the work calls.
    expect(stats.calls).toBeLessThan(50);
  });

  it('refuses a for_each whose items times its template exceed the calls left, before its first item', async () => {
    const { reg, gate, stats } = setup({ calls: 100 });
    const builder = new ComposableToolBuilder(gate);
    const composite = builder.build('grid', 'grid', { type: 'object' }, {
      steps: [{ combinator: 'for_each', items: '$input.rows', template: { combinator: 'for_each', items: '$input.cols', template: { tool: 'work', inputMapping: {} } } }],
    });
    reg.add(composite);
    const rows = Array.from({ length: 20 }, (_, i) => i);
    const result = await composite.execute({ rows, cols: rows }, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'calls' });
    expect(result.error).toMatch(/at least 400 tool calls/);
    expect(stats.calls).toBe(0);
    // The same plan within the budget runs.
    expect((await composite.execute({ rows: rows.slice(0, 5), cols: rows.slice(0, 5) }, {})).success).toBe(true);
    expect(stats.calls).toBe(25);
  });

  it('refuses a for_each over items a tool returned before its first item, once their number is known', async () => {
    const { compose, stats } = setup({ calls: 30 });
    const result = await compose.execute({ combinator: 'for_each', items: { tool: 'list', args: { n: 40 } }, template: { tool: 'work', args: {} } }, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'calls' });
    expect(stats.calls).toBe(0);
  });

  it('is shared by the doors nested under one call: a composite calling run_pipeline', async () => {
    const { reg, gate, stats } = setup({ calls: 5 });
    reg.add(createRunPipelineTool(gate));
    reg.map.get('run_pipeline')!.hasSideEffects = false;
    const builder = new ComposableToolBuilder(gate);
    const outer = builder.build('outer', 'outer', { type: 'object' }, {
      steps: [
        { tool: 'work', inputMapping: {} },
        { tool: 'run_pipeline', inputMapping: { steps: [{ tool: 'work' }, { tool: 'work' }, { tool: 'work' }, { tool: 'work' }] } },
      ],
    });
    const result = await outer.execute({}, {});
    expect(result.success).toBe(false);
    // outer's two calls leave three: the pipeline's four steps are refused before its first.
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'budget_exceeded', step: 'steps[1]' });
    expect(stats.calls).toBe(1);
  });

  it('gives each call from outside a budget of its own', async () => {
    const { compose, stats } = setup({ calls: 3 });
    const tree = { combinator: 'gather', calls: { a: { tool: 'work', args: {} }, b: { tool: 'work', args: {} } } };
    for (let i = 0; i < 5; i++) expect((await compose.execute(tree, {})).success).toBe(true);
    expect(stats.calls).toBe(10);
  });

  it('ends a call that waits for a place past its own timeout with budget_exceeded (inFlight)', async () => {
    const slow = tool('slow', () => new Promise(() => {}));
    const quick = tool('quick', () => 'q');
    const reg = registry(slow, quick);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }), { stepTimeoutMs: 60 });
    const composite = builder.build('c', 'c', { type: 'object' }, {
      // `a` holds the only place until its own timeout; its failure is set aside so `b`'s is the answer.
      steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {}, onError: 'continue' }, b: { tool: 'quick', inputMapping: {}, timeoutMs: 30 } } }],
    });
    const result = await composite.execute({}, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'inFlight', call: 'b' });
    expect(quick.calls).toHaveLength(0);
  });

  it('counts sandboxes alive across nested doors: a gather of scripts past the limit is refused', async () => {
    const reg = registry(tool('noop', () => 'x'));
    const gate = reg.gate({ budget: { sandboxes: 2 } });
    reg.add(createScriptTool(gate));
    const compose = createComposeTool(gate);
    const calls = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`s${i}`, { tool: 'run_js', args: { intention: 'x', code: `await callTool('noop', {}); return ${i};` } }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'budget_exceeded', limit: 'sandboxes', call: 's2' });
    // The limit is on sandboxes alive: one after another they all run.
    const one = await compose.execute({ combinator: 'pipe', stages: Object.values(calls) }, {});
    expect(one).toMatchObject({ success: true, output: '2' });
  });
});

describe('the calls waiting for a place in flight', () => {
  /** A tool whose calls stay in flight until `open()`; `started` lists the `n` of each call, in the order they began. */
  function gated(name: string) {
    const started: unknown[] = [];
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const t = tool(name, async (a) => {
      started.push(a.n);
      await opened;
      return a.n;
    });
    return { tool: t, started, open: () => open() };
  }

  it('start in the order they asked for a place, one as each place frees', async () => {
    const work = counted('work', 1);
    const order: unknown[] = [];
    const reg = registry(tool('first', async (a) => (order.push(a.n), await delay(1), a.n)), work.tool);
    const compose = createComposeTool(reg.gate({ budget: { inFlight: 1 } }));
    const calls = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`c${i}`, { tool: 'first', args: { n: i } }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    expect(result.success).toBe(true);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('form again after every waiting call has started: a second wave under the same budget starts too', async () => {
    const one = counted('one', 1);
    const two = counted('two', 1);
    const reg = registry(one.tool, two.tool);
    const compose = createComposeTool(reg.gate({ budget: { inFlight: 1 } }));
    const wave = (name: string) => ({ combinator: 'gather', calls: Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`${name}${i}`, { tool: name, args: { n: i } }])) });
    // The pipe's second stage starts once the first has ended: by then every call of the first wave
    // has left the queue, and the second wave's calls queue anew.
    const result = await compose.execute({ combinator: 'pipe', stages: [wave('one'), wave('two'), wave('one')] }, {});
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ one0: 0, one1: 1, one2: 2 });
    expect(one.stats).toMatchObject({ calls: 6, most: 1 });
    expect(two.stats).toMatchObject({ calls: 3, most: 1 });
  });

  it('a call that gave up waiting (its timeout passed) is not started when a place frees later', async () => {
    const hold = gated('hold');
    const quick = tool('quick', () => 'q');
    const after = tool('after', () => 'a');
    const reg = registry(hold.tool, quick, after);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }));
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [
        {
          combinator: 'gather',
          calls: {
            a: { tool: 'hold', inputMapping: { n: 'a' } },
            b: { tool: 'quick', inputMapping: {}, timeoutMs: 20, onError: 'continue' },
            c: { tool: 'after', inputMapping: {} },
          },
        },
      ],
    });
    // `a` holds the only place until `b` has given up; `c` waits behind `b` without a timeout.
    const codes: [string, string | undefined][] = [];
    const result = await composite.execute({}, {
      onEvent: (event) => {
        if (event.type !== 'call_ended') return;
        codes.push([event.tool, event.code]);
        if (event.tool === 'quick') hold.open();
      },
    });
    expect(result.success).toBe(true);
    expect(codes[0]).toEqual(['quick', 'budget_exceeded']);
    expect(quick.calls).toHaveLength(0);
    // The place `a` frees goes past `b`, to `c`.
    expect(after.calls).toHaveLength(1);
    expect(hold.started).toEqual(['a']);
  });

  it('tools that answer at once, thousands of them waiting, start one after another without nesting', async () => {
    const hold = gated('hold');
    let answered = 0;
    const now = raw('now', (a) => (answered++, { success: true, output: a.n }));
    const reg = registry(hold.tool, now);
    const compose = createComposeTool(reg.gate({ budget: { inFlight: 1, calls: 30_000 } }));
    // Enough that starting each from inside the one before would overflow the stack (3,000 did not).
    const n = 20_000;
    const calls: Record<string, unknown> = { hold: { tool: 'hold', args: { n: 'h' } } };
    for (let i = 0; i < n; i++) calls[`c${i}`] = { tool: 'now', args: { n: i } };
    const running = compose.execute({ combinator: 'gather', calls }, {});
    await delay(0);
    hold.open();
    const result = await running;
    expect(result.success).toBe(true);
    expect(answered).toBe(n);
    expect((result.output as Record<string, unknown>)[`c${n - 1}`]).toBe(n - 1);
  });
});

describe('the limits a host gives', () => {
  /** A gather of `n` calls to `work` under `budget`: the result and the calls made. */
  async function gather(budget: unknown, n: number) {
    const { compose, stats } = setup(budget as StepGateOptions['budget']);
    const calls = Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, { tool: 'work', args: {} }]));
    const result = await compose.execute({ combinator: 'gather', calls }, {});
    return { result, made: stats.calls };
  }

  it('a fractional limit counts whole calls: 2.9 allows two', async () => {
    expect(await gather({ calls: 2.9 }, 2)).toMatchObject({ result: { success: true }, made: 2 });
    expect(await gather({ calls: 2.9 }, 3)).toMatchObject({ result: { details: { code: 'budget_exceeded', limit: 'calls', value: 2 } }, made: 0 });
  });

  it('a limit of exactly 1 is kept, not replaced by the default', async () => {
    expect(await gather({ calls: 1 }, 1)).toMatchObject({ result: { success: true }, made: 1 });
    expect(await gather({ calls: 1 }, 2)).toMatchObject({ result: { details: { code: 'budget_exceeded', limit: 'calls', value: 1 } }, made: 0 });
  });

  it.each([
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a number as text', '2'],
    ['zero', 0],
    ['a fraction under one', 0.5],
  ])('%s takes the default instead', async (_, value) => {
    expect(await gather({ calls: value }, 10)).toMatchObject({ result: { success: true }, made: 10 });
    const calls = DEFAULT_BUDGET_LIMITS.calls;
    expect(await gather({ calls: value }, calls + 1)).toMatchObject({ result: { details: { code: 'budget_exceeded', limit: 'calls', value: calls } }, made: 0 });
  });

  it('names the limit in its refusal, with what to do', async () => {
    const { result } = await gather({ calls: 1 }, 2);
    expect(result.error).toContain("the call's budget allows 1 tool calls in all. Do the work in smaller calls, or raise the limit in createStepGate({ budget: { calls } }).");
  });
});
