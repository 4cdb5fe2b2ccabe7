import { describe, expect, expectTypeOf, it } from 'vitest';
import { ComposableToolBuilder, SpecError } from '../src/builder.js';
import { MAX_COMPOSITION_DEPTH } from '../src/gate/depth.js';
import type { ComposableToolSpec } from '../src/spec/types.js';
import { compileSchema } from '../src/spec/ajv.js';
import { COMPOSABLE_TOOL_SPEC_SCHEMA } from '../src/spec/schema.js';
import type { ITool } from '../src/tool.js';
import { delay, registry, tool } from './helpers/tools.js';

function setup(extra: ITool[] = []) {
  const fetchUser = tool('fetch_user', (a) => ({ id: a.id, name: `user-${String(a.id)}`, tags: ['a', 'b'] }));
  const greet = tool('greet', (a) => `hello ${String(a.name)}`);
  const echo = tool('echo', (a) => a);
  const send = tool('send_email', (a) => ({ sent: a.to }), { hasSideEffects: true });
  const vague = tool('vague', () => 'x', {});
  const reg = registry(fetchUser, greet, echo, send, vague, ...extra);
  const builder = new ComposableToolBuilder(reg.gate());
  return { reg, builder, fetchUser, greet, echo, send, vague };
}

const objectSchema = { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } as const;

describe('ComposableToolBuilder: building and running', () => {
  it('chains steps with $input, $prev and $steps references', async () => {
    const { builder } = setup();
    const composite = builder.build('greet_user', 'Fetch a user and greet them', objectSchema, {
      steps: [
        { name: 'fetchUser', tool: 'fetch_user', inputMapping: { id: '$input.id' } },
        { tool: 'greet', inputMapping: { name: '$prev.name' } },
        { tool: 'echo', inputMapping: { greeting: '$prev', first: '$steps[0].tags[0]', byName: '$steps.fetchUser.id', all: '$steps[0]', literal: 10 } },
      ],
    });
    const result = await composite.execute({ id: 7 }, {});
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ greeting: 'hello user-7', first: 'a', byName: 7, all: { id: 7, name: 'user-7', tags: ['a', 'b'] }, literal: 10 });
    expect(composite).toMatchObject({ name: 'greet_user', displayName: 'greet_user', description: 'Fetch a user and greet them', inputSchema: objectSchema, hasSideEffects: false });
  });

  it('passes host context fields through unchanged, with the depth one more', async () => {
    const seen: unknown[] = [];
    const spy = tool('spy', (_a, ctx) => (seen.push(ctx), 'ok'));
    const { builder } = setup([spy]);
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'spy' }] });
    await composite.execute({}, { user: 'ann', sessionData: { theme: 'dark', emergentDepth: 2 } });
    expect(seen[0]).toMatchObject({ user: 'ann', sessionData: { theme: 'dark', emergentDepth: 3 } });
  });

  it('checks the input with ajv before any step runs', async () => {
    const { builder, fetchUser } = setup();
    const composite = builder.build('c', 'c', objectSchema, { steps: [{ tool: 'fetch_user', inputMapping: { id: '$input.id' } }] });
    const result = await composite.execute({ id: 'seven' } as never, {});
    expect(result.success).toBe(false);
    expect(result.details?.code).toBe('input_invalid');
    expect(String(result.error)).toContain('must be number');
    expect(fetchUser.calls).toHaveLength(0);
  });

  it('checks the output against outputSchema when given', async () => {
    const { builder } = setup();
    const composite = builder.build('c', 'c', { type: 'object' }, {
      steps: [{ tool: 'greet', inputMapping: { name: 'x' } }],
      outputSchema: { type: 'number' },
    });
    const result = await composite.execute({}, {});
    expect(result.details?.code).toBe('output_invalid');
  });

  it('shapes the output with an output mapping', async () => {
    const { builder } = setup();
    const composite = builder.build('c', 'c', objectSchema, {
      steps: [{ name: 'user', tool: 'fetch_user', inputMapping: { id: '$input.id' } }, { tool: 'greet', inputMapping: { name: '$prev.name' } }],
      output: { message: '$prev', tagCount: '$steps.user.tags[1]' },
    });
    expect((await composite.execute({ id: 1 }, {})).output).toEqual({ message: 'hello user-1', tagCount: 'b' });
  });

  it("joins the steps' side-effect grades into hasSideEffects", () => {
    const { builder } = setup();
    builder.bind({ sideEffectingTools: ['send_email'] });
    const pure = builder.build('p', 'p', { type: 'object' }, { steps: [{ tool: 'greet' }, { tool: 'echo' }] });
    const impure = builder.build('i', 'i', { type: 'object' }, { steps: [{ tool: 'greet' }, { tool: 'send_email' }] });
    expect(pure.hasSideEffects).toBe(false);
    expect(impure.hasSideEffects).toBe(true);
    expect(builder.hasSideEffectingStep({ steps: [{ tool: 'greet' }, { tool: 'vague' }] })).toBe(true);
    expect(builder.hasSideEffectingStep({ steps: [{ tool: 'greet' }] })).toBe(false);
  });

  it('infers the argument type from a const schema', () => {
    const { builder } = setup();
    const composite = builder.build('c', 'c', { type: 'object', properties: { id: { type: 'number' }, q: { type: 'string' } }, required: ['id'] } as const, { steps: [{ tool: 'echo' }] });
    expectTypeOf<Parameters<typeof composite.execute>[0]>().toEqualTypeOf<{ [x: string]: unknown; id: number; q?: string }>();
  });

  it('execute never throws: a broken gate becomes a failure result', async () => {
    const echo = tool('echo', (a) => a);
    let resolving = true;
    const broken = {
      resolve: () => {
        if (resolving) return echo;
        throw new Error('kaput');
      },
      run: () => {
        throw new Error('kaput');
      },
    };
    const builder = new ComposableToolBuilder(broken as never);
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo' }] });
    // The gate's run throws.
    const threw = await composite.execute({}, {});
    expect(threw.success).toBe(false);
    expect(threw.details?.code).toBe('step_threw');
    // And now its resolve throws too.
    resolving = false;
    const result = await composite.execute({}, {});
    expect(result.success).toBe(false);
    expect(result.details?.code).toBeDefined();
  });

  it('build reports a resolver that throws, naming the step and the tool, instead of crashing', () => {
    const broken = {
      resolve: () => {
        throw new Error('registry offline');
      },
      run: () => Promise.resolve({ success: true }),
    };
    const builder = new ComposableToolBuilder(broken as never);
    expect(() => builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo' }] })).toThrow(SpecError);
    expect(builder.validate({ steps: [{ tool: 'echo' }] }).errors).toEqual(['step "steps[0]": looking up tool "echo" failed: registry offline']);
  });
});

describe('ComposableToolBuilder: the chainability rule and the gate', () => {
  it('refuses an unlisted side-effecting step before anything with side effects runs', async () => {
    const { builder, send } = setup();
    const result = await builder.runPipeline({ steps: [{ tool: 'greet', inputMapping: { name: 'a' } }, { tool: 'send_email', inputMapping: { to: 'x' } }] }, {}, {});
    expect(result.success).toBe(false);
    // Every step is checked before the first runs: nothing ran.
    expect(result.details).toMatchObject({ code: 'step_not_chainable', step: 'steps[1]', completed: [], effects: [] });
    expect(send.calls).toHaveLength(0);
  });

  it('runs a listed side-effecting step and records it in the effects ledger', async () => {
    const { builder } = setup();
    builder.bind({ sideEffectingTools: ['send_email'] });
    const result = await builder.runPipeline({ steps: [{ tool: 'greet', inputMapping: { name: 'a' } }, { name: 'mail', tool: 'send_email', inputMapping: { to: 'x' } }, { tool: 'send_email', inputMapping: { to: 'y' } }] }, {}, {});
    expect(result.success).toBe(true);
    expect(result.effects).toEqual([{ step: 'mail', tool: 'send_email', ran: true, outcome: 'ran' }, { step: 'steps[2]', tool: 'send_email', ran: true, outcome: 'ran' }]);
  });

  it('refuses an undeclared tool even when listed, and an unknown tool', async () => {
    const { builder } = setup();
    builder.bind({ sideEffectingTools: ['vague'] });
    expect((await builder.runPipeline({ steps: [{ tool: 'vague' }] }, {}, {})).details?.code).toBe('side_effects_undeclared');
    expect((await builder.runPipeline({ steps: [{ tool: 'ghost' }] }, {}, {})).details?.code).toBe('step_missing');
    expect(builder.check('ghost')).toMatchObject({ ok: false });
    expect(builder.check('greet')).toMatchObject({ ok: true });
  });

  it('re-checks every step at every run, because a tool is replaced by name', async () => {
    const { builder, reg } = setup();
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo' }] });
    expect((await composite.execute({}, {})).success).toBe(true);
    reg.map.set('echo', tool('echo', () => 'now with side effects', { hasSideEffects: true }));
    expect((await composite.execute({}, {})).details?.code).toBe('step_not_chainable');
  });

  it('runs the instance that was checked, even if the registry changes in between', async () => {
    const original = tool('swap', () => 'original');
    const impostor = tool('swap', () => 'impostor', { hasSideEffects: true });
    const reg = registry(original);
    const builder = new ComposableToolBuilder(reg.gate({
      permissionManager: {
        isExecutionAllowed: () => {
          reg.map.set('swap', impostor); // swapped after the check, before the run
          return { isAllowed: true };
        },
      },
    }));
    const result = await builder.runPipeline({ steps: [{ tool: 'swap' }] }, {}, {});
    expect(result.output).toBe('original');
    expect(impostor.calls).toHaveLength(0);
  });

  it("keeps a step tool's own code as innerCode", async () => {
    const failing = tool('failing', () => ({ success: false, error: 'denied by tool', details: { code: 'permission_denied' } }));
    const { builder } = setup([failing]);
    const result = await builder.runPipeline({ steps: [{ tool: 'failing' }] }, {}, {});
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'permission_denied', step: 'steps[0]' });
  });

  it('turns throws, hangs and non-results into step_threw, step_timeout, step_bad_result', async () => {
    const thrower = tool('thrower', () => { throw new Error('boom'); });
    const hang = tool('hang', () => new Promise(() => {}));
    const base = { id: 'odd', name: 'odd', displayName: 'odd', description: '', inputSchema: {}, hasSideEffects: false };
    const odd: ITool = { ...base, execute: async () => 42 as never };
    const reg = registry(thrower, hang, odd);
    const builder = new ComposableToolBuilder(reg.gate(), { stepTimeoutMs: 40 });
    expect((await builder.runPipeline({ steps: [{ tool: 'thrower' }] }, {}, {})).details?.code).toBe('step_threw');
    expect((await builder.runPipeline({ steps: [{ tool: 'hang' }] }, {}, {})).details?.code).toBe('step_timeout');
    expect((await builder.runPipeline({ steps: [{ tool: 'hang', timeoutMs: 10 }] }, {}, {})).details).toMatchObject({ code: 'step_timeout', timeoutMs: 10 });
    expect((await builder.runPipeline({ steps: [{ tool: 'odd' }] }, {}, {})).details?.code).toBe('step_bad_result');
  });

  it('a refusal ends the run and names the step, the completed steps and the effects so far', async () => {
    const { reg, greet } = setup();
    const builder = new ComposableToolBuilder(reg.gate({ permissionManager: { isExecutionAllowed: (t) => ({ isAllowed: t.name !== 'echo', reason: 'no echo' }) } }));
    builder.bind({ sideEffectingTools: ['send_email'] });
    const result = await builder.runPipeline({
      steps: [{ name: 'mail', tool: 'send_email' }, { name: 'boom', tool: 'echo' }, { tool: 'greet' }],
    }, {}, {});
    expect(result.details).toMatchObject({ code: 'permission_denied', step: 'boom', completed: ['mail'], effects: [{ step: 'mail', tool: 'send_email', ran: true, outcome: 'ran' }] });
    expect(greet.calls).toHaveLength(0);
  });

  it('a step whose tool is missing is refused before any step runs', async () => {
    const { builder, send } = setup();
    builder.bind({ sideEffectingTools: ['send_email'] });
    const result = await builder.runPipeline({ steps: [{ name: 'mail', tool: 'send_email' }, { name: 'boom', tool: 'ghost' }] }, {}, {});
    expect(result.details).toMatchObject({ code: 'step_missing', step: 'boom', completed: [], effects: [] });
    expect(send.calls).toHaveLength(0);
  });

  it('a permission refusal and an approval refusal inside a composite', async () => {
    const { reg } = setup();
    const denied = new ComposableToolBuilder(reg.gate({ permissionManager: { isExecutionAllowed: (t) => ({ isAllowed: t.name !== 'greet', reason: 'no greeting' }) } }));
    expect((await denied.runPipeline({ steps: [{ tool: 'echo' }, { tool: 'greet' }] }, {}, {})).details).toMatchObject({ code: 'permission_denied', reason: 'no greeting', step: 'steps[1]' });
    const rejected = new ComposableToolBuilder(reg.gate({ approvals: { requestApproval: () => ({ approved: false, reason: 'no mail' }) } }));
    rejected.bind({ sideEffectingTools: ['send_email'] });
    expect((await rejected.runPipeline({ steps: [{ tool: 'send_email' }] }, {}, {})).details).toMatchObject({ code: 'approval_rejected', reason: 'no mail' });
  });

  it('abort: no step starts after the signal fires', async () => {
    const controller = new AbortController();
    const slow = tool('slow', async () => (controller.abort(), await delay(5), 'done'));
    const { builder, greet } = setup([slow]);
    const result = await builder.runPipeline({ steps: [{ tool: 'slow' }, { tool: 'greet' }] }, {}, {}, { signal: controller.signal });
    expect(result.details).toMatchObject({ code: 'step_aborted', completed: ['steps[0]'] });
    expect(greet.calls).toHaveLength(0);
  });
});

describe('ComposableToolBuilder: a bare execute callback', () => {
  it('composes nothing: hasGate is false, check and execute refuse with compose_needs_gate', async () => {
    const builder = new ComposableToolBuilder(async () => ({ success: true, output: 'x' }));
    expect(builder.hasGate()).toBe(false);
    expect(builder.check('anything')).toMatchObject({ ok: false, refusal: { details: { code: 'compose_needs_gate' } } });
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo' }] });
    expect((await composite.execute({}, {})).details?.code).toBe('compose_needs_gate');
    expect((await builder.runPipeline({ steps: [{ tool: 'echo' }] }, {}, {})).details?.code).toBe('compose_needs_gate');
  });
  it('composes once a gate is bound', async () => {
    const { reg } = setup();
    const builder = new ComposableToolBuilder(async () => ({ success: true }));
    builder.bind({ gate: reg.gate() });
    expect(builder.hasGate()).toBe(true);
    expect((await builder.runPipeline({ steps: [{ tool: 'greet', inputMapping: { name: 'z' } }] }, {}, {})).output).toBe('hello z');
  });
});

describe('dry runs', () => {
  it('runs pure steps, takes side-effecting and composite outputs from stepOutputs, and lists what would run', async () => {
    const { builder, send, greet, reg } = setup();
    builder.bind({ sideEffectingTools: ['send_email', 'inner'] });
    reg.map.set('inner', builder.build('inner', 'inner', { type: 'object' }, { steps: [{ tool: 'send_email' }] }) as ITool);
    const result = await builder.runPipeline({
      steps: [
        { tool: 'greet', inputMapping: { name: 'dry' } },
        { name: 'mail', tool: 'send_email', inputMapping: { to: '$prev' } },
        { name: 'nested', tool: 'inner' },
        { tool: 'echo', inputMapping: { mailed: '$steps.mail', nested: '$prev' } },
      ],
    }, {}, {}, { dry: { stepOutputs: { mail: { sent: 'pretend' }, nested: 'inner-output' } } });
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ mailed: { sent: 'pretend' }, nested: 'inner-output' });
    expect(result.effects).toEqual([
      { step: 'mail', tool: 'send_email', wouldRun: true, args: { to: 'hello dry' } },
      { step: 'nested', tool: 'inner', wouldRun: true, args: {}, nested: true },
    ]);
    expect(send.calls).toHaveLength(0);
    expect(greet.calls).toEqual([{ name: 'dry' }]); // pure steps run
  });

  it('a side-effecting step with no given output is dry_run_needs_output, naming the step', async () => {
    const { builder, send } = setup();
    builder.bind({ sideEffectingTools: ['send_email'] });
    const result = await builder.runPipeline({ steps: [{ name: 'mail', tool: 'send_email' }] }, {}, {}, { dry: { stepOutputs: {} } });
    expect(result.details).toMatchObject({ code: 'dry_run_needs_output', step: 'mail' });
    expect(result.error).toContain('mail');
    expect(send.calls).toHaveLength(0);
  });

  it('the chainability rule still holds in a dry run', async () => {
    const { builder } = setup();
    const result = await builder.runPipeline({ steps: [{ name: 'mail', tool: 'send_email' }] }, {}, {}, { dry: { stepOutputs: { mail: 1 } } });
    expect(result.details?.code).toBe('step_not_chainable');
  });
});

describe('depth and cycles', () => {
  it(`refuses a run at MAX_COMPOSITION_DEPTH (${MAX_COMPOSITION_DEPTH}) with nesting_too_deep`, async () => {
    const { builder, echo } = setup();
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo' }] });
    const atLimit = await composite.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH } });
    expect(atLimit.details).toMatchObject({ code: 'nesting_too_deep' });
    expect(echo.calls).toHaveLength(0);
    expect((await composite.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH - 1 } })).success).toBe(true);
  });

  it('refuses a composition that reaches itself with composition_cycle', async () => {
    // Built calling a stand-in, then registered under the stand-in's name: a cycle build cannot see.
    const reg = registry(tool('echo', (a) => a), tool('next', () => 'stand-in'));
    const builder = new ComposableToolBuilder(reg.gate());
    builder.bind({ sideEffectingTools: ['loop'] });
    const loop = builder.build('loop', 'calls itself', { type: 'object' }, { steps: [{ tool: 'echo' }, { tool: 'next' }] });
    reg.map.set('next', loop as ITool);
    const result = await loop.execute({}, {});
    expect(result.success).toBe(false);
    expect(result.details?.code).toBe('composition_cycle');
  });

  it('nested compositions carry the depth down and are refused at the limit', async () => {
    const reg = registry(tool('echo', (a) => a));
    const builder = new ComposableToolBuilder(reg.gate());
    const names = Array.from({ length: MAX_COMPOSITION_DEPTH + 2 }, (_, i) => `level${i}`);
    builder.bind({ sideEffectingTools: names });
    // Built from the innermost out: each step's tool is registered before the composite that calls it.
    [...names.keys()].reverse().forEach((i) => {
      const next = i + 1 < names.length ? names[i + 1] : 'echo';
      reg.map.set(names[i], builder.build(names[i], names[i], { type: 'object' }, { steps: [{ tool: next }] }) as ITool);
    });
    const result = await reg.map.get('level0')!.execute({}, {});
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.details)).toContain('nesting_too_deep');
  });
});

describe('validate', () => {
  it('accepts a good spec', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [{ tool: 'echo', inputMapping: { a: '$input.a' } }] })).toEqual({ valid: true });
  });

  it('lists every problem, not just the first', () => {
    const { builder } = setup();
    const result = builder.validate({ steps: [{ tool: '' }, { name: 'a', tool: 'x' }, { name: 'a', tool: 'y', bogus: 1 } as never, {} as never] });
    expect(result.valid).toBe(false);
    expect(result.errors!.length).toBeGreaterThanOrEqual(4);
    const text = result.errors!.join('\n');
    expect(text).toMatch(/steps\[0\].*tool/);
    expect(text).toMatch(/already used/);
    expect(text).toMatch(/bogus/);
    expect(text).toMatch(/steps\[3\].*tool/);
  });

  it('refuses empty steps and non-objects', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [] }).valid).toBe(false);
    expect(builder.validate(null as never).valid).toBe(false);
    expect(builder.validate({} as never).errors).toContain('steps must be a non-empty array');
  });

  it('strict mode refuses unresolvable references at validate and build, naming the step and expression', () => {
    const reg = registry(tool('echo', (a) => a));
    const strict = new ComposableToolBuilder(reg.gate(), { strictMode: true });
    expect(strict.strictMode).toBe(true);
    const spec: ComposableToolSpec = {
      steps: [
        { name: 'first', tool: 'echo', inputMapping: { a: '$steps[1].x', b: '$steps.later', c: '$steps.nobody', d: '$bogus.x' } },
        { name: 'later', tool: 'echo' },
      ],
    };
    const result = strict.validate(spec);
    expect(result.valid).toBe(false);
    const text = result.errors!.join('\n');
    for (const expr of ['$steps[1].x', '$steps.later', '$steps.nobody', '$bogus.x']) expect(text).toContain(expr);
    expect(text).toContain('first');
    expect(() => strict.build('c', 'c', { type: 'object' }, spec)).toThrow(SpecError);
  });

  it('references point backwards only, in every mode; a named node of an earlier pipe stage counts', () => {
    const { builder } = setup();
    const forward = builder.validate({ steps: [{ tool: 'echo', inputMapping: { a: '$steps[1]', b: '$steps.later', c: '$steps.ghost' } }, { name: 'later', tool: 'echo' }] });
    expect(forward.valid).toBe(false);
    expect(forward.errors).toHaveLength(3);
    expect(builder.validate({
      steps: [{ combinator: 'pipe', stages: [{ name: 'first', tool: 'echo' }, { tool: 'echo', inputMapping: { a: '$steps.first' } }] }],
    })).toEqual({ valid: true });
  });

  it('the published JSON Schema accepts what validate accepts and refuses a malformed spec', () => {
    const check = compileSchema(COMPOSABLE_TOOL_SPEC_SCHEMA);
    const good: ComposableToolSpec = {
      steps: [
        { name: 'a', tool: 'echo', inputMapping: { x: '$input.x' }, retry: { attempts: 2 } },
        { combinator: 'gather', calls: { b: { tool: 'echo' }, c: { combinator: 'for_each', items: '$input.list', template: { tool: 'echo' } } } },
      ],
      output: '$prev',
    };
    expect(check(good)).toBeNull();
    expect(check({ steps: [{ combinator: 'gather' }] })).not.toBeNull();
    expect(check({ steps: [{ tool: 'x', extra: 1 }] })).not.toBeNull();
  });

  it('without strict mode an unknown $-expression is a literal', async () => {
    const { builder } = setup();
    const result = await builder.runPipeline({ steps: [{ tool: 'echo', inputMapping: { price: '$5.00', ref: '$bogus.x' } }] }, {}, {});
    expect(result.output).toEqual({ price: '$5.00', ref: '$bogus.x' });
  });

  it('a malformed spec given to runPipeline is a spec_invalid result, and nothing runs', async () => {
    const { builder, echo } = setup();
    const result = await builder.runPipeline({ steps: [{ tool: 'echo' }, { combinator: 'explode' } as never] }, {}, {});
    expect(result.details?.code).toBe('spec_invalid');
    expect(echo.calls).toHaveLength(0);
  });

  it('build throws SpecError with code spec_invalid for a bad spec or schema', () => {
    const { builder } = setup();
    try {
      builder.build('c', 'c', { type: 'object' }, { steps: [] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SpecError);
      expect((error as SpecError).code).toBe('spec_invalid');
    }
    expect(() => builder.build('c', 'c', { type: 'not-a-type' }, { steps: [{ tool: 'echo' }] })).toThrow(SpecError);
  });
});
