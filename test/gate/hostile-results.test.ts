import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ITool } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';
import { raw } from './raw-tool.js';

const throwingGetter = (field: string, base: Record<string, unknown> = {}) =>
  Object.defineProperty({ ...base }, field, {
    get() {
      throw new Error(`${field} getter`);
    },
    enumerable: true,
  });

let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** Run `t` through the gate, alone and as a step, and let any stray rejection surface. */
async function runBoth(t: ITool, timeoutMs = 1000) {
  const reg = registry(t);
  const direct = await reg.gate().run(t, {}, {}, undefined, { timeoutMs });
  const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: timeoutMs });
  const step = await builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: t.name, inputMapping: {} }] }).execute({}, {});
  await delay(20);
  return { direct, step };
}

describe('a result that throws when read never escapes the gate', () => {
  const cases: [string, () => unknown][] = [
    ['a throwing success getter, resolved', () => Promise.resolve(throwingGetter('success'))],
    ['a throwing success getter, returned', () => throwingGetter('success')],
    ['a failure with a throwing details getter', () => Promise.resolve(throwingGetter('details', { success: false, error: 'x' }))],
    ['a failure with a throwing error getter', () => Promise.resolve(throwingGetter('error', { success: false }))],
    [
      'a thenable whose then throws',
      () => ({
        then() {
          throw new Error('then');
        },
      }),
    ],
    ['a thenable whose then getter throws', () => throwingGetter('then')],
    ['a thenable that resolves to a throwing getter', () => ({ then: (ok: (v: unknown) => void) => ok(throwingGetter('success')) })],
  ];

  it.each(cases)('%s is step_bad_result, at once, with no unhandled rejection', async (_, answer) => {
    const { direct, step } = await runBoth(raw('hostile', answer));
    expect(direct.details).toMatchObject({ code: 'step_bad_result', tool: 'hostile' });
    expect(step.details).toMatchObject({ code: 'step_bad_result', step: 'steps[0]' });
    expect(unhandled).toEqual([]);
  });

  it('a thenable that rejects is step_threw', async () => {
    const { direct } = await runBoth(raw('hostile', () => ({ then: (_: unknown, no: (e: unknown) => void) => no(new Error('nope')) })));
    expect(direct.details?.code).toBe('step_threw');
    expect(direct.error).toMatch(/nope/);
  });

  it('a thenable that settles twice is heard once: its stale second value never reaches the next step', async () => {
    const twice = raw('twice', () => ({
      then(ok: (v: unknown) => void) {
        ok({ success: true, output: { v: 'first' } });
        setTimeout(() => ok({ success: true, output: { v: 'stale' } }), 5);
      },
    }));
    const next = tool('next', async (a) => (await delay(30), `next saw ${String(a.v)}`));
    const reg = registry(twice, next);
    const builder = new ComposableToolBuilder(reg.gate());
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ tool: 'twice', inputMapping: {} }, { tool: 'next', inputMapping: { v: '$prev.v' } }, { tool: 'next', inputMapping: { v: '$prev' } }],
    });
    const result = await composite.execute({}, {});
    expect(result).toMatchObject({ success: true, output: 'next saw next saw first' });
    expect(next.calls).toEqual([{ v: 'first' }, { v: 'next saw first' }]);
  });

  it('a native promise whose own then was replaced is heard through the native then, once', async () => {
    const forged = raw('forged', () => {
      const promise = delay(5).then(() => ({ success: true, output: 'real' }));
      // Calls back at once, twice, with values the promise never settled with.
      Object.defineProperty(promise, 'then', {
        value: (ok: (v: unknown) => void) => {
          ok({ success: true, output: 'forged' });
          ok({ success: true, output: 'forged again' });
        },
      });
      return promise;
    });
    const next = tool('next', async (a) => `next saw ${String(a.v)}`);
    const reg = registry(forged, next);
    const { direct, step } = await runBoth(forged);
    expect(direct).toEqual({ success: true, output: 'real' });
    expect(step).toMatchObject({ success: true, output: 'real' });
    const composite = new ComposableToolBuilder(reg.gate()).build('c', 'c', { type: 'object' }, {
      steps: [{ tool: 'forged', inputMapping: {} }, { tool: 'next', inputMapping: { v: '$prev' } }],
    });
    expect(await composite.execute({}, {})).toMatchObject({ success: true, output: 'next saw real' });
    expect(next.calls).toEqual([{ v: 'real' }]);
  });

  it('a native promise whose then getter throws is step_bad_result, as any thenable whose then getter throws', async () => {
    const { direct, step } = await runBoth(
      raw('hostile', () => {
        const promise = Promise.resolve({ success: true, output: 'real' });
        Object.defineProperty(promise, 'then', {
          get() {
            throw new Error('then getter');
          },
        });
        return promise;
      }),
    );
    expect(direct.details).toMatchObject({ code: 'step_bad_result', tool: 'hostile' });
    expect(step.details).toMatchObject({ code: 'step_bad_result', step: 'steps[0]' });
    expect(unhandled).toEqual([]);
  });

  it('a tool that settles after its timeout does not reach the call after it', async () => {
    let release: (v: unknown) => void = () => {};
    const late = raw('late', () => new Promise((r) => (release = r)));
    const reg = registry(late);
    const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: 30 });
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ combinator: 'for_each', items: '$input.items', concurrency: 1, template: { tool: 'late', inputMapping: {} }, onError: 'continue' }],
    });
    const result = await composite.execute({ items: [1, 2] }, {});
    expect(result.details?.continued).toMatchObject([{ details: { code: 'step_timeout' } }]);
    release({ success: true, output: 'too late' });
    await delay(20);
    expect(unhandled).toEqual([]);
  });
});
