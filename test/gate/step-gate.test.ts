import { describe, expect, it } from 'vitest';
import { checkChainable } from '../../src/gate/stages/chainable.js';
import { createStepGate, isStepGate } from '../../src/gate/step-gate.js';
import type { ITool } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

const pure = tool('pure', () => 'ok');
const writer = tool('writer', () => 'wrote', { hasSideEffects: true });
const vague = tool('vague', () => 'maybe', {});

describe('checkChainable', () => {
  it('chains a pure tool freely', () => {
    expect(checkChainable('pure', pure, [])).toEqual({ ok: true, tool: pure });
  });
  it('chains a side-effecting tool only when the host lists it', () => {
    const refused = checkChainable('writer', writer, []);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refusal.details?.code).toBe('step_not_chainable');
    expect(checkChainable('writer', writer, ['writer']).ok).toBe(true);
    expect(checkChainable('writer', writer, new Set(['writer'])).ok).toBe(true);
  });
  it('never chains a tool that declares nothing, even when listed', () => {
    const refused = checkChainable('vague', vague, ['vague']);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refusal.details?.code).toBe('side_effects_undeclared');
  });
  it('refuses a name that resolves to nothing', () => {
    const refused = checkChainable('ghost', undefined, ['ghost']);
    expect(!refused.ok && refused.refusal.details?.code).toBe('step_missing');
  });
});

describe('createStepGate', () => {
  it('is recognisable as a gate', () => {
    expect(isStepGate(createStepGate({ resolve: () => undefined }))).toBe(true);
    expect(isStepGate(async () => ({ success: true }))).toBe(false);
  });

  it('refuses with permission_denied carrying the reason and details, without running the tool', async () => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({
      permissionManager: { isExecutionAllowed: async () => ({ isAllowed: false, reason: 'read-only session', details: { policy: 'ro' } }) },
    });
    const result = await gate.run(t, {}, {});
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'permission_denied', reason: 'read-only session', permission: { policy: 'ro' } });
    expect(t.calls).toHaveLength(0);
  });

  it('passes the tool, args and context to the permission check', async () => {
    const seen: unknown[] = [];
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: (tl, args, ctx) => (seen.push([tl.name, args, ctx.user]), { isAllowed: true }) } });
    await gate.run(t, { a: 1 }, { user: 'ann' });
    expect(seen).toEqual([['t', { a: 1 }, 'ann']]);
  });

  it('asks approval for side-effecting tools only, with id, name, step and args', async () => {
    const asked: unknown[] = [];
    const w = tool('w', () => 'wrote', { hasSideEffects: true });
    const p = tool('p', () => 'read');
    const gate = registry(w, p).gate({ approvals: { requestApproval: (a) => (asked.push(a), { approved: true }) } });
    await gate.run(p, {}, {});
    await gate.run(w, { path: 'x' }, {}, undefined, { step: 'save' });
    expect(asked).toEqual([{ toolId: 'test:w', toolName: 'w', step: 'save', args: { path: 'x' } }]);
  });

  it('refuses with approval_rejected and the reason', async () => {
    const w = tool('w', () => 'wrote', { hasSideEffects: true });
    const gate = registry(w).gate({ approvals: { requestApproval: () => ({ approved: false, reason: 'not today' }) } });
    const result = await gate.run(w, {}, {});
    expect(result.details).toMatchObject({ code: 'approval_rejected', reason: 'not today' });
    expect(w.calls).toHaveLength(0);
  });

  it('stops an aborted step after the checks, before the tool', async () => {
    let checked = 0;
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => (checked++, { isAllowed: true }) } });
    const controller = new AbortController();
    controller.abort();
    const result = await gate.run(t, {}, {}, controller.signal);
    expect(result.details?.code).toBe('step_aborted');
    expect(checked).toBe(1);
    expect(t.calls).toHaveLength(0);
    // The context's own signal counts too.
    expect((await gate.run(t, {}, { signal: controller.signal })).details?.code).toBe('step_aborted');
  });

  it('turns a throw, a rejection, a hang and a non-result into failure results', async () => {
    const gate = createStepGate({ resolve: () => undefined });
    const base = { id: 'x', name: 'x', displayName: 'x', description: '', inputSchema: {}, hasSideEffects: false };
    const throwing: ITool = { ...base, execute: () => { throw new Error('boom'); } };
    const rejecting: ITool = { ...base, execute: () => Promise.reject(new Error('nope')) };
    const hanging: ITool = { ...base, execute: () => new Promise(() => {}) };
    const odd: ITool = { ...base, execute: async () => 'just a string' as never };
    const nothing: ITool = { ...base, execute: (() => undefined) as never };
    expect((await gate.run(throwing, {}, {})).details).toMatchObject({ code: 'step_threw' });
    expect((await gate.run(throwing, {}, {})).error).toContain('boom');
    expect((await gate.run(rejecting, {}, {})).details?.code).toBe('step_threw');
    const started = Date.now();
    expect((await gate.run(hanging, {}, {}, undefined, { timeoutMs: 30 })).details).toMatchObject({ code: 'step_timeout', timeoutMs: 30 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await gate.run(odd, {}, {})).details?.code).toBe('step_bad_result');
    expect((await gate.run(nothing, {}, {})).details?.code).toBe('step_bad_result');
  });

  it("reports a tool's own failure code as innerCode", async () => {
    const t = tool('t', () => ({ success: false, error: 'no such file', details: { code: 'ENOENT', path: 'a' } }));
    const result = await registry(t).gate().run(t, {}, {});
    expect(result.success).toBe(false);
    expect(result.error).toBe('no such file');
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'ENOENT', path: 'a' });
  });

  it('a throwing host check is a refusal, not an exception', async () => {
    const t = tool('t', () => 'ran');
    const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => { throw new Error('db down'); } } });
    const result = await gate.run(t, {}, {});
    expect(result.details?.code).toBe('permission_denied');
    expect(t.calls).toHaveLength(0);
  });

  it('resolve never throws, even when the host lookup does', () => {
    const gate = createStepGate({ resolve: () => { throw new Error('x'); } });
    expect(gate.resolve('a')).toBeUndefined();
  });

  it('runs slow tools to completion when no timeout is given', async () => {
    const t = tool('t', async () => (await delay(20), 'late'));
    expect((await registry(t).gate().run(t, {}, {})).output).toBe('late');
  });
});
