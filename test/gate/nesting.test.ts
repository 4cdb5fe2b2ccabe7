/**
 * The depth and cycle guards as a composition's caller sees them: a cycle through other
 * compositions is refused at once, a depth the host's context carries cannot raise the limit,
 * and an abort reaches every nested composition.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { MAX_COMPOSITION_DEPTH } from '../../src/gate/depth.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** A registry with a side-effecting `log` tool, and a builder that may chain it and `chainable`. */
function setup(chainable: string[]) {
  const log = tool('log', (a) => a, { hasSideEffects: true });
  const reg = registry(log);
  const builder = new ComposableToolBuilder(reg.gate());
  builder.bind({ sideEffectingTools: ['log', ...chainable] });
  const add = (name: string, spec: ComposableToolSpec): ITool => {
    const built = builder.build(name, name, { type: 'object' }, spec) as ITool;
    reg.add(built);
    return built;
  };
  /** A pure stand-in under `name`, so a spec that calls a composition built later passes the build's check. */
  const later = (name: string) => reg.add(tool(name, () => 'stand-in'));
  /**
   * Build each spec against stand-ins for the others, then register them all: a cycle that only
   * the registry closes, which build cannot see, so the run-time guard is what refuses it.
   */
  const closed = (specs: Record<string, ComposableToolSpec>): Record<string, ITool> => {
    for (const name of Object.keys(specs)) later(name);
    const built = Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, builder.build(name, name, { type: 'object' }, spec) as ITool]));
    for (const t of Object.values(built)) reg.add(t);
    return built;
  };
  return { reg, log, add, later, closed };
}

/** The codes of a failure, outermost first, down its `inner` chain. */
function codes(result: ToolExecutionResult): string[] {
  const out: string[] = [];
  let d: Record<string, unknown> | undefined = result.details;
  while (d) {
    if (typeof d.code === 'string') out.push(d.code);
    if (typeof d.innerCode === 'string') out.push(d.innerCode);
    d = d.inner as Record<string, unknown> | undefined;
  }
  return out;
}

describe('cycles through other compositions', () => {
  it('A calls B calls A: refused with composition_cycle when A is reached again, before its side effects', async () => {
    const { log, closed } = setup(['a', 'b']);
    const { a } = closed({
      b: { steps: [{ tool: 'log', inputMapping: { from: 'b' } }, { tool: 'a', inputMapping: {} }] },
      a: { steps: [{ tool: 'log', inputMapping: { from: 'a' } }, { tool: 'b', inputMapping: {} }] },
    });
    const result = await a.execute({}, {});
    expect(result.success).toBe(false);
    expect(codes(result)).toContain('composition_cycle');
    expect(codes(result)).not.toContain('nesting_too_deep');
    expect(JSON.stringify(result.details)).toContain('"path":["toolweave:a","toolweave:b","toolweave:a"]');
    // One effect per composition entered: A, then B; the second A never ran a step.
    expect(log.calls).toEqual([{ from: 'a' }, { from: 'b' }]);
  });

  it('A calls B calls C calls B: the cycle is found below the top too', async () => {
    const { log, add, later, closed } = setup(['b', 'c']);
    later('b');
    const a = add('a', { steps: [{ tool: 'log', inputMapping: { from: 'a' } }, { tool: 'b', inputMapping: {} }] });
    closed({
      c: { steps: [{ tool: 'log', inputMapping: { from: 'c' } }, { tool: 'b', inputMapping: {} }] },
      b: { steps: [{ tool: 'log', inputMapping: { from: 'b' } }, { tool: 'c', inputMapping: {} }] },
    });
    const result = await a.execute({}, {});
    expect(codes(result)).toContain('composition_cycle');
    expect(log.calls).toEqual([{ from: 'a' }, { from: 'b' }, { from: 'c' }]);
  });

  it('the same composition twice side by side is not a cycle', async () => {
    const { log, add } = setup(['leaf']);
    add('leaf', { steps: [{ tool: 'log', inputMapping: { n: '$input.n' } }] });
    const top = add('top', {
      steps: [
        { tool: 'leaf', inputMapping: { n: 1 } },
        { tool: 'leaf', inputMapping: { n: 2 } },
      ],
    });
    const result = await top.execute({}, {});
    expect(result.success).toBe(true);
    expect(log.calls).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('the composition path a step sees lists the compositions it is inside, outermost first', async () => {
    const seen = tool('seen', (_a, context) => context.sessionData?.compositionPath);
    const { reg, add } = setup(['inner']);
    reg.add(seen);
    add('inner', { steps: [{ tool: 'seen', inputMapping: {} }] });
    const outer = add('outer', { steps: [{ tool: 'seen', inputMapping: {} }, { tool: 'inner', inputMapping: {} }] });
    const result = await outer.execute({}, { sessionData: { compositionPath: ['host:session'] } });
    expect(result.output).toEqual(['host:session', 'toolweave:outer', 'toolweave:inner']);
    expect(seen.calls).toHaveLength(2);
    expect((seen.contexts[0].sessionData?.compositionPath as string[])).toEqual(['host:session', 'toolweave:outer']);
  });
});

describe('the depth a context carries', () => {
  /** Compositions level0 -> level1 -> ... -> level{n-1} -> log: `n` levels of nesting. */
  function chain(n: number) {
    const names = Array.from({ length: n }, (_, i) => `level${i}`);
    const { log, add } = setup(names);
    for (let i = n - 1; i >= 0; i--) add(names[i], { steps: [{ tool: i + 1 < n ? names[i + 1] : 'log', inputMapping: { depth: i } }] });
    return { log, top: add('top', { steps: [{ tool: names[0], inputMapping: {} }] }) };
  }

  it(`allows ${MAX_COMPOSITION_DEPTH} levels from the top, and refuses one more`, async () => {
    const fits = chain(MAX_COMPOSITION_DEPTH - 1);
    expect((await fits.top.execute({}, {})).success).toBe(true);
    expect(fits.log.calls).toHaveLength(1);
    const over = chain(MAX_COMPOSITION_DEPTH);
    const result = await over.top.execute({}, {});
    expect(codes(result)).toContain('nesting_too_deep');
    expect(over.log.calls).toHaveLength(0);
  });

  it.each([
    ['a negative depth', -100],
    ['a fractional negative depth', -0.5],
    ['NaN', Number.NaN],
    ['Infinity as text', 'Infinity'],
    ['a string', '3'],
    ['null', null],
  ])('%s counts as the top: it cannot raise the limit', async (_, depth) => {
    const over = chain(MAX_COMPOSITION_DEPTH);
    const result = await over.top.execute({}, { sessionData: { emergentDepth: depth } });
    expect(codes(result)).toContain('nesting_too_deep');
    expect(over.log.calls).toHaveLength(0);
    const fits = chain(MAX_COMPOSITION_DEPTH - 1);
    expect((await fits.top.execute({}, { sessionData: { emergentDepth: depth } })).success).toBe(true);
  });

  it('an infinite depth counts as the top as well (not a number a real nesting can reach)', async () => {
    const fits = chain(1);
    expect((await fits.top.execute({}, { sessionData: { emergentDepth: Number.POSITIVE_INFINITY } })).success).toBe(true);
  });

  it('a depth of its own is honoured: the limit counts from it', async () => {
    const fits = chain(2);
    expect((await fits.top.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH - 3 } })).success).toBe(true);
    expect(codes(await fits.top.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH - 2 } }))).toContain('nesting_too_deep');
  });
});

describe('an abort reaches nested compositions', () => {
  it('a signal in the context stops the steps of a composition nested two deep', async () => {
    const controller = new AbortController();
    const slow = tool('slow', async () => {
      controller.abort();
      await delay(5);
      return 'slow done';
    });
    const { reg, log, add } = setup(['inner', 'middle']);
    reg.add(slow);
    add('inner', { steps: [{ tool: 'slow', inputMapping: {} }, { tool: 'log', inputMapping: { after: 'abort' } }] });
    add('middle', { steps: [{ tool: 'inner', inputMapping: {} }, { tool: 'log', inputMapping: { after: 'inner' } }] });
    const top = add('top', { steps: [{ tool: 'middle', inputMapping: {} }, { tool: 'log', inputMapping: { after: 'middle' } }] });
    const result = await top.execute({}, { signal: controller.signal });
    expect(result.success).toBe(false);
    expect(codes(result)).toContain('step_aborted');
    expect(slow.calls).toHaveLength(1);
    expect(log.calls).toEqual([]);
  });

  it('a pipeline run with its own signal passes it to the compositions it calls', async () => {
    const controller = new AbortController();
    const stop = tool('stop', () => (controller.abort(), 'stopped'));
    const { reg, log, add } = setup(['inner']);
    reg.add(stop);
    add('inner', { steps: [{ tool: 'stop', inputMapping: {} }, { tool: 'log', inputMapping: {} }] });
    const builder = new ComposableToolBuilder(reg.gate());
    builder.bind({ sideEffectingTools: ['inner', 'log'] });
    const result = await builder.runPipeline({ steps: [{ tool: 'inner', inputMapping: {} }, { tool: 'log', inputMapping: {} }] }, {}, {}, { signal: controller.signal });
    expect(codes(result)).toContain('step_aborted');
    expect(stop.calls).toHaveLength(1);
    expect(log.calls).toEqual([]);
  });
});

describe('the refusals, exactly', () => {
  it('a composition entered from a context whose path already holds it: composition_cycle, before any step', async () => {
    const { log, add } = setup([]);
    const a = add('a', { steps: [{ tool: 'log', inputMapping: {} }] });
    const result = await a.execute({}, { sessionData: { compositionPath: ['host:outer', 'toolweave:a'] } });
    expect(result).toStrictEqual({
      success: false,
      error: 'Composition "toolweave:a" reaches itself.',
      details: { code: 'composition_cycle', composition: 'toolweave:a', path: ['host:outer', 'toolweave:a', 'toolweave:a'] },
    });
    expect(log.calls).toHaveLength(0);
  });

  it('a composition entered at the depth limit: nesting_too_deep, naming the depth and the limit', async () => {
    const { log, add } = setup([]);
    const a = add('a', { steps: [{ tool: 'log', inputMapping: {} }] });
    const result = await a.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH + 3 } });
    expect(result).toStrictEqual({
      success: false,
      error: `Compositions nest at most ${MAX_COMPOSITION_DEPTH} deep.`,
      details: { code: 'nesting_too_deep', depth: MAX_COMPOSITION_DEPTH + 3, limit: MAX_COMPOSITION_DEPTH },
    });
    expect(log.calls).toHaveLength(0);
  });
});
