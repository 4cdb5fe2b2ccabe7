/**
 * The fast path for a top-level sequence of plain leaves (a gate with no host checks) against the
 * general path (forced here by a host's own gate object, driven through its `run`): the same specs give
 * the same results, successes and failures alike, timeouts included.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';
import { bad, fails, FAILURE_CASES, fastAndGeneral, hangs, inc, send, throws, undeclared, unlisted } from '../helpers/misbehaving-tools.js';

const number = tool('number', () => 7);

/** The fast and the general path over this file's tools. */
function builders(extra: ITool[] = []) {
  return fastAndGeneral([inc, send, unlisted, undeclared, fails, throws, number, hangs, bad, ...extra], ['send']);
}

async function both(spec: ComposableToolSpec, input: Record<string, unknown> = { n: 0 }, context: ToolExecutionContext = {}) {
  const { fast, general, repair } = builders();
  const a = await fast.build('c', 'c', { type: 'object' }, spec).execute(input, context);
  repair();
  const b = await general.build('c', 'c', { type: 'object' }, spec).execute(input, context);
  expect(a).toEqual(b);
  return a;
}

const step = (toolName: string, extra: Record<string, unknown> = {}) => ({ tool: toolName, inputMapping: { n: '$prev.n' }, ...extra });

describe('the chain fast path', () => {
  it('gives the same success: outputs, names, output mapping, effects and trace', async () => {
    const result = await both({
      steps: [{ name: 'first', tool: 'inc', inputMapping: { n: '$input.n' } }, step('inc'), step('send', { name: 'sent' }), { tool: 'inc', inputMapping: { n: '$steps.first.n' } }],
      output: { last: '$prev.n', first: '$steps.first.n', sent: '$steps.sent.sent' },
    });
    expect(result).toMatchObject({ success: true, output: { last: 2, first: 1, sent: 2 }, effects: [{ step: 'sent', tool: 'send', ran: true, outcome: 'ran' }] });
    expect((result.details?.trace as unknown[]).length).toBe(4);
  });

  it.each(FAILURE_CASES)('gives the same failure for %s, after steps with effects', async (_what, toolName, code) => {
    const started = Date.now();
    // `sabotage` breaks the refused names in the registry once the run has started.
    const result = await both({ steps: [{ tool: 'sabotage', inputMapping: { n: '$input.n' } }, step('send'), step(toolName, { name: 'bad_step' })] });
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code, step: 'bad_step', completed: ['steps[0]', 'steps[1]'] });
    expect(result.effects).toEqual([{ step: 'steps[1]', tool: 'send', ran: true, outcome: 'ran' }]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives the same refusal for arguments that are not an object', async () => {
    const result = await both({ steps: [{ tool: 'number' }, { tool: 'inc', inputMapping: '$prev' } as never] });
    expect(result.details?.code).toBe('input_invalid');
  });

  it('gives the same abort', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await both({ steps: [step('inc')] }, { n: 0 }, { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
  });

  it('gives the same cycle refusal for a composition that calls itself', async () => {
    const { reg, fast, general } = builders();
    const results = [];
    for (const b of [fast, general]) {
      // Built calling a stand-in, then registered under its name: a cycle build cannot see.
      reg.add(inc, 'again');
      const self = b.build('self', 'self', { type: 'object' }, { steps: [{ tool: 'inc', inputMapping: { n: '$input.n' } }, { tool: 'again', inputMapping: {} }] });
      reg.add(self, 'again');
      results.push(await self.execute({ n: 0 }, {}));
    }
    expect(results[0]).toEqual(results[1]);
    expect(results[0].details?.code).toBe('composition_cycle');
  });

  it('re-checks the rule at every run: a tool removed and put back by name is checked again', async () => {
    const { reg, fast, general } = builders();
    reg.add(inc, 'later');
    const spec = { steps: [step('inc'), step('later')] };
    const tools = [fast, general].map((b) => b.build('c', 'c', { type: 'object' }, spec));
    reg.map.delete('later');
    const missing = await Promise.all(tools.map((t) => t.execute({ n: 0 }, {})));
    expect(missing[0]).toEqual(missing[1]);
    // Checked before the first step runs: nothing ran.
    expect(missing[0].details).toMatchObject({ code: 'step_missing', step: 'steps[1]', completed: [] });
    reg.add(inc, 'later');
    const ok = await Promise.all(tools.map((t) => t.execute({ n: 0 }, {})));
    expect(ok[0]).toEqual(ok[1]);
    expect(ok[0].success).toBe(true);
  });
});

describe('outputs read by position', () => {
  // A run keeps every step's output only when some reference reads one by position; wherever that
  // reference sits (the output mapping, a template, a nested node, a condition), the read is seen.
  const echo = tool('echo', (a) => a);
  const cases: [string, ComposableToolSpec, unknown][] = [
    ['the output mapping', { steps: [step('inc'), step('inc')], output: { first: '$steps[0].n', last: '$prev.n' } }, { first: 1, last: 2 }],
    ['a template', { steps: [step('inc'), step('inc'), { tool: 'echo', args: { text: 'first ${$steps[0].n}' } }] }, { text: 'first 1' }],
    [
      'a for_each template',
      { steps: [step('inc'), { combinator: 'for_each', items: '$input.list', template: { tool: 'echo', args: { at: '$steps[0].n' } } }] },
      [{ at: 1 }, { at: 1 }],
    ],
    ['a condition', { steps: [step('inc'), step('inc'), { tool: 'echo', args: { ok: true }, when: { path: '$steps[0].n', equals: 1 } }] }, { ok: true }],
  ];
  for (const [where, spec, expected] of cases) {
    it(`are kept when ${where} reads them`, async () => {
      const { fast, general, repair } = fastAndGeneral([inc, echo], []);
      const a = await fast.build('c', 'c', { type: 'object' }, spec).execute({ n: 0, list: [1, 2] }, {});
      repair();
      const b = await general.build('c', 'c', { type: 'object' }, spec).execute({ n: 0, list: [1, 2] }, {});
      expect(a.success ? a.output : a).toEqual(expected);
      expect(b).toEqual(a);
    });
  }

  it('are not needed by a chain that reads only the step before, and its trace still lists every step', async () => {
    const result = await both({ steps: [step('inc'), step('inc'), step('inc')] });
    expect(result.output).toEqual({ n: 3 });
    expect((result.details?.trace as { step: string; ok: boolean }[]).map((e) => [e.step, e.ok])).toEqual([
      ['steps[0]', true],
      ['steps[1]', true],
      ['steps[2]', true],
    ]);
  });

  it('list the steps that succeeded before the failure, in order, in the trace of a chain that fails', async () => {
    const result = await both({ steps: [step('inc'), step('inc'), step('fails'), step('inc')] });
    expect(result.success).toBe(false);
    expect((result.details?.trace as { step: string; ok: boolean }[]).map((e) => [e.step, e.ok])).toEqual([
      ['steps[0]', true],
      ['steps[1]', true],
      ['steps[2]', false],
    ]);
    expect(result.details?.completed).toEqual(['steps[0]', 'steps[1]']);
  });
});
