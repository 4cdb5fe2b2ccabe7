/**
 * Every call through the gate ends exactly once, with a result of the right shape, however its
 * tool behaves around its deadline and whatever it returns. The host sees each ending through
 * `context.onEvent`, so a second delivery would show there as a second `call_ended`.
 */
import { describe, expect, it, vi } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ToolEvent } from '../../src/tool-events.js';
import { GateCall } from '../../src/gate/call-record.js';
import { gateSettings } from '../../src/gate/settings.js';
import { ENTRY, startCall } from '../../src/gate/pipeline.js';
import type { StepGate } from '../../src/gate/options.js';
import { release, ticksFor } from '../../src/gate/watchdog.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';
import { raw } from './raw-tool.js';

/** The `call_ended` events a listener heard, as [tool, code or 'ok']. */
function endings(events: ToolEvent[]): [string, string][] {
  return events.filter((e) => e.type === 'call_ended').map((e) => [e.tool, e.type === 'call_ended' && e.ok ? 'ok' : String(e.type === 'call_ended' ? e.code : '')]);
}

describe('a call ends exactly once', () => {
  it('a tool that answers before its deadline is not also timed out when the deadline passes', async () => {
    const quick = raw('quick', () => Promise.resolve({ success: true, output: 1 }));
    const gate = registry(quick).gate();
    const events: ToolEvent[] = [];
    const result = await gate.run(quick, {}, { onEvent: (e) => events.push(e) }, undefined, { timeoutMs: 20 });
    expect(result).toEqual({ success: true, output: 1 });
    await delay(120);
    expect(endings(events)).toEqual([['quick', 'ok']]);
  });

  it('a tool that fails before its deadline is not also timed out', async () => {
    const failing = raw('failing', () => Promise.reject(new Error('no')));
    const gate = registry(failing).gate();
    const events: ToolEvent[] = [];
    const result = await gate.run(failing, {}, { onEvent: (e) => events.push(e) }, undefined, { timeoutMs: 20 });
    expect(result.details?.code).toBe('step_threw');
    await delay(120);
    expect(endings(events)).toEqual([['failing', 'step_threw']]);
  });

  it('a tool that times out and then rejects ends once, with step_timeout', async () => {
    const late = raw('late', () => delay(300).then(() => Promise.reject(new Error('too late'))));
    const gate = registry(late).gate();
    const events: ToolEvent[] = [];
    const result = await gate.run(late, {}, { onEvent: (e) => events.push(e) }, undefined, { timeoutMs: 20 });
    expect(result.details).toMatchObject({ code: 'step_timeout', timeoutMs: 20, tool: 'late' });
    expect(result.error).toBe('Tool "late" did not finish within 20 ms.');
    await delay(400);
    expect(endings(events)).toEqual([['late', 'step_timeout']]);
  });

  it('a tool that times out and then resolves ends once, with step_timeout', async () => {
    const late = raw('late', () => delay(300).then(() => ({ success: true, output: 'too late' })));
    const gate = registry(late).gate();
    const events: ToolEvent[] = [];
    expect((await gate.run(late, {}, { onEvent: (e) => events.push(e) }, undefined, { timeoutMs: 20 })).details?.code).toBe('step_timeout');
    await delay(400);
    expect(endings(events)).toEqual([['late', 'step_timeout']]);
  });

  it('in a sequence, each step ends once and a quick step is never timed out by its deadline passing later', async () => {
    const quick = tool('quick', (a) => a.n);
    const reg = registry(quick);
    const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: 20 });
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [
        { tool: 'quick', inputMapping: { n: 1 } },
        { tool: 'quick', inputMapping: { n: 2 } },
        { tool: 'quick', inputMapping: { n: 3 } },
      ],
    });
    const events: ToolEvent[] = [];
    const result = await composite.execute({}, { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ success: true, output: 3 });
    await delay(120);
    expect(endings(events)).toEqual([
      ['quick', 'ok'],
      ['quick', 'ok'],
      ['quick', 'ok'],
    ]);
  });

  it.each([
    ['with no host checks', {}],
    ['with a host check', { checks: [() => ({ isAllowed: true })] }],
  ])('in a gather (%s), a quick call whose deadline passes while another still runs is recorded once', async (_, gateOptions) => {
    const quick = tool('quick', () => 'quick done');
    const failing = raw('failing', () => Promise.reject(new Error('no')));
    const slow = tool('slow', async () => (await delay(250), 'slow done'));
    const reg = registry(quick, failing, slow);
    const builder = new ComposableToolBuilder(reg.gate(gateOptions));
    /** `first` with a 15 ms deadline, beside a call that takes 250 ms (well within its own). */
    const besideSlow = (first: Record<string, unknown>) =>
      builder.build('c', 'c', { type: 'object' }, { steps: [{ combinator: 'gather', calls: { a: { inputMapping: {}, timeoutMs: 15, ...first } as never, b: { tool: 'slow', inputMapping: {}, timeoutMs: 2000 } } }] }).execute({}, {});
    // The trace has one entry per call: a second ending (a step_timeout after the answer) would add one.
    const succeeded = await besideSlow({ tool: 'quick' });
    expect(succeeded).toMatchObject({ success: true, output: { a: 'quick done', b: 'slow done' } });
    expect(succeeded.details?.trace).toEqual([
      { step: 'steps[0].calls.a', tool: 'quick', ok: true },
      { step: 'steps[0].calls.b', tool: 'slow', ok: true },
    ]);
    const failed = await besideSlow({ tool: 'failing', onError: 'continue' });
    expect(failed).toMatchObject({ success: true, output: { a: null, b: 'slow done' } });
    expect(failed.details?.continued).toEqual([expect.objectContaining({ details: expect.objectContaining({ code: 'step_threw' }) })]);
    expect(failed.details?.trace).toEqual([
      { step: 'steps[0].calls.a', tool: 'failing', ok: false, code: 'step_threw' },
      { step: 'steps[0].calls.b', tool: 'slow', ok: true },
    ]);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('a timeout of %s means no deadline', async (timeoutMs) => {
    const slow = tool('slow', async () => (await delay(30), 'done'));
    const gate = registry(slow).gate();
    expect(await gate.run(slow, {}, {}, undefined, { timeoutMs })).toEqual({ success: true, output: 'done' });
  });

  it('the deadline is measured from the start: a tool well inside it is not timed out', async () => {
    const steady = tool('steady', async () => (await delay(10), 'done'));
    const gate = registry(steady).gate();
    for (let i = 0; i < 5; i++) expect((await gate.run(steady, {}, {}, undefined, { timeoutMs: 400 })).output).toBe('done');
  });
});

/** A record as the engine makes one: its deliveries, in order. */
class Recorder extends GateCall {
  declare delivered: ToolExecutionResult[];
  constructor() {
    super();
    this.delivered = [];
  }
  override deliver(result: ToolExecutionResult): void {
    this.delivered.push(result);
  }
}

/** Send `tool` through the gate's own stages in `record`, as `gate.run` does. */
function starter(gate: StepGate) {
  const settings = gateSettings(gate)!;
  return (record: GateCall, tool: ITool, step: string, timeoutMs: number) => {
    record.aim(tool.name, step, timeoutMs, ticksFor(timeoutMs), {}, {}, undefined, settings);
    record.tool = tool;
    return startCall(record, ENTRY.gate);
  };
}

describe("the gate's record form: a record aimed again after its call timed out", () => {
  it.each([
    ['reused call after call, as a sequence does', true],
    ['made for one call at a time', false],
  ])('%s, never hears the timed-out call answer late', async (_, reused) => {
    const late = raw('late', () => delay(150).then(() => ({ success: true, output: 'stale' })));
    const fresh = raw('fresh', () => delay(300).then(() => ({ success: true, output: 'fresh' })));
    const failLate = raw('fail_late', () => delay(150).then(() => Promise.reject(new Error('stale'))));
    const reg = registry(late, fresh, failLate);
    const start = starter(reg.gate());
    for (const first of [late, failLate]) {
      const record = new Recorder();
      record.reused = reused;
      expect(start(record, first, 'first', 20)).toBeUndefined();
      await vi.waitFor(() => expect(record.delivered).toHaveLength(1), { timeout: 1000, interval: 5 });
      expect(record.delivered[0].details).toMatchObject({ code: 'step_timeout', step: 'first' });
      // Aimed again at once, as a sequence does; the first tool answers while the second runs.
      expect(start(record, fresh, 'second', 2000)).toBeUndefined();
      await vi.waitFor(() => expect(record.delivered).toHaveLength(2), { timeout: 2000, interval: 5 });
      await delay(50);
      expect(record.delivered[1]).toEqual({ success: true, output: 'fresh' });
      expect(record.delivered).toHaveLength(2);
      release(record);
    }
  });
});

describe("the gate's record form: the watchdog's list", () => {
  it('a record made for one call leaves the list when its call ends; one reused call after call stays until released', async () => {
    const quick = raw('quick', () => delay(5).then(() => ({ success: true, output: 'ok' })));
    const start = starter(registry(quick).gate());
    const once = new Recorder();
    const kept = new Recorder();
    kept.reused = true;
    for (const record of [once, kept]) {
      expect(start(record, quick, 'only', 1000)).toBeUndefined();
      expect(record.index).toBeGreaterThanOrEqual(0);
      await vi.waitFor(() => expect(record.delivered).toEqual([{ success: true, output: 'ok' }]), { timeout: 1000, interval: 5 });
    }
    // Otherwise every call with a timeout would leave its record on the module's list for good.
    expect(once.index).toBe(-1);
    expect(kept.index).toBeGreaterThanOrEqual(0);
    release(kept);
    expect(kept.index).toBe(-1);
  });
});

describe('what a tool returns must be a result', () => {
  const answers: [string, () => unknown][] = [
    ['null, resolved', () => Promise.resolve(null)],
    ['null, returned', () => null],
    ['a number', () => Promise.resolve(42)],
    ['an array', () => Promise.resolve([{ success: true }])],
    ['an object without success', () => Promise.resolve({ output: 'x' })],
    ["success: 'false'", () => Promise.resolve({ success: 'false', error: 'x' })],
    ["success: 'true'", () => Promise.resolve({ success: 'true', output: 'x' })],
    ['success: 1', () => Promise.resolve({ success: 1, output: 'x' })],
    ['success: 0', () => Promise.resolve({ success: 0 })],
    ['a function', () => Promise.resolve(() => ({ success: true }))],
  ];

  it.each(answers)('%s is step_bad_result, directly and as a step, and the run goes on', async (_, answer) => {
    const odd = raw('odd', answer);
    const after = tool('after', () => 'after ran');
    const reg = registry(odd, after);
    const direct = await reg.gate().run(odd, {}, {}, undefined, { step: 'first' });
    expect(direct).toEqual({
      success: false,
      error: 'Tool "odd" returned something that is not a tool result.',
      details: { code: 'step_bad_result', tool: 'odd', step: 'first' },
    });
    const builder = new ComposableToolBuilder(reg.gate());
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ tool: 'odd', inputMapping: {}, onError: 'continue' }, { tool: 'after', inputMapping: {} }],
    });
    const result = await composite.execute({}, {});
    expect(result).toMatchObject({ success: true, output: 'after ran' });
  });

  it('a success of the right shape is passed on as it is, extra fields and all', async () => {
    const answer = { success: true, output: { a: 1 }, effects: [], extra: 'kept' };
    const ok = raw('ok', () => Promise.resolve(answer));
    expect(await registry(ok).gate().run(ok, {}, {})).toBe(answer);
  });
});

describe("a tool's own failure", () => {
  it('keeps its message, its fields and its effects, with its code as innerCode', async () => {
    const effects = [{ step: 'x', tool: 'y', ran: true }];
    const failing = raw('failing', () => Promise.resolve({ success: false, error: 'disk full', details: { code: 'ENOSPC', path: '/tmp' }, effects }));
    const result = await registry(failing).gate().run(failing, {}, {}, undefined, { step: 'save' });
    expect(result).toEqual({
      success: false,
      error: 'disk full',
      details: { code: 'step_failed', innerCode: 'ENOSPC', path: '/tmp', tool: 'failing', step: 'save' },
      effects,
    });
  });

  it('without a message or details gets a message naming the tool', async () => {
    for (const error of [undefined, '', 7]) {
      const failing = raw('failing', () => Promise.resolve({ success: false, error }));
      const result = await registry(failing).gate().run(failing, {}, {});
      expect(result).toEqual({ success: false, error: 'Tool "failing" failed.', details: { code: 'step_failed', innerCode: undefined, tool: 'failing', step: 'failing' } });
    }
  });
});
