/**
 * What the gate makes of what a host hands it wrongly: pause settings that are not positive
 * milliseconds, a names list that throws, a permission decision whose details are not an object,
 * no tool at all where `run` expects one (or one without a name), and the context an approval is asked with.
 */
import { describe, expect, it } from 'vitest';
import { createStepGate } from '../../src/gate/step-gate.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const approvals = { requestApproval: () => ({ approved: true }) };

describe('pause settings', () => {
  it.each([
    ['ttlMs', 0],
    ['ttlMs', -5],
    ['ttlMs', Number.NaN],
    ['leaseMs', Number.POSITIVE_INFINITY],
    ['leaseMs', 0],
  ])('%s: %s is a programming error, thrown as a RangeError naming the value', (setting, value) => {
    expect(() => createStepGate({ resolve: () => undefined, approvals, pauses: { [setting]: value } })).toThrow(
      new RangeError(`A pause setting must be a positive number of milliseconds, got ${value}`),
    );
  });

  it('any positive number of milliseconds is taken, a fraction too', () => {
    expect(() => createStepGate({ resolve: () => undefined, approvals, pauses: { ttlMs: 0.5, leaseMs: 1 } })).not.toThrow();
  });
});

describe('names', () => {
  it('a names list that throws reads as no names: the gate answers an empty list, not undefined', () => {
    const t = tool('lookup', () => 'ok');
    const gate = createStepGate({
      resolve: (name) => (name === 'lookup' ? t : undefined),
      names: () => {
        throw new Error('registry down');
      },
    });
    expect(gate.names?.()).toEqual([]);
  });
});

describe('a permission decision', () => {
  it.each([['a string', 'read-only'], ['null', null], ['a number', 7]])('whose details are %s refuses without them: only an object is carried as details.permission', async (_, details) => {
    const t = tool('write', () => 'wrote', { hasSideEffects: true });
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'no', details } as never) } });
    const result = await gate.run(t, {}, {});
    expect(result.details).toEqual({ code: 'permission_denied', tool: 'write', step: 'write', reason: 'no' });
    expect(t.calls.length).toBe(0);
  });

  it('whose details are an object carries them as details.permission', async () => {
    const t = tool('write', () => 'wrote', { hasSideEffects: true });
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'no', details: { rule: 'r1' } }) } });
    expect((await gate.run(t, {}, {})).details).toEqual({ code: 'permission_denied', tool: 'write', step: 'write', reason: 'no', permission: { rule: 'r1' } });
  });
});

describe('run given no tool', () => {
  // What a host's lookup answers for a name it does not know, passed on without a check.
  it.each([
    ['undefined', undefined, {}],
    ['null', null, { permissionManager: { isExecutionAllowed: () => ({ isAllowed: true }) } }],
  ])('%s: resolves step_missing, with or without host checks, and never rejects', async (what, missing, options) => {
    const gate = createStepGate({ resolve: () => undefined, ...options });
    const result = await gate.run(missing as unknown as ITool, {}, {}, undefined, { step: 'lookup' });
    expect(result).toEqual({
      success: false,
      error: `No tool was given to run (got ${what}): look the tool up by name, and run it only if it was found.`,
      details: { code: 'step_missing', step: 'lookup' },
    });
  });

  it('a tool object without a name, run with no step: its refusal names the step as empty, not as something made up', async () => {
    const nameless = { ...tool('t', () => 'ran'), name: undefined } as unknown as ITool;
    const gate = createStepGate({ resolve: () => undefined, checks: [() => ({ isAllowed: false, reason: 'no' })] });
    expect(await gate.run(nameless, {}, {})).toEqual({
      success: false,
      error: 'no',
      details: { code: 'permission_denied', tool: undefined, step: '', reason: 'no' },
    });
  });
});

describe('the context an approval is asked with', () => {
  it('is the very object the tool then runs with, when the call has no abort signal of its own', async () => {
    const send = tool('send', () => 'sent', { hasSideEffects: true });
    let asked: unknown;
    const gate = registry(send).gate({ approvals: { requestApproval: (_, context) => ((asked = context), { approved: true }) } });
    const context = { sessionId: 's1', signal: new AbortController().signal };
    expect((await gate.run(send, {}, context)).success).toBe(true);
    expect(asked).toBe(context);
    expect(send.contexts[0]).toBe(context);
  });

  it("carries the call's own signal when it has one, and is otherwise the same", async () => {
    const send = tool('send', () => 'sent', { hasSideEffects: true });
    let asked: { signal?: AbortSignal; sessionId?: string } | undefined;
    const gate = registry(send).gate({ approvals: { requestApproval: (_, context) => ((asked = context), { approved: true }) } });
    const own = new AbortController().signal;
    expect((await gate.run(send, {}, { sessionId: 's1', signal: new AbortController().signal }, own)).success).toBe(true);
    expect(asked?.signal).toBe(own);
    expect(asked?.sessionId).toBe('s1');
  });
});
