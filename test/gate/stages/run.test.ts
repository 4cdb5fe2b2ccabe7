import { describe, expect, it } from 'vitest';
import { runTool } from '../../../src/gate/stages/run.js';
import { release, ticksFor } from '../../../src/gate/watchdog.js';
import type { ITool } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

/** A tool whose execute is `execute` as given: it may throw, return anything, or never settle. */
function raw(execute: () => unknown): ITool {
  return { ...tool('raw', () => 'unused'), execute: execute as ITool['execute'] };
}

describe('stage: run', () => {
  const gate = registry().gate();

  it('runs the tool with the arguments and context the call carries, and delivers its result once', async () => {
    const echo = tool('echo', (args, context) => ({ args, user: context.user }));
    const call = callOf({ gate, tool: echo, args: { a: 1 }, context: { user: 'u' } });
    expect(runTool(call)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(call.delivered).toEqual([{ success: true, output: { args: { a: 1 }, user: 'u' } }]);
  });

  it('turns a throw, a non-result and a thenable into results', async () => {
    expect(runTool(callOf({ gate, tool: raw(() => { throw new Error('boom'); }) }))?.details?.code).toBe('step_threw');
    expect(runTool(callOf({ gate, tool: raw(() => 42) }))?.details?.code).toBe('step_bad_result');
    const thenable = callOf({ gate, tool: raw(() => ({ then: (ok: (v: unknown) => void) => (ok({ success: true, output: 1 }), ok({ success: true, output: 2 })) })) });
    expect(runTool(thenable)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(thenable.delivered).toEqual([{ success: true, output: 1 }]);
  });

  it("wraps a tool's own failure as step_failed, its code kept as innerCode", async () => {
    const failing = raw(() => Promise.resolve({ success: false, error: 'nope', details: { code: 'not_found' } }));
    const call = callOf({ gate, tool: failing });
    runTool(call);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(call.delivered[0].details).toMatchObject({ code: 'step_failed', innerCode: 'not_found', tool: 'raw', step: 'step' });
  });

  it('ends a call whose tool never settles at its deadline', async () => {
    const call = callOf({ gate, tool: raw(() => new Promise(() => {})), timeoutMs: 30 });
    call.ticks = ticksFor(30);
    expect(runTool(call)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(call.delivered.map((r) => r.details?.code)).toEqual(['step_timeout']);
    release(call);
  });
});
