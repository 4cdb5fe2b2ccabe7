/**
 * Step timeouts through every way a leaf is driven: a sequence's lane (reused from step to step),
 * a for_each worker's lane (reused from item to item), a gather's lane per call, and the gate's
 * own callback and promise forms. A step that never settles ends with `step_timeout` within its
 * timeout plus about one watchdog tick; a tool that settles after its timeout changes nothing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { release, ticksFor, unwatch, watch, type Watch } from '../../src/gate/watchdog.js';
import type { ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** A tool that settles only when the test says so (or never). */
function hanging(name: string) {
  let settle: ((result: ToolExecutionResult) => void) | undefined;
  let started = 0;
  const t = tool(name, () => {
    started++;
    return new Promise<ToolExecutionResult>((resolve) => {
      settle = resolve;
    });
  });
  return { tool: t, started: () => started, settleLate: (result: ToolExecutionResult) => settle?.(result) };
}

function setup() {
  const hang = hanging('hang');
  const inc = tool('inc', (a) => ({ n: Number(a.n ?? 0) + 1 }));
  const reg = registry(inc, hang.tool);
  const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: 40 });
  return { builder, hang, inc };
}

/** How long a step that never settles may take to time out: its timeout, a tick or two, and slack for a busy machine. */
const LATE_MS = 250;

describe('step timeouts', () => {
  it('end a sequence whose lane has already run quick steps', async () => {
    const { builder, hang } = setup();
    const started = Date.now();
    const result = await builder.runPipeline(
      {
        steps: [
          { tool: 'inc', inputMapping: { n: '$input.n' } },
          { tool: 'inc', inputMapping: { n: '$prev.n' } },
          { name: 'stuck', tool: 'hang', timeoutMs: 30 },
          { tool: 'inc', inputMapping: { n: 1 } },
        ],
      },
      { n: 0 },
      {},
    );
    const took = Date.now() - started;
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'step_timeout', step: 'stuck', timeoutMs: 30, completed: ['steps[0]', 'steps[1]'] });
    expect(took).toBeGreaterThanOrEqual(29);
    expect(took).toBeLessThan(30 + LATE_MS);
    expect(hang.started()).toBe(1);
  });

  it('ignore a tool that settles after its timeout, and leave the next run unaffected', async () => {
    const { builder, hang } = setup();
    const spec = { steps: [{ tool: 'hang', timeoutMs: 20 }] };
    const first = await builder.runPipeline(spec, {}, {});
    expect(first.details?.code).toBe('step_timeout');
    hang.settleLate({ success: true, output: 'too late' });
    await delay(5);
    const second = await builder.runPipeline({ steps: [{ tool: 'inc', inputMapping: { n: 1 } }, { tool: 'inc', inputMapping: { n: '$prev.n' } }] }, {}, {});
    expect(second).toMatchObject({ success: true, output: { n: 3 } });
  });

  it('end a for_each whose workers have already run quick items', async () => {
    const hang = hanging('hang');
    let calls = 0;
    const maybe = tool('maybe', (a) => {
      calls++;
      return a.item === 7 ? hang.tool.execute({}, {}) : a.item;
    });
    const reg = registry(maybe);
    const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: 30 });
    const started = Date.now();
    const result = await builder.runPipeline(
      { steps: [{ combinator: 'for_each', items: '$input.items', concurrency: 3, template: { tool: 'maybe', inputMapping: { item: '$item' } } }] },
      { items: Array.from({ length: 20 }, (_, i) => i) },
      {},
    );
    expect(result.details).toMatchObject({ code: 'step_timeout', index: 7 });
    expect(Date.now() - started).toBeLessThan(30 + LATE_MS);
    // The other workers went on with the quick items meanwhile.
    expect(calls).toBe(20);
  });

  it('end one call of a gather while the others complete', async () => {
    const { builder } = setup();
    const result = await builder.runPipeline(
      { steps: [{ combinator: 'gather', calls: { a: { tool: 'inc', inputMapping: { n: 1 } }, stuck: { tool: 'hang', timeoutMs: 25 }, b: { tool: 'inc', inputMapping: { n: 2 } } } }] },
      {},
      {},
    );
    expect(result.details).toMatchObject({ code: 'step_timeout', call: 'stuck' });
    const trace = result.details?.trace as { step: string; ok: boolean }[];
    expect(trace.filter((t) => t.ok).map((t) => t.step)).toEqual(['steps[0].calls.a', 'steps[0].calls.b']);
  });

  it('apply through the gate alone, in its promise form', async () => {
    const { hang } = setup();
    const gate = registry(hang.tool).gate();
    const started = Date.now();
    const result = await gate.run(hang.tool, {}, {}, undefined, { timeoutMs: 20, step: 'alone' });
    expect(result.details).toMatchObject({ code: 'step_timeout', step: 'alone', timeoutMs: 20 });
    expect(Date.now() - started).toBeLessThan(20 + LATE_MS);
  });

  it('reuse a lane with a timeout after a step with none', async () => {
    const { hang, inc } = setup();
    // No default timeout: the first step is untimed; the second has its own.
    const builder = new ComposableToolBuilder(registry(inc, hang.tool).gate(), { stepTimeoutMs: Number.POSITIVE_INFINITY });
    const result = await builder.runPipeline(
      { steps: [{ tool: 'inc', inputMapping: { n: 1 } }, { tool: 'hang', timeoutMs: 20 }] },
      {},
      {},
    );
    expect(result.details).toMatchObject({ code: 'step_timeout', completed: ['steps[0]'] });
  });
});

describe('the watchdog', () => {
  afterEach(() => {
    // A tick with nothing armed stops the interval, so the next test starts with none (a fake
    // clock's interval left behind would never tick again).
    if (vi.isFakeTimers()) vi.advanceTimersByTime(20);
    vi.useRealTimers();
  });

  const entry = (): Watch & { expired: number } => ({
    expiresAt: 0,
    index: -1,
    armed: false,
    expired: 0,
    expire() {
      this.expired++;
    },
  });

  it('expires an entry once, no earlier than asked, at the tick its deadline falls on', () => {
    vi.useFakeTimers();
    const e = entry();
    // 35 ms is 5 ticks of 10 ms: due at the fifth tick, 50 ms from now.
    watch(e, ticksFor(35));
    vi.advanceTimersByTime(30);
    expect(e.expired).toBe(0);
    vi.advanceTimersByTime(19);
    expect(e.expired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(e.expired).toBe(1);
    vi.advanceTimersByTime(100);
    expect(e.expired).toBe(1);
    // It expired, so it can no longer be taken off.
    expect(unwatch(e)).toBe(false);
  });

  it('never expires an entry taken off in time, kept on the list or not', () => {
    vi.useFakeTimers();
    const kept = entry();
    const dropped = entry();
    watch(kept, ticksFor(20));
    watch(dropped, ticksFor(20));
    expect(unwatch(kept, true)).toBe(true);
    expect(unwatch(dropped)).toBe(true);
    expect(kept.index).toBeGreaterThanOrEqual(0);
    expect(dropped.index).toBe(-1);
    vi.advanceTimersByTime(100);
    expect(kept.expired + dropped.expired).toBe(0);
    // A kept entry is armed again for its next call, and expires like any other.
    watch(kept, ticksFor(20));
    vi.advanceTimersByTime(40);
    expect(kept.expired).toBe(1);
    release(kept);
    expect(kept.index).toBe(-1);
  });

  it('counts an entry armed again in flight once, so the interval still stops when it is disarmed', () => {
    vi.useFakeTimers();
    const e = entry();
    watch(e, ticksFor(20));
    watch(e, ticksFor(20));
    expect(unwatch(e)).toBe(true);
    vi.advanceTimersByTime(20);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps a listed entry in its place when it is armed again, and takes the only entry off the list', () => {
    vi.useFakeTimers();
    const e = entry();
    watch(e, ticksFor(20));
    const at = e.index;
    expect(at).toBe(0);
    expect(unwatch(e, true)).toBe(true);
    watch(e, ticksFor(20));
    expect(e.index).toBe(at);
    release(e);
    expect(e.index).toBe(-1);
  });

  it('lists an entry once however often it is taken off and armed again, so it expires once', () => {
    vi.useFakeTimers();
    const e = entry();
    watch(e, ticksFor(20));
    expect(unwatch(e)).toBe(true);
    watch(e, ticksFor(20));
    vi.advanceTimersByTime(40);
    expect(e.expired).toBe(1);
  });

  it('counts a timeout in ticks, and none for a timeout that sets none', () => {
    expect(ticksFor(35)).toBe(5);
    expect(ticksFor(10)).toBe(2);
    expect(ticksFor(0.5)).toBe(2);
    for (const none of [undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) expect(ticksFor(none)).toBe(0);
  });

  it('restarts the interval for an entry armed again after everything was disarmed', () => {
    vi.useFakeTimers();
    const e = entry();
    watch(e, ticksFor(20));
    expect(unwatch(e, true)).toBe(true);
    // A tick with nothing armed stops the interval; arming the listed entry again must restart it.
    vi.advanceTimersByTime(50);
    watch(e, ticksFor(20));
    vi.advanceTimersByTime(40);
    expect(e.expired).toBe(1);
    release(e);
  });

  it('disarms an entry released while armed', () => {
    vi.useFakeTimers();
    const e = entry();
    watch(e, ticksFor(20));
    release(e);
    vi.advanceTimersByTime(100);
    expect(e.expired).toBe(0);
    expect(unwatch(e)).toBe(false);
  });
});
