import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, SpecError } from '../../src/builder.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const lookup = tool('lookup', (a) => ({ name: `user-${String(a.id)}` }));
  const greet = tool('greet', (a) => `Hello, ${String(a.name)}!`);
  const write = tool('write_file', () => 'written', { hasSideEffects: true });
  const vague = tool('vague', () => 'maybe', {});
  const reg = registry(lookup, greet, write, vague);
  const warnings: string[] = [];
  const builder = new ComposableToolBuilder(reg.gate(), { onWarning: (w) => warnings.push(w) });
  return { reg, builder, warnings, lookup, greet };
}

const buildErrors = (builder: ComposableToolBuilder, spec: ComposableToolSpec, name = 'c'): string[] => {
  try {
    builder.build(name, name, { type: 'object' }, spec);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).errors;
  }
  return [];
};

describe('validate and build know the registry', () => {
  it('name an unknown tool and its step, with the closest registered names', () => {
    const { builder } = setup();
    const spec = { steps: [{ name: 'user', tool: 'lookpu', inputMapping: { id: '$input.id' } }, { tool: 'greet', inputMapping: { name: '$prev.name' } }] };
    const expected = ['no tool "lookpu" in step "user"; did you mean lookup?'];
    expect(builder.validate(spec)).toEqual({ valid: false, errors: expected });
    expect(buildErrors(builder, spec)).toEqual(expected);
    const strict = new ComposableToolBuilder(setup().reg.gate(), { strictMode: true });
    expect(strict.validate(spec).errors).toEqual(expected);
  });

  it('report a composite that calls itself as a cycle, not as an unknown tool', () => {
    const { builder } = setup();
    const spec = { steps: [{ tool: 'greet', inputMapping: { name: 'x' } }, { tool: 'again', inputMapping: {} }] };
    const expected = ['composition cycle: again → again (step "steps[1]" calls "again"): a composition may not reach itself'];
    expect(builder.validate(spec, { name: 'again' })).toEqual({ valid: false, errors: expected });
    expect(buildErrors(builder, spec, 'again')).toEqual(expected);
    // Without a name, the spec is not known to be the composite it calls.
    expect(builder.validate(spec).errors).toEqual(['no tool "again" in step "steps[1]"']);
  });

  it('report a cycle through the registry (a → b → a) at validate and build, with its path; the run-time guard still holds', async () => {
    const { builder, reg } = setup();
    // `a` stands in while `b` is built; then `a` is rebuilt to call `b`, closing the cycle.
    reg.add(builder.build('a', 'a', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: { name: 'x' } }] }));
    const b = builder.build('b', 'b', { type: 'object' }, { steps: [{ name: 'back', tool: 'a', inputMapping: {} }] });
    reg.add(b);
    const spec = { steps: [{ name: 'lookup', tool: 'lookup', inputMapping: {} }, { name: 'go', tool: 'b', inputMapping: {} }] };
    const expected = ['composition cycle: a → b → a (step "go" calls "b"): a composition may not reach itself'];
    expect(builder.validate(spec, { name: 'a' })).toEqual({ valid: false, errors: expected });
    expect(buildErrors(builder, spec, 'a')).toEqual(expected);
    expect(b.stepTools).toEqual(['a']);
    // Through a combinator and a compensation too.
    builder.bind({ sideEffectingTools: ['write_file'] });
    expect(builder.validate({ steps: [{ combinator: 'gather', calls: { x: { tool: 'greet' }, y: { tool: 'b' } } }] }, { name: 'a' }).errors).toEqual([
      'composition cycle: a → b → a (step "steps[0].calls.y" calls "b"): a composition may not reach itself',
    ]);
    expect(builder.validate({ steps: [{ name: 'w', tool: 'write_file', compensate: { tool: 'b' } }] }, { name: 'a' }).errors).toEqual([
      'composition cycle: a → b → a (step "w (undo)" calls "b"): a composition may not reach itself',
    ]);
    // A cycle made by replacing a tool after build is still refused when it runs.
    const a = builder.build('a2', 'a2', { type: 'object' }, { steps: [{ tool: 'lookup', inputMapping: {} }, { tool: 'b', inputMapping: {} }] });
    reg.add(a, 'a');
    expect((await a.execute({}, {})).details).toMatchObject({ code: 'step_failed', innerCode: 'composition_cycle' });
  });

  it('report a cycle the spec reaches below itself (b → c → b), and not the same composition twice side by side', () => {
    const { builder, reg } = setup();
    reg.add(tool('c', () => 'stand-in'));
    reg.add(builder.build('b', 'b', { type: 'object' }, { steps: [{ tool: 'c', inputMapping: {} }] }));
    // Built under another name, then registered as `c`: the registry now holds b → c → b.
    reg.add(builder.build('c2', 'c2', { type: 'object' }, { steps: [{ tool: 'b', inputMapping: {} }] }), 'c');
    expect(builder.validate({ steps: [{ tool: 'b', inputMapping: {} }] }, { name: 'top' }).errors).toEqual([
      'composition cycle: b → c → b (step "steps[0]" calls "b"): a composition may not reach itself',
    ]);
    reg.add(builder.build('leaf', 'leaf', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: {} }] }));
    reg.add(builder.build('mid', 'mid', { type: 'object' }, { steps: [{ tool: 'leaf', inputMapping: {} }, { tool: 'leaf', inputMapping: {} }] }));
    expect(builder.validate({ steps: [{ tool: 'mid', inputMapping: {} }, { tool: 'leaf', inputMapping: {} }] }, { name: 'top' })).toEqual({ valid: true });
  });

  it('report an unlisted side-effecting step and an undeclared tool the same way: the step, the tool, what to do', () => {
    const { builder } = setup();
    const errors = builder.validate({ steps: [{ name: 'save', tool: 'write_file' }, { name: 'guess', tool: 'vague' }] }).errors!;
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^step "save" calls "write_file", which has side effects and is not listed.*builder\.bind\(\{ sideEffectingTools: \["write_file"\] \}\)/);
    expect(errors[1]).toMatch(/^step "guess" calls "vague", which does not declare whether it has side effects.*declare hasSideEffects on the tool/);
    builder.bind({ sideEffectingTools: ['write_file'] });
    expect(builder.validate({ steps: [{ name: 'save', tool: 'write_file' }] })).toEqual({ valid: true });
  });

  it('check a compensation tool too', () => {
    const { builder } = setup();
    builder.bind({ sideEffectingTools: ['write_file'] });
    const errors = builder.validate({ steps: [{ name: 'save', tool: 'write_file', compensate: { tool: 'unwrite' } }] }).errors!;
    expect(errors).toEqual(['no tool "unwrite" in step "save (undo)"; did you mean write_file?'.replace('; did you mean write_file?', '')]);
  });

  it('list problems of structure and of meaning together: every problem, every time', () => {
    const { builder } = setup();
    const errors = builder.validate({
      steps: [
        { name: 'a', tool: '', inputMapping: {} },
        { name: 'a', tool: 'greet', inputMapping: { name: '$steps.later.name' } },
        { name: 'later', tool: 'lookup', inputMapping: {} },
      ],
    }).errors!;
    expect(errors.some((e) => /steps\[0\]\.tool must NOT have fewer than 1 characters/.test(e))).toBe(true);
    expect(errors.some((e) => /step name "a" is already used/.test(e))).toBe(true);
    expect(errors.some((e) => /"\$steps\.later\.name" refers to a step that has not run yet/.test(e))).toBe(true);
  });

  it('report an invalid outputSchema at validate, showing the bad value', () => {
    const { builder } = setup();
    const spec = { steps: [{ tool: 'greet', inputMapping: { name: 'x' } }], outputSchema: { type: 'object', properties: { n: { type: 'nubmer' } } } };
    const result = builder.validate(spec);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(['outputSchema.properties.n.type must be equal to one of the allowed values (got "nubmer")']);
    expect(buildErrors(builder, spec)).toEqual(result.errors);
  });

  it('report an invalid inputSchema at build, showing the bad value', () => {
    const { builder } = setup();
    expect(() => builder.build('c', 'c', { type: 'object', required: 'id' }, { steps: [{ tool: 'greet' }] })).toThrow(/inputSchema\.required must be array \(got "id"\)/);
  });

  it('refuse a step with both args and inputMapping', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [{ tool: 'greet', args: { name: 'a' }, inputMapping: { name: 'b' } }] }).errors).toEqual([
      'steps[0] has both args and inputMapping: keep one (they mean the same: the step\'s arguments)',
    ]);
  });

  it('refuse names and tools that are only whitespace, as an empty one is', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [{ name: '   ', tool: 'greet' }] }).errors).toEqual(['steps[0].name must not be blank (it is only whitespace)']);
    expect(builder.validate({ steps: [{ tool: ' \t ' }] }).errors).toEqual(['steps[0].tool must name a tool (it is only whitespace)']);
  });
});

describe('lenient mode keeps unknown $-expressions, never silently', () => {
  it('validate returns a warning for every literal kept and every refused JSONPath filter; build hands them to onWarning', () => {
    const { builder, warnings } = setup();
    const spec = {
      steps: [
        { tool: 'lookup', inputMapping: { id: '$inptu.id' } },
        { tool: 'greet', inputMapping: { name: "$input.users[?(@.constructor('x'))]" } },
        { tool: 'greet', inputMapping: { name: 'Hi ${$inptu.name}' } },
      ],
    };
    const result = builder.validate(spec);
    expect(result.valid).toBe(true);
    expect(result.warnings).toHaveLength(3);
    expect(result.warnings![0]).toMatch(/^step "steps\[0\]": "\$inptu\.id" has an unknown root "\$inptu".*kept as the literal text/);
    expect(result.warnings![1]).toMatch(/^step "steps\[1\]": .* is a JSONPath that is refused.*kept as the literal text/);
    expect(result.warnings![2]).toMatch(/in "Hi \$\{\$inptu\.name\}".*kept as the literal text/);
    builder.build('c', 'c', { type: 'object' }, spec);
    expect(warnings).toEqual(result.warnings);
  });

  it('warns when a reference reads undefined in lenient mode ($prev on the first step)', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [{ tool: 'greet', inputMapping: { name: '$prev.name' } }] }).warnings).toEqual([
      'step "steps[0]": "$prev.name" has no previous step to read here; it reads undefined when the step runs (strict mode refuses it)',
    ]);
  });

  it('has no warnings for a clean spec, and none at all in strict mode (they are errors there)', () => {
    const { builder, reg } = setup();
    expect(builder.validate({ steps: [{ tool: 'greet', inputMapping: { name: '$input.name' } }] })).toEqual({ valid: true });
    const strict = new ComposableToolBuilder(reg.gate(), { strictMode: true });
    const result = strict.validate({ steps: [{ tool: 'lookup', inputMapping: { id: '$inptu.id' } }] });
    expect(result.valid).toBe(false);
    expect(result.warnings).toBeUndefined();
  });
});

describe('one answer on nested compositions', () => {
  function nested() {
    const { reg, builder } = setup();
    const inner = builder.build('inner', 'pure inner', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: { name: 'a' } }] });
    reg.add(inner as ITool);
    return { reg, builder, spec: { steps: [{ name: 'call_inner', tool: 'inner', inputMapping: {} }] } };
  }

  it('hasSideEffectingStep is true for a spec whose only step is a pure composition, as a dry run needs its output', async () => {
    const { builder, spec } = nested();
    expect(builder.hasSideEffectingStep(spec)).toBe(true);
    expect(builder.dryRunStubsNeeded(spec)).toEqual(['call_inner']);
    expect((await builder.runPipeline(spec, {}, {}, { dry: { stepOutputs: {} } })).details?.code).toBe('dry_run_needs_output');
    expect((await builder.runPipeline(spec, {}, {}, { dry: { stepOutputs: { call_inner: 'x' } } })).success).toBe(true);
  });

  it('dryRunStubsNeeded lists side-effecting and composite steps by the key a dry run reads, not pure ones or undos', () => {
    const { builder } = nested();
    builder.bind({ sideEffectingTools: ['write_file'] });
    const spec: ComposableToolSpec = {
      steps: [
        { tool: 'greet', inputMapping: { name: 'a' } },
        { combinator: 'gather', calls: { save: { tool: 'write_file', inputMapping: {}, compensate: { tool: 'write_file' } }, sub: { tool: 'inner', inputMapping: {} } } },
      ],
    };
    expect(builder.dryRunStubsNeeded(spec)).toEqual(['steps[1].calls.save', 'steps[1].calls.sub']);
    expect(builder.hasSideEffectingStep({ steps: [{ tool: 'greet', inputMapping: { name: 'a' } }] })).toBe(false);
  });
});

describe('a nested failure keeps its inner step', () => {
  it('the outer step stays where it is; the inner step, tool and code are carried beside it, as deep as the failure goes', async () => {
    const fail = tool('fail', () => ({ success: false, error: 'disk full', details: { code: 'E_DISK' } }));
    const reg = registry(fail, tool('ok', () => 'fine'));
    const builder = new ComposableToolBuilder(reg.gate());
    reg.add(builder.build('deepest', 'd', { type: 'object' }, { steps: [{ name: 'write_it', tool: 'fail', inputMapping: {} }] }) as ITool);
    reg.add(builder.build('middle', 'm', { type: 'object' }, { steps: [{ tool: 'ok', inputMapping: {} }, { name: 'go_deeper', tool: 'deepest', inputMapping: {} }] }) as ITool);
    const outer = builder.build('outer', 'o', { type: 'object' }, { steps: [{ name: 'run_middle', tool: 'middle', inputMapping: {} }] });
    const result = await outer.execute({}, {});
    expect(result.details).toMatchObject({
      code: 'step_failed',
      innerCode: 'E_DISK',
      step: 'run_middle',
      tool: 'middle',
      inner: { step: 'go_deeper', tool: 'deepest', code: 'step_failed', innerCode: 'E_DISK', inner: { step: 'write_it', tool: 'fail', code: 'step_failed', innerCode: 'E_DISK' } },
    });
    expect(result.error).toBe('Step "run_middle" (middle) > step "go_deeper" (deepest) > step "write_it" (fail): disk full');
  });
});

describe('a code on every failure, whatever the gate', () => {
  it("a host-made gate's failure without details comes back as step_failed, the tool's own fields kept", async () => {
    const greet = tool('greet', () => 'hi');
    const hostGate = {
      resolve: (name: string) => (name === 'greet' ? greet : undefined),
      run: async () => ({ success: false, error: 'quota reached', details: { retryAfter: 30 } }),
    };
    const builder = new ComposableToolBuilder(hostGate as never);
    const result = await builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: {} }] }).execute({}, {});
    expect(result).toMatchObject({ success: false, details: { code: 'step_failed', step: 'steps[0]', retryAfter: 30 } });
    expect(result.error).toMatch(/quota reached/);
  });

  it("a host-made gate's non-result is step_bad_result", async () => {
    const greet = tool('greet', () => 'hi');
    const builder = new ComposableToolBuilder({ resolve: () => greet, run: async () => 'nope' } as never);
    const result = await builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: {} }] }).execute({}, {});
    expect(result.details?.code).toBe('step_bad_result');
  });
});
