/**
 * A gather's output is built by copying an object shaped once at compile time. Each run must get
 * an object of its own, in call order, with every call (even one named `__proto__`) as an own field.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';

describe('gather output', () => {
  const echo = tool('echo', (a) => a.v);
  const builder = new ComposableToolBuilder(registry(echo).gate());
  const spec = {
    steps: [
      {
        combinator: 'gather' as const,
        calls: JSON.parse('{"b": {"tool": "echo", "args": {"v": "$input.b"}}, "__proto__": {"tool": "echo", "args": {"v": "$input.p"}}, "a": {"tool": "echo", "args": {"v": "$input.a"}}}'),
      },
    ],
  };

  it('keeps call order and own fields, __proto__ included, with each call\'s output', async () => {
    const result = await builder.runPipeline(spec, { a: 1, b: 2, p: { polluted: true } }, {});
    const output = result.output as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(output.a).toBe(1);
    expect(output.b).toBe(2);
  });

  it('gives every run an object of its own', async () => {
    const first = (await builder.runPipeline(spec, { a: 1, b: 2, p: 3 }, {})).output as Record<string, unknown>;
    first.a = 'changed';
    const second = (await builder.runPipeline(spec, { a: 10, b: 20, p: 30 }, {})).output as Record<string, unknown>;
    expect(second).not.toBe(first);
    expect(second.a).toBe(10);
    expect(second.b).toBe(20);
  });
});
