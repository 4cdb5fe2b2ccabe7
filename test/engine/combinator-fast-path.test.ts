/**
 * The fast path for a for_each whose template is a plain leaf, and for a gather whose calls are
 * plain leaves (a gate `createStepGate` made), against the general path (forced here by a host's
 * own gate object, driven through its `run`): the same specs give the same results, successes
 * and failures alike, timeouts, aborts and the concurrency bound included.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { Leaf } from '../../src/engine/leaf.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';
import { bad, fails, FAILURE_CASES, fastAndGeneral, hangs, inc, send, throws, undeclared, unlisted } from '../helpers/misbehaving-tools.js';

const list = tool('list', () => [1, 2, 3, 4, 5]);
/** Fails, throws, hangs, misbehaves or is refused on the item named by `$input.at`, else adds one. */
const pick = tool('pick', (a) => {
  if (a.item !== a.at) return { n: Number(a.item) + 1 };
  switch (a.how) {
    case 'fails':
      return { success: false, error: 'nope', details: { code: 'boom' } };
    case 'throws':
      throw new Error('kaput');
    case 'hangs':
      return new Promise(() => {});
    default:
      return 42;
  }
});
/** A tool that returns a non-result on `$input.at` (its helper wraps every output, so it is its own). */
const pickBad: ITool = {
  ...inc,
  id: 'test:pick_bad',
  name: 'pick_bad',
  execute: (a) => Promise.resolve((a.item === a.at ? 42 : { success: true, output: a.item }) as ToolExecutionResult),
};
/** Sends, with a side effect, after `ms` milliseconds: counts how many are in flight at once. */
let inFlight = 0;
let maxInFlight = 0;
let slowCalls = 0;
const slow = tool(
  'slow',
  async (a) => {
    slowCalls++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await delay(Number(a.ms ?? 1));
    inFlight--;
    return { item: a.item };
  },
  { hasSideEffects: true },
);

/**
 * Aborts the run's controller (each run makes its own) when item 3 ends, with a side effect per
 * call. Items take `ms` milliseconds and item 3 takes `ms3`; in `latch` mode item 3 waits for item
 * 5 to start instead, so the order holds however slow the machine. Items end after a timer, not a
 * microtask, so both paths (the general one has an async host check) see the abort alike.
 */
let controller = new AbortController();
/** Per run: settled once item 5 has started, so item 3 aborts while item 5 is in flight (`latch` mode). */
const fifthStarted = new WeakMap<AbortController, { started: Promise<void>; start: () => void }>();
function latchOf(run: AbortController) {
  let latch = fifthStarted.get(run);
  if (latch === undefined) {
    let start = () => {};
    const started = new Promise<void>((resolve) => (start = resolve));
    latch = { started, start };
    fifthStarted.set(run, latch);
  }
  return latch;
}
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
const stopper = tool(
  'stopper',
  async (a) => {
    const run = controller;
    if (a.latch === true) {
      // Ordered by the calls themselves, not by time: item 5 starts, item 3 aborts, item 5 ends.
      if (a.item === 5) {
        latchOf(run).start();
        await aborted(run.signal);
        // Both lanes end after a timer: the abort is seen by each path before its next item.
        await delay(1);
      }
      if (a.item === 3) {
        await latchOf(run).started;
        run.abort();
        await delay(1);
      }
      return a.item;
    }
    const wait = Number(a.item === 3 ? a.ms3 : a.ms);
    if (wait > 0) await delay(wait);
    if (a.item === 3) run.abort();
    return a.item;
  },
  { hasSideEffects: true },
);

afterEach(() => {
  vi.restoreAllMocks();
});

/** The fast and the general path over this file's tools. */
function builders() {
  return fastAndGeneral([inc, send, unlisted, undeclared, fails, throws, list, hangs, bad, pick, pickBad, slow, stopper], ['send', 'slow', 'stopper']);
}

/** What one path did: its result, the slow tool's calls and its most in flight. */
interface Ran {
  result: ToolExecutionResult;
  calls: number;
  maxInFlight: number;
}

/**
 * Run `spec` on both paths (one after the other, each with a context of its own) and expect the
 * same result and the same calls. `fastPath` says whether the fast builder must take the fast path.
 */
async function both(spec: ComposableToolSpec, input: Record<string, unknown> = {}, contextOf: () => ToolExecutionContext = () => ({}), fastPath: boolean | 'no calls' = true) {
  const { fast, general, repair } = builders();
  // Only the general driver drives a leaf through `drive`; the fast paths start it themselves.
  const general_ = vi.spyOn(Leaf.prototype, 'drive');
  const ran: Ran[] = [];
  for (const b of [fast, general]) {
    repair();
    inFlight = maxInFlight = slowCalls = 0;
    general_.mockClear();
    const result = await b.build('c', 'c', { type: 'object' }, spec).execute(input, contextOf());
    ran.push({ result, calls: slowCalls, maxInFlight });
    // The fast builder takes the fast path when it applies; the general one never does. (The
    // step before the combinator, steps[0], is driven on both: it is not the combinator's.)
    const drivenInside = general_.mock.contexts.filter((leaf) => !/^steps\[0\]($|\.items$)/.test((leaf as Leaf).label)).length;
    if (fastPath !== 'no calls') expect(drivenInside > 0).toBe(b === general || !fastPath);
  }
  expect(ran[0]).toEqual(ran[1]);
  return ran[0];
}

const items = Array.from({ length: 10 }, (_, i) => i);
const forEach = (template: Record<string, unknown>, extra: Record<string, unknown> = {}): ComposableToolSpec => ({
  // `sabotage` (a pure step) breaks the refused names in the registry once the run has started.
  steps: [{ tool: 'sabotage', inputMapping: { n: 1 } }, { combinator: 'for_each', items: '$input.items', concurrency: 3, template, ...extra } as never],
});

describe('the for_each fast path', () => {
  it('gives the same success: outputs in item order, $item and $index, effects per item, one trace entry', async () => {
    const { result } = await both(forEach({ tool: 'send', inputMapping: { n: '$item', i: '$index' } }), { items });
    expect(result.success).toBe(true);
    expect(result.output).toEqual(items.map((n) => ({ sent: n })));
    expect(result.effects).toHaveLength(items.length);
    expect(result.details?.trace).toEqual([
      { step: 'steps[0]', tool: 'sabotage', ok: true },
      { step: 'steps[1]', ok: true, items: items.length },
    ]);
  });

  it('gives the same success with items from a plain leaf, and with no items at all', async () => {
    const fromLeaf = await both({ steps: [{ combinator: 'for_each', items: { tool: 'list' }, template: { tool: 'inc', inputMapping: { n: '$item' } } } as never] });
    expect(fromLeaf.result.output).toEqual([2, 3, 4, 5, 6].map((n) => ({ n })));
    const none = await both(forEach({ tool: 'inc', inputMapping: { n: '$item' } }), { items: [] }, undefined, 'no calls');
    expect(none.result.output).toEqual([]);
  });

  it.each([
    ['a tool failure (innerCode)', 'pick', 'fails', 'step_failed'],
    ['a tool that throws', 'pick', 'throws', 'step_threw'],
    ['a tool that never settles', 'pick', 'hangs', 'step_timeout'],
    ['a tool that returns a non-result', 'pick_bad', 'bad', 'step_bad_result'],
  ])('gives the same failure for %s, with its index, and stops launching', async (_what, toolName, how, code) => {
    const started = Date.now();
    const { result } = await both(forEach({ tool: toolName, inputMapping: { item: '$item', at: '$input.at', how: '$input.how' } }, { concurrency: 1 }), { items, at: 4, how });
    expect(result.details).toMatchObject({ code, index: 4, step: 'steps[1].template', completed: ['steps[0]'] });
    expect((result.details?.trace as { items?: number }[])[1]).toMatchObject({ ok: false, code, items: 5 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    ['a missing tool', 'absent', 'step_missing'],
    ['an unlisted side-effecting tool', 'unlisted', 'step_not_chainable'],
    ['a tool that declares nothing', 'undeclared', 'side_effects_undeclared'],
    ['a tool that fails at once', 'fails', 'step_failed'],
    ['a tool that throws at once', 'throws', 'step_threw'],
    ['a tool that returns a non-result', 'bad', 'step_bad_result'],
  ])('gives the same refusal or failure for %s on every item', async (_what, toolName, code) => {
    const { result } = await both(forEach({ tool: toolName, inputMapping: {} }), { items });
    expect(result.details).toMatchObject({ code, index: 0 });
  });

  it('gives the same refusal for arguments that are not an object', async () => {
    const { result } = await both(forEach({ tool: 'inc', inputMapping: '$item' }), { items: [{ n: 1 }, 2, { n: 3 }] });
    expect(result.details).toMatchObject({ code: 'input_invalid', index: 1 });
  });

  it('gives the same timeout after quick items, per call through the template\'s own timeout', async () => {
    const { result } = await both(forEach({ tool: 'pick', timeoutMs: 20, inputMapping: { item: '$item', at: 7, how: 'hangs' } }), { items });
    expect(result.details).toMatchObject({ code: 'step_timeout', index: 7, timeoutMs: 20 });
  });

  it.each([
    [1, false, 4],
    [2, true, 6],
  ])('gives the same abort in the middle at concurrency %i: later items refused, effects before it kept', async (concurrency, latch, index) => {
    // At concurrency 2, item 3 holds one lane until item 5 runs on the other: items 0 to 5 have their effects.
    const { result } = await both(
      forEach({ tool: 'stopper', inputMapping: { item: '$item', ms: 0, ms3: 0, latch } }, { concurrency }),
      { items },
      () => ({ signal: (controller = new AbortController()).signal }),
    );
    expect(result.details).toMatchObject({ code: 'step_aborted', step: 'steps[1].template', index });
    expect(result.effects).toHaveLength(index);
  });

  it('never has more in flight than the bound, on either path', async () => {
    const ran = await both(forEach({ tool: 'slow', inputMapping: { item: '$item', ms: 3 } }, { concurrency: 3 }), { items });
    expect(ran.maxInFlight).toBe(3);
    expect(ran.calls).toBe(items.length);
    expect(ran.result.output).toEqual(items.map((item) => ({ item })));
  });

  it('takes the general path for a named, guarded or compensated template, with the same result', async () => {
    for (const template of [
      { tool: 'inc', name: 'each', inputMapping: { n: '$item' } },
      { tool: 'inc', when: true, inputMapping: { n: '$item' } },
      { tool: 'send', compensate: { tool: 'inc', args: {} }, inputMapping: { n: '$item' } },
    ]) {
      const { result } = await both(forEach(template), { items }, undefined, false);
      expect(result.success).toBe(true);
    }
  });
});

describe('the gather fast path', () => {
  const gather = (calls: Record<string, unknown>): ComposableToolSpec => ({ steps: [{ tool: 'sabotage', inputMapping: { n: 1 } }, { combinator: 'gather', calls } as never] });

  it('gives the same success: outputs by name in call order, __proto__ an own field, effects and trace', async () => {
    const calls = JSON.parse('{"b": {"tool": "send", "inputMapping": {"n": "$input.b"}}, "__proto__": {"tool": "inc", "inputMapping": {"n": "$prev.n"}}, "a": {"tool": "slow", "inputMapping": {"item": "$input.a"}}}');
    const { result } = await both(gather(calls), { a: 1, b: 2 });
    const output = result.output as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['b', '__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ n: 3 });
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(output).toMatchObject({ a: { item: 1 }, b: { sent: 2 } });
    expect(result.effects).toHaveLength(2);
    expect((result.details?.trace as unknown[]).length).toBe(4);
  });

  it.each(FAILURE_CASES)('gives the same failure for %s, with the call named, after every call settled', async (_what, toolName, code) => {
    const { result } = await both(gather({ first: { tool: 'slow', inputMapping: { item: 1, ms: 5 } }, broken: { tool: toolName, inputMapping: {} }, last: { tool: 'send', inputMapping: { n: 2 } } }));
    expect(result.details).toMatchObject({ code, call: 'broken', step: 'steps[1].calls.broken' });
    expect(result.effects).toHaveLength(2);
  });

  it('gives the same first failure in key order, not in time order', async () => {
    const { result } = await both(gather({ slowFail: { tool: 'pick', inputMapping: { item: 0, at: 0, how: 'hangs' }, timeoutMs: 15 }, quickFail: { tool: 'fails', inputMapping: {} } }));
    expect(result.details).toMatchObject({ code: 'step_timeout', call: 'slowFail' });
  });

  it('gives the same refusal for arguments that are not an object', async () => {
    const { result } = await both(gather({ ok: { tool: 'inc', inputMapping: {} }, notObject: { tool: 'inc', inputMapping: '$input.n' } }), { n: 5 });
    expect(result.details).toMatchObject({ code: 'input_invalid', call: 'notObject' });
  });

  it('gives the same abort, before the calls and in the middle of them', async () => {
    const before = await both({ steps: [{ combinator: 'gather', calls: { a: { tool: 'inc', inputMapping: {} }, b: { tool: 'send', inputMapping: {} } } } as never] }, {}, () => {
      const controller = new AbortController();
      controller.abort();
      return { signal: controller.signal };
    });
    expect(before.result.details).toMatchObject({ code: 'step_aborted', call: 'a' });
    expect(before.result.effects).toEqual([]);
    // The first call aborts the run as it starts: the calls after it are refused.
    const middle = await both(
      gather({ stop: { tool: 'stopper', inputMapping: { item: 3, ms3: 0 } }, then: { tool: 'send', inputMapping: {} } }),
      {},
      () => ({ signal: (controller = new AbortController()).signal }),
    );
    expect(middle.result.details).toMatchObject({ code: 'step_aborted', call: 'then' });
  });

  it('gives the same cycle refusal for a composition that calls itself', async () => {
    const { reg, fast, general } = builders();
    const direct = vi.spyOn(Leaf.prototype, 'start');
    const results = [];
    for (const b of [fast, general]) {
      // Built calling a stand-in, then registered under its name: a cycle build cannot see.
      reg.add(inc, 'self_again');
      const self = b.build('self', 'self', { type: 'object' }, { steps: [{ combinator: 'gather', calls: { one: { tool: 'inc', inputMapping: {} }, again: { tool: 'self_again', inputMapping: {} } } } as never] });
      reg.add(self, 'self_again');
      results.push(await self.execute({}, {}));
    }
    expect(direct).toHaveBeenCalled();
    expect(results[0]).toEqual(results[1]);
    expect(results[0].details).toMatchObject({ code: 'composition_cycle', call: 'again' });
  });

  it('takes the general path for a named call, or in a dry run, with the same result', async () => {
    const { result } = await both(gather({ a: { tool: 'inc', name: 'x', inputMapping: {} }, b: { tool: 'inc', inputMapping: {} } }), {}, undefined, false);
    expect(result.success).toBe(true);
    const { fast, general } = builders();
    const spec = gather({ a: { tool: 'send', inputMapping: {} }, b: { tool: 'inc', inputMapping: {} } });
    const dry = { stepOutputs: { 'steps[1].calls.a': 'would send' } };
    const driven = vi.spyOn(Leaf.prototype, 'drive');
    driven.mockClear();
    const [a, b] = [await fast.runPipeline(spec, {}, {}, { dry }), await general.runPipeline(spec, {}, {}, { dry })];
    // A dry run takes the general path on both builders: every leaf is driven, the gather's two included.
    expect(driven.mock.contexts.filter((leaf) => (leaf as Leaf).label !== 'steps[0]')).toHaveLength(4);
    expect(a).toEqual(b);
    expect(a.output).toEqual({ a: 'would send', b: { n: 1 } });
  });
});
