/**
 * Every refusal and failure the gate makes, exactly as a caller receives it: the message that
 * says what happened, and the details that name the tool and the step. Also the answers a host's
 * checks may give that are neither a yes nor a well-formed no.
 */
import { describe, expect, it } from 'vitest';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createStepGate, isStepGate } from '../../src/gate/step-gate.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { ITool } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

const getterThrowing = (field: string, base: Record<string, unknown> = {}) =>
  Object.defineProperty({ ...base }, field, {
    get() {
      throw new Error(`${field} unreadable`);
    },
  });

describe("the gate's own refusals and failures, exactly", () => {
  it('an abort', async () => {
    const t = tool('t', () => 'ran');
    const controller = new AbortController();
    controller.abort();
    expect(await registry(t).gate().run(t, {}, {}, controller.signal, { step: 's' })).toStrictEqual({
      success: false,
      error: 'Aborted before tool "t" ran.',
      details: { code: 'step_aborted', tool: 't', step: 's' },
    });
  });

  it('a throw, and a throw of something that is not an Error', async () => {
    const boom = tool('boom', () => {
      throw new Error('kaput');
    });
    expect(await registry(boom).gate().run(boom, {}, {}, undefined, { step: 's' })).toStrictEqual({
      success: false,
      error: 'Tool "boom" threw: kaput',
      details: { code: 'step_threw', tool: 'boom', step: 's' },
    });
    const odd: ITool = { ...boom, execute: () => Promise.reject(Object.create(null)) };
    expect((await registry(odd).gate().run(odd, {}, {})).error).toBe('Tool "boom" threw: unknown error');
    const text: ITool = { ...boom, execute: () => Promise.reject('just text') };
    expect((await registry(text).gate().run(text, {}, {})).error).toBe('Tool "boom" threw: just text');
  });

  it('a result that is not one', async () => {
    const bad: ITool = { ...tool('bad', () => 1), execute: () => Promise.resolve(7 as never) };
    expect(await registry(bad).gate().run(bad, {}, {}, undefined, { step: 's' })).toStrictEqual({
      success: false,
      error: 'Tool "bad" returned something that is not a tool result.',
      details: { code: 'step_bad_result', tool: 'bad', step: 's' },
    });
  });

  it('a tool refused under a script because it is interactive, through a door nested in the script', async () => {
    const ask = tool('ask', () => 'yes', { hasSideEffects: false, interactive: true });
    const reg = registry(ask);
    const gate = reg.gate();
    reg.add(createRunPipelineTool(gate));
    const script = createScriptTool(gate);
    const result = await script.execute({ intention: 'ask', code: "const r = await callTool('run_pipeline', { steps: [{ id: 'q', tool: 'ask', args: {} }] }); return r.error;" }, {});
    const error = JSON.parse(String(result.output)) as { code: string; message: string };
    expect(JSON.stringify(error)).toContain('tool_interactive');
    expect(error.message).toContain('Tool "ask" needs its own moment with a person or the host, and this call comes from a script; call it directly.');
    expect(ask.calls).toHaveLength(0);
  });

  it('the calls limit: exactly the allowed number run, the next is refused and says why', async () => {
    const t = tool('t', () => 'ok');
    const reg = registry(t);
    const script = createScriptTool(reg.gate({ budget: { calls: 3 } }));
    const result = await script.execute({
      intention: 'loop',
      code: "let ok = 0; for (let i = 0; i < 6; i++) { const r = await callTool('t', {}); if (r.error) return [ok, r.error.code, r.error.message]; ok++; } return ok;",
    }, {});
    expect(JSON.parse(String(result.output))).toEqual([
      3,
      'budget_exceeded',
      'Tool "t" was not started: the call\'s budget allows 3 tool calls in all. Do the work in smaller calls, or raise the limit in createStepGate({ budget: { calls } }).',
    ]);
    expect(t.calls).toHaveLength(3);
  });
});

describe("a tool's failure from inside", () => {
  it('a failure naming an inner step without a tool, with an inner chain that is not an object', async () => {
    const inner = tool('inner', () => ({ success: false, error: 'it broke', details: { code: 'E_IN', step: 'deep', inner: 'not an object' } }));
    const result = await registry(inner).gate().run(inner, {}, {}, undefined, { step: 'outer_step' });
    expect(result.error).toBe('Step "outer_step" (inner) > step "deep": it broke');
    expect(result.details?.inner).toStrictEqual({ step: 'deep', code: 'E_IN' });
  });

  it('an inner chain that is null is not kept', async () => {
    const inner = tool('inner', () => ({ success: false, error: 'it broke', details: { code: 'E_IN', step: 'deep', inner: null } }));
    const result = await registry(inner).gate().run(inner, {}, {}, undefined, { step: 'outer_step' });
    expect(result.details?.inner).toStrictEqual({ step: 'deep', code: 'E_IN' });
  });

  it('an inner step without a code keeps no code of its own', async () => {
    const inner = tool('inner', () => ({ success: false, error: 'it broke', details: { step: 'deep', tool: 'x', innerCode: 42 } }));
    const result = await registry(inner).gate().run(inner, {}, {}, undefined, { step: 'outer_step' });
    expect(result.details?.inner).toStrictEqual({ step: 'deep', tool: 'x' });
    expect(result.error).toBe('Step "outer_step" (inner) > step "deep" (x): it broke');
  });

  it('a message that already names its step is continued, not repeated', async () => {
    const inner = tool('inner', () => ({ success: false, error: 'Step "deep" (x): it broke', details: { step: 'deep', tool: 'x', code: 'step_failed', innerCode: 'E' } }));
    const result = await registry(inner).gate().run(inner, {}, {}, undefined, { step: 'outer_step' });
    expect(result.error).toBe('Step "outer_step" (inner) > step "deep" (x): it broke');
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'E' });
  });
});

describe('what a tool returns: thenables and plain values', () => {
  it('a plain success returned at once, not in a promise', async () => {
    const sync: ITool = { ...tool('sync', () => 1), execute: (() => ({ success: true, output: 'at once' })) as never };
    expect(await registry(sync).gate().run(sync, {}, {})).toEqual({ success: true, output: 'at once' });
  });

  it('a result with a then field that is not a function is a result, not a thenable', async () => {
    const answer = { success: true, output: 'kept', then: 5 };
    const odd: ITool = { ...tool('odd', () => 1), execute: (() => answer) as never };
    expect(await registry(odd).gate().run(odd, {}, {})).toBe(answer);
  });

  it('a function that is a thenable is followed', async () => {
    const thenable = Object.assign(() => undefined, { then: (ok: (v: unknown) => void) => ok({ success: true, output: 'from a function' }) });
    const fn: ITool = { ...tool('fn', () => 1), execute: (() => thenable) as never };
    expect(await registry(fn).gate().run(fn, {}, {})).toEqual({ success: true, output: 'from a function' });
  });
});

describe('waiting for a place in flight', () => {
  it('a call aborted while it waits never runs', async () => {
    const controller = new AbortController();
    const slow = tool('slow', async () => (controller.abort(), await delay(60), 'slow'));
    const after = tool('after', () => 'ran');
    const reg = registry(slow, after);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }));
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {} }, b: { tool: 'after', inputMapping: {} } } }] });
    const result = await composite.execute({}, { signal: controller.signal });
    expect(JSON.stringify(result)).toContain('step_aborted');
    expect(after.calls).toHaveLength(0);
  });

  it('a call given its own signal, aborted while it waits, never runs; the context it runs with is the caller\'s', async () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    const target = tool('target', (_a, context) => (seen.push(context.user), 'ran'));
    const slow = tool('slow', async () => (await delay(80), 'slow'));
    const reg = registry(target, slow);
    const gate = reg.gate({ budget: { inFlight: 2 } });
    // A tool that calls back into the gate with the context it was given and a signal of its own.
    const caller = tool('caller', async (_a, context) => {
      const pending = gate.run(target, {}, context, controller.signal);
      await delay(10);
      controller.abort();
      const aborted = await pending;
      const free = await gate.run(target, {}, context, new AbortController().signal);
      return [aborted.details?.code, free.output];
    });
    reg.add(caller);
    const builder = new ComposableToolBuilder(gate);
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {} }, b: { tool: 'caller', inputMapping: {} } } }] });
    const result = await composite.execute({}, { user: 'ann' });
    expect(result.output).toEqual({ a: 'slow', b: ['step_aborted', 'ran'] });
    expect(seen).toEqual(['ann']);
  });

  it('a composition holds no place while its own calls run', async () => {
    const t = tool('t', () => 'ok');
    const reg = registry(t);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 } }), { stepTimeoutMs: 2000 });
    builder.bind({ sideEffectingTools: [] });
    reg.add(builder.build('inner', 'inner', { type: 'object' }, { steps: [{ tool: 't', inputMapping: {} }, { tool: 't', inputMapping: {} }] }) as ITool);
    const outer = builder.build('outer', 'outer', { type: 'object' }, { steps: [{ tool: 'inner', inputMapping: {} }] });
    expect(await outer.execute({}, {})).toMatchObject({ success: true, output: 'ok' });
  });

  it.each([0, -1])('a waiting call with a timeout of %s waits as long as it takes', async (timeoutMs) => {
    const target = tool('target', () => 'ran');
    const slow = tool('slow', async () => (await delay(80), 'slow'));
    const reg = registry(target, slow);
    const gate = reg.gate({ budget: { inFlight: 2 } });
    // Calls back into the gate while it holds one place and `slow` the other.
    const caller = tool('caller', async (_a, context) => (await gate.run(target, {}, context, undefined, { timeoutMs })).output);
    reg.add(caller);
    const composite = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, {
      steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {} }, b: { tool: 'caller', inputMapping: {} } } }],
    });
    expect(await composite.execute({}, {})).toMatchObject({ success: true, output: { a: 'slow', b: 'ran' } });
  });

  it('a call that waited and then answered at once ends once, even after its deadline passes', async () => {
    const slow = tool('slow', async () => (await delay(30), 'slow'));
    const sync: ITool = { ...tool('sync', () => 1), execute: (() => ({ success: true, output: 'at once' })) as never };
    const reg = registry(slow, sync);
    const builder = new ComposableToolBuilder(reg.gate({ budget: { inFlight: 1 }, checks: [() => ({ isAllowed: true })] }), { stepTimeoutMs: 2000 });
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ combinator: 'gather', calls: { a: { tool: 'slow', inputMapping: {} }, b: { tool: 'sync', inputMapping: {}, timeoutMs: 80 } } }],
    });
    const result = await composite.execute({}, {});
    expect(result).toMatchObject({ success: true, output: { a: 'slow', b: 'at once' } });
    await delay(250);
    expect(result.details?.trace).toHaveLength(2);
    expect(result.details?.trace).toEqual(
      expect.arrayContaining([
        { step: 'steps[0].calls.a', tool: 'slow', ok: true },
        { step: 'steps[0].calls.b', tool: 'sync', ok: true },
      ]),
    );
  });
});

describe("the host's checks: answers that are neither yes nor a well-formed no", () => {
  it('a refusal without a reason says so in its own words; a reason or details of the wrong type are dropped', async () => {
    const t = tool('t', () => 'ran');
    for (const decision of [{ isAllowed: false }, { isAllowed: false, reason: 42, details: 'text' }, { isAllowed: false, details: null }]) {
      const gate = registry(t).gate({ permissionManager: { isExecutionAllowed: () => decision as never } });
      expect(await gate.run(t, {}, {}, undefined, { step: 's' })).toStrictEqual({
        success: false,
        error: 'Permission denied for tool "t".',
        details: { code: 'permission_denied', tool: 't', step: 's', reason: undefined },
      });
    }
  });

  it('a decision that throws when read is refused as unreadable', async () => {
    const t = tool('t', () => 'ran');
    for (const decision of [getterThrowing('isAllowed'), getterThrowing('reason', { isAllowed: false })]) {
      const gate = registry(t).gate({ checks: [() => decision as never] });
      const result = await gate.run(t, {}, {}, undefined, { step: 's' });
      expect(result.error).toMatch(/^The host's check answered something unreadable: (isAllowed|reason) unreadable$/);
      expect(result.details).toStrictEqual({ code: 'permission_denied', tool: 't', step: 's', reason: 'malformed decision' });
    }
    expect(t.calls).toHaveLength(0);
  });

  it('a check or a permission check that throws is named in the refusal', async () => {
    const t = tool('t', () => 'ran');
    const fail = () => {
      throw new Error('store down');
    };
    const byCheck = await registry(t).gate({ checks: [fail] }).run(t, {}, {}, undefined, { step: 's' });
    expect(byCheck).toStrictEqual({ success: false, error: "The host's check failed: store down", details: { code: 'permission_denied', tool: 't', step: 's', reason: 'check failed' } });
    const byPermission = await registry(t).gate({ permissionManager: { isExecutionAllowed: fail } }).run(t, {}, {}, undefined, { step: 's' });
    expect(byPermission).toStrictEqual({
      success: false,
      error: "The host's permission check failed: store down",
      details: { code: 'permission_denied', tool: 't', step: 's', reason: 'permission check failed' },
    });
    const malformed = await registry(t).gate({ permissionManager: { isExecutionAllowed: () => null as never } }).run(t, {}, {});
    expect(malformed.error).toBe('The host\'s permission check answered something malformed for tool "t" (only { isAllowed: true } allows a call), so the call is refused.');
  });

  it('approvals: a refusal without a reason, null, a throw, and an answer that throws when read', async () => {
    const w = tool('w', () => 'wrote', { hasSideEffects: true });
    const answers: [unknown, string, string][] = [
      [{ approved: false }, 'Approval refused for tool "w".', ''],
      [{ approved: false, reason: 7 }, 'Approval refused for tool "w".', ''],
      [null, 'The approval for tool "w" answered something malformed (only { approved: true } approves a call), so the call is refused.', 'malformed decision'],
      [getterThrowing('approved'), 'The approval for tool "w" answered something unreadable: approved unreadable', 'malformed decision'],
      [getterThrowing('reason', { approved: false }), 'The approval for tool "w" answered something unreadable: reason unreadable', 'malformed decision'],
    ];
    for (const [answer, error, reason] of answers) {
      const gate = registry(w).gate({ approvals: { requestApproval: () => answer as never } });
      const result = await gate.run(w, {}, {}, undefined, { step: 's' });
      expect(result).toStrictEqual({ success: false, error, details: { code: 'approval_rejected', tool: 'w', step: 's', reason: reason || undefined } });
    }
    const throwing = registry(w).gate({ approvals: { requestApproval: () => Promise.reject(new Error('service down')) } });
    expect(await throwing.run(w, {}, {}, undefined, { step: 's' })).toStrictEqual({
      success: false,
      error: 'The approval for tool "w" failed: service down',
      details: { code: 'approval_rejected', tool: 'w', step: 's', reason: 'approval failed' },
    });
    expect(w.calls).toHaveLength(0);
  });

  it('a tool whose hasSideEffects cannot be read is refused, never run', async () => {
    const odd = getterThrowing('hasSideEffects', { ...tool('odd', () => 'ran') }) as unknown as ITool;
    Object.defineProperty(odd, 'execute', { value: tool('odd', () => 'ran').execute });
    const gate = registry(odd).gate({ approvals: { requestApproval: () => ({ approved: true }) } });
    const result = await gate.run(odd, {}, {}, undefined, { step: 's' });
    expect(result).toStrictEqual({ success: false, error: "The host's checks failed: hasSideEffects unreadable", details: { code: 'permission_denied', tool: 'odd', step: 's' } });
  });

  it('an approval shows only the fields that apply, and only the string entries of a host path', async () => {
    const asked: ApprovalAction[] = [];
    const w = tool('w', () => 'wrote', { hasSideEffects: true });
    const reg = registry(w);
    const gate = reg.gate({ approvals: { requestApproval: (a) => (asked.push(a), { approved: true }) } });
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['w'] });
    await pipeline.execute({ steps: [{ id: 'x', tool: 'w', args: {} }] }, { sessionData: { compositionPath: [42, 'host:path', null] } });
    expect(asked[0].caller).toStrictEqual({ door: 'run_pipeline', path: ['host:path'], modelChosen: ['step', 'args'] });
  });
});

describe('the gate object', () => {
  it('is told from anything else by its brand', () => {
    const gate = createStepGate({ resolve: () => undefined });
    expect(isStepGate(gate)).toBe(true);
    const brand = Symbol.for('toolweave.StepGate');
    for (const value of [null, undefined, 'gate', 1, {}, { [brand]: 'yes' }, Object.assign(() => undefined, { [brand]: true })]) {
      expect(isStepGate(value)).toBe(false);
    }
    expect(isStepGate({ [brand]: true })).toBe(true);
  });

  it('lists the names its host knows, and none when the host cannot say', () => {
    const listed = createStepGate({ resolve: () => undefined, names: () => new Set(['a', 'b']) });
    expect([...listed.names!()]).toEqual(['a', 'b']);
    const failing = createStepGate({
      resolve: () => undefined,
      names: () => {
        throw new Error('offline');
      },
    });
    expect([...failing.names!()]).toEqual([]);
    expect(createStepGate({ resolve: () => undefined }).names).toBeUndefined();
  });
});

