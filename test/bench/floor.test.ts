/**
 * The inline references of bench/floor.ts stand for "the least an engine keeping the rules can
 * add", so they must really keep them: the same outputs as the hand-written versions, and the
 * same refusals (a tool that may not be chained, too many items, the budget, an abort, a deadline,
 * the in-flight limit).
 */
import { describe, expect, it } from 'vitest';
import { inlineChain, inlineForEach, inlineGather } from '../../bench/floor.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';

function tool(name: string, execute: ITool['execute'], hasSideEffects: boolean | undefined = false): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects, execute } as ITool;
}

const inc = tool('inc', async (args) => ({ success: true, output: { n: (args.n as number) + 1 } }));
const double = tool('double', async (args) => ({ success: true, output: (args.n as number) * 2 }));
const write = tool('write', async () => ({ success: true, output: null }), true);
const never = tool('never', () => new Promise<ToolExecutionResult>(() => undefined));
const registry = new Map([inc, double, write, never].map((t) => [t.name, t]));
const resolve = (name: string) => registry.get(name);
const anyObject = { type: 'object' };

describe('bench/floor.ts: the rules written inline', () => {
  it('chain: the output of the hand-written loop, and a refusal for a tool that may not be chained', async () => {
    const run = inlineChain(['inc', 'inc', 'inc'], { version: () => 1, resolve }, anyObject);
    expect(await run({ n: 0 }, {})).toMatchObject({ success: true, output: { n: 3 }, details: { trace: [{ ok: true }, { ok: true }, { ok: true }] } });
    const refused = inlineChain(['inc', 'write'], { version: () => 2, resolve }, anyObject);
    expect(await refused({ n: 0 }, {})).toMatchObject({ success: false, error: 'step_not_chainable' });
  });

  it('for_each: every item in order, at most `concurrency` at once', async () => {
    let running = 0;
    let most = 0;
    const slow = tool('slow', async (args) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      return { success: true, output: (args.n as number) * 2 };
    });
    const run = inlineForEach('slow', { resolve: (name) => (name === 'slow' ? slow : undefined) }, anyObject, 3, 100);
    const items = Array.from({ length: 20 }, (_, i) => i);
    expect(await run({ items }, {})).toMatchObject({ success: true, output: items.map((i) => i * 2), details: { trace: [{ ok: true, items: 20 }] } });
    expect(most).toBe(3);
  });

  it('for_each: refuses too many items, items that are not a list, a tool that may not be chained, an aborted run and a deadline', async () => {
    const doubles = inlineForEach('double', { resolve }, anyObject, 4, 5);
    expect(await doubles({ items: [1, 2, 3, 4, 5, 6] }, {})).toMatchObject({ success: false, error: 'input_invalid' });
    expect(await doubles({ items: 'abc' }, {})).toMatchObject({ success: false, error: 'input_invalid' });
    expect(await inlineForEach('write', { resolve }, anyObject, 4, 5)({ items: [1] }, {})).toMatchObject({ success: false, error: 'step_not_chainable' });
    const controller = new AbortController();
    controller.abort();
    expect(await doubles({ items: [1, 2] }, { signal: controller.signal })).toMatchObject({ success: false, error: 'step_aborted' });
    const hangs = inlineForEach('never', { resolve }, anyObject, 2, 5, 30);
    expect(await hangs({ items: [1, 2, 3] }, {})).toMatchObject({ success: false, error: 'step_timeout' });
  });

  it('gather: every output under its name, in order, and no more than 64 calls at once', async () => {
    let running = 0;
    let most = 0;
    const names = Array.from({ length: 100 }, (_, i) => `g${i}`);
    const slow = tool('slow', async (args) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      return { success: true, output: args.n };
    });
    const run = inlineGather(names, { resolve: (name) => (name.startsWith('g') ? slow : undefined) }, anyObject);
    const result = await run({}, {});
    expect(result.success).toBe(true);
    expect(Object.keys(result.output as object)).toEqual(names);
    expect(Object.values(result.output as object)).toEqual(names.map((_, i) => i));
    expect(most).toBe(64);
  });

  it('gather: refuses a tool that may not be chained before any call starts, an aborted run, and a deadline', async () => {
    let calls = 0;
    const counted = tool('counted', async () => ({ success: true, output: ++calls }));
    const mixed = new Map([counted, write].map((t) => [t.name, t]));
    const refused = inlineGather(['counted', 'write'], { resolve: (name) => mixed.get(name) }, anyObject);
    expect(await refused({}, {})).toMatchObject({ success: false, error: 'step_not_chainable' });
    expect(calls).toBe(0);
    const controller = new AbortController();
    controller.abort();
    expect(await inlineGather(['double'], { resolve }, anyObject)({}, { signal: controller.signal })).toMatchObject({ success: false, error: 'step_aborted' });
    expect(await inlineGather(['double', 'never'], { resolve }, anyObject, 30)({}, {})).toMatchObject({ success: false, error: 'step_timeout' });
  });
});
