/**
 * A gather on the fast path keeps its calls' records from one run to the next. A record must
 * never carry anything from one call to the next: a call that timed out and settles late, a run
 * still in flight beside another, a refusal.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { gateSettings } from '../../src/gate/settings.js';
import { delay, registry, tool } from '../helpers/tools.js';
import { raw } from '../gate/raw-tool.js';

/** Answers `value` after `ms` milliseconds, or, with `held`, when the test says (see `release`). */
const held = new Map<string, (output: unknown) => void>();
const wait = tool('wait', async (a) => {
  if (a.held) return new Promise((resolve) => held.set(String(a.value), resolve));
  await delay(Number(a.ms));
  return a.value;
});
/** Let the held call that answers `value` answer now. */
function release(value: string): void {
  held.get(value)!(value);
  held.delete(value);
}
const anyObject = { type: 'object' } as const;

/** Ends as `$input.how` says: fails, throws, rejects, hangs, answers a non-result or answers at once; else answers `value`. */
const moody = raw('moody', (a) => {
  switch (a.how) {
    case 'fails':
      return Promise.resolve({ success: false, error: 'nope', details: { code: 'boom' } });
    case 'throws':
      throw new Error('kaput');
    case 'rejects':
      return Promise.reject(new Error('no'));
    case 'hangs':
      return new Promise<never>(() => {});
    case 'bad':
      return Promise.resolve(42);
    case 'at once':
      return { success: true, output: a.value };
    default:
      return Promise.resolve({ success: true, output: a.value });
  }
});

function gatherTool() {
  const reg = registry(wait);
  const gate = reg.gate();
  expect(gateSettings(gate)).toBeDefined();
  const builder = new ComposableToolBuilder(gate);
  return builder.build('both', 'two waits at once', anyObject, {
    steps: [
      {
        combinator: 'gather',
        calls: {
          a: { tool: 'wait', inputMapping: { ms: '$input.msA', value: '$input.value', held: '$input.held' }, timeoutMs: 30 },
          b: { tool: 'wait', inputMapping: { ms: 1, value: 'b' } },
        },
      },
    ],
  });
}

describe('a gather keeps its records from run to run', () => {
  it('never lets a timed-out call that settles late answer the next run\'s call on the same record', async () => {
    const both = gatherTool();
    const first = await both.execute({ held: true, value: 'stale' }, {});
    expect(first.success).toBe(false);
    expect(first.details).toMatchObject({ code: 'step_timeout', call: 'a' });
    // The second run's call "a" runs on the record the first one used; the first call's tool
    // answers while it is in flight, then its own does.
    const second = both.execute({ held: true, value: 'fresh' }, {});
    await delay(5);
    expect([...held.keys()]).toEqual(['stale', 'fresh']);
    release('stale');
    await delay(5);
    release('fresh');
    expect((await second).output).toEqual({ a: 'fresh', b: 'b' });
  });

  it('gives runs in flight at once records of their own', async () => {
    const both = gatherTool();
    const runs = await Promise.all(Array.from({ length: 5 }, (_, i) => both.execute({ msA: 5 + ((i * 7) % 11), value: `v${i}` }, {})));
    expect(runs.map((r) => r.output)).toEqual(Array.from({ length: 5 }, (_, i) => ({ a: `v${i}`, b: 'b' })));
    // Run again after all have ended: the records kept are reused and still right.
    const again = await Promise.all(Array.from({ length: 3 }, (_, i) => both.execute({ msA: 3, value: `w${i}` }, {})));
    expect(again.map((r) => r.output)).toEqual(Array.from({ length: 3 }, (_, i) => ({ a: `w${i}`, b: 'b' })));
  });

  it('reuses a record after a refusal known at once', async () => {
    const both = gatherTool();
    const refused = await both.execute({ msA: 1, value: 'x' }, { signal: AbortSignal.abort() });
    expect(refused.details).toMatchObject({ code: 'step_aborted' });
    expect((await both.execute({ msA: 1, value: 'ok' }, {})).output).toEqual({ a: 'ok', b: 'b' });
  });

  it('reuses its records after every way a call can end, and each run answers as a fresh one would', async () => {
    const gate = registry(moody).gate();
    const both = new ComposableToolBuilder(gate).build('moody_pair', 'two calls', anyObject, {
      steps: [
        {
          combinator: 'gather',
          calls: {
            a: { tool: 'moody', inputMapping: { how: '$input.how', value: '$input.value' }, timeoutMs: 30 },
            b: { tool: 'moody', inputMapping: { value: 'b' } },
          },
        },
      ],
    });
    const endings: [string, string | undefined][] = [
      ['fails', 'step_failed'],
      ['throws', 'step_threw'],
      ['rejects', 'step_threw'],
      ['hangs', 'step_timeout'],
      ['bad', 'step_bad_result'],
      ['at once', undefined],
    ];
    for (const [how, code] of endings) {
      const ended = await both.execute({ how, value: how }, {});
      if (code === undefined) expect(ended.output).toEqual({ a: how, b: 'b' });
      else expect(ended.details).toMatchObject({ code, call: 'a' });
      const next = await both.execute({ value: `after ${how}` }, {});
      expect(next.output).toEqual({ a: `after ${how}`, b: 'b' });
    }
  });
});
