import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { argsRefusal } from '../../src/gate/stages/arguments.js';
import { hasProtoField } from '../../src/gate/proto-fields.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

/**
 * `depth` + 1 objects, each holding the next under two keys (a tree of 2^depth paths over a few
 * objects), and how many times their keys were listed: a search that looks at each object once
 * lists about `depth` + 1, one that walks every path about 2^depth.
 */
function sharedLevels(depth: number): { top: Record<string, unknown>; listed: () => number } {
  let listed = 0;
  const counted = (target: Record<string, unknown>) =>
    new Proxy(target, { ownKeys: (inner) => (listed++, Reflect.ownKeys(inner)) });
  let top = counted({ end: true });
  for (let i = 0; i < depth; i++) top = counted({ left: top, right: top });
  return { top, listed: () => listed };
}

const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function setup() {
  const greet = tool('greet', (a) => `Hello, ${String(a.name)}!`, { hasSideEffects: false, inputSchema: nameSchema });
  const reg = registry(greet);
  return { reg, greet, gate: reg.gate() };
}

describe('arguments are checked against the called tool\'s inputSchema', () => {
  it('at run_pipeline: a wrong type and a missing field are args_invalid, naming the tool, the step and the field', async () => {
    const { gate, greet } = setup();
    const pipeline = createRunPipelineTool(gate);
    const wrongType = await pipeline.execute({ steps: [{ id: 'hi', tool: 'greet', args: { name: 123 } }] }, {});
    expect(wrongType.success).toBe(false);
    expect(wrongType.details).toMatchObject({ code: 'args_invalid', tool: 'greet', step: 'hi', field: 'name' });
    expect(String(wrongType.output)).toContain('hi: error args_invalid: the arguments of tool "greet" do not match its inputSchema: name must be string (got 123)');
    const missing = await pipeline.execute({ steps: [{ tool: 'greet', args: {} }] }, {});
    expect(missing.details).toMatchObject({ code: 'args_invalid', field: 'name' });
    expect(missing.error).toContain('name is required');
    expect(greet.calls).toEqual([]);
  });

  it('at compose', async () => {
    const { gate, greet } = setup();
    const result = await createComposeTool(gate).execute({ combinator: 'gather', calls: { a: { tool: 'greet', args: { name: 'Ann' } }, b: { tool: 'greet', args: { name: false } } } }, {});
    expect(result.details).toMatchObject({ code: 'args_invalid', call: 'b', field: 'name' });
    expect(greet.calls).toEqual([{ name: 'Ann' }]);
  });

  it('in a composite by default: a wrong field is args_invalid before the tool runs; validateArgs: false opts out', async () => {
    const { gate, greet } = setup();
    const spec = { steps: [{ name: 'hi', tool: 'greet', inputMapping: { nmae: '$input.name' } }] };
    const checked = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, spec);
    const refused = await checked.execute({ name: 'Ann' }, {});
    expect(refused.details).toMatchObject({ code: 'args_invalid', tool: 'greet', step: 'hi', field: 'name' });
    expect(refused.error).toContain('name is required');
    const wrongType = await new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: { name: '$input.id' } }] }).execute({ id: 7 }, {});
    expect(wrongType.details).toMatchObject({ code: 'args_invalid', step: 'steps[0]', field: 'name' });
    expect(greet.calls).toEqual([]);
    const lax = new ComposableToolBuilder(gate, { validateArgs: false }).build('c', 'c', { type: 'object' }, spec);
    expect(await lax.execute({ name: 'Ann' }, {})).toMatchObject({ success: true, output: 'Hello, undefined!' });
    expect(greet.calls).toEqual([{ nmae: 'Ann' }]);
  });

  it('in a composite by default, arguments fixed in the spec are checked at validate and build; validateArgs: false opts out', async () => {
    const { gate, greet } = setup();
    const spec = { steps: [{ name: 'hi', tool: 'greet', inputMapping: { name: 42 } }] };
    const expected = 'Step "hi": the arguments of tool "greet" do not match its inputSchema: name must be string (got 42). Fix the arguments the spec gives this step.';
    expect(new ComposableToolBuilder(gate).validate(spec)).toEqual({ valid: false, errors: [expected] });
    expect(() => new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, spec)).toThrow(expected);
    const lax = new ComposableToolBuilder(gate, { validateArgs: false });
    expect(lax.validate(spec)).toEqual({ valid: true });
    expect(await lax.build('c', 'c', { type: 'object' }, spec).execute({}, {})).toMatchObject({ success: true, output: 'Hello, 42!' });
    expect(greet.calls).toEqual([{ name: 42 }]);
  });

  it('a composite checks the tool instance it runs: one replaced by name is checked against its own schema', async () => {
    const { reg, gate } = setup();
    const composite = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, { steps: [{ tool: 'greet', inputMapping: { name: '$input.n' } }] });
    expect((await composite.execute({ n: 5 }, {})).details?.code).toBe('args_invalid');
    reg.add(tool('greet', (a) => `Hi ${String(a.name)}`, { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'number' } } } }));
    expect(await composite.execute({ n: 5 }, {})).toMatchObject({ success: true, output: 'Hi 5' });
    expect((await composite.execute({ n: 'five' }, {})).details).toMatchObject({ code: 'args_invalid', field: 'name' });
  });

  it('runPipeline checks by default too', async () => {
    const { gate } = setup();
    const result = await new ComposableToolBuilder(gate).runPipeline({ steps: [{ tool: 'greet', inputMapping: { name: '$input.id' } }] }, { id: 7 }, {});
    expect(result.details).toMatchObject({ code: 'args_invalid', field: 'name' });
  });

  it('compiles once per tool instance: a tool replaced by name gets its own check', async () => {
    const { reg, gate } = setup();
    const pipeline = createRunPipelineTool(gate);
    const call = () => pipeline.execute({ steps: [{ tool: 'greet', args: { name: 5 } }] }, {});
    expect((await call()).details?.code).toBe('args_invalid');
    reg.add(tool('greet', (a) => `Hi ${String(a.name)}`, { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'number' } } } }));
    expect(await call()).toMatchObject({ success: true });
  });

  it('reads draft 2020-12 schemas, tolerates two tools sharing an $id, and skips a schema ajv cannot compile', () => {
    const withId = (name: string, type: string): ITool => tool(name, () => 'x', { hasSideEffects: false, inputSchema: { $id: 'https://example.com/args', type: 'object', properties: { v: { type } } } });
    expect(argsRefusal(withId('a', 'string'), 'a', 's', { v: 1 })?.details?.code).toBe('args_invalid');
    expect(argsRefusal(withId('b', 'number'), 'b', 's', { v: 1 })).toBeUndefined();
    const modern = tool('m', () => 'x', { hasSideEffects: false, inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', prefixItems: [], properties: { v: { type: 'integer' } } } });
    expect(argsRefusal(modern, 'm', 's', { v: 1.5 })?.details).toMatchObject({ field: 'v' });
    const broken = tool('b', () => 'x', { hasSideEffects: false, inputSchema: { type: 'object', properties: { v: { $ref: '#/nowhere' } } } });
    expect(argsRefusal(broken, 'b', 's', { v: 1 })).toBeUndefined();
  });

  it('names nested fields and unknown arguments', () => {
    const t = tool('t', () => 'x', { hasSideEffects: false, inputSchema: { type: 'object', properties: { user: { type: 'object', properties: { id: { type: 'integer' } } } }, additionalProperties: false } });
    const refusal = argsRefusal(t, 't', 'step_1', { user: { id: 'x' }, extra: 1 });
    expect(refusal?.details?.fields).toEqual(expect.arrayContaining(['user.id', 'extra']));
    expect(refusal?.error).toContain('user.id must be integer (got "x")');
    expect(refusal?.error).toContain('extra is not an argument it takes');
  });
});

describe('the argument check reads own properties only', () => {
  const named = (inputSchema: Record<string, unknown>) => tool('t', () => 'x', { hasSideEffects: false, inputSchema });

  it('an optional field named like an Object.prototype member may be left out', () => {
    const t = named({ type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'string' }, hasOwnProperty: { type: 'boolean' } } });
    expect(argsRefusal(t, 't', 's', {})).toBeUndefined();
    expect(argsRefusal(t, 't', 's', { toString: 'yes' })).toBeUndefined();
    expect(argsRefusal(t, 't', 's', { toString: 3 })?.details).toMatchObject({ code: 'args_invalid', field: 'toString' });
  });

  it('a required field named like an Object.prototype member must be given', () => {
    const t = named({ type: 'object', properties: { valueOf: {} }, required: ['valueOf', 'constructor'] });
    const refusal = argsRefusal(t, 't', 's', {});
    expect(refusal?.details).toMatchObject({ code: 'args_invalid', fields: ['valueOf', 'constructor'] });
    expect(refusal?.error).toContain('valueOf is required');
    expect(argsRefusal(t, 't', 's', { valueOf: 1, constructor: 'c' })).toBeUndefined();
  });

  it('an argument named __proto__ is refused, at any depth, and nothing is polluted', () => {
    const t = named({ type: 'object', properties: { opts: { type: 'object' } } });
    const top = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(argsRefusal(t, 't', 's', top)?.details).toMatchObject({ code: 'args_invalid', field: '__proto__' });
    const deep = JSON.parse('{"opts": {"list": [{"__proto__": {"polluted": true}}]}}') as Record<string, unknown>;
    const refusal = argsRefusal(t, 't', 's', deep);
    expect(refusal?.details).toMatchObject({ code: 'args_invalid', field: 'opts.list.0.__proto__' });
    expect(refusal?.error).toContain('opts.list.0.__proto__ is not a name an argument may have');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an argument named __proto__ is found under any key and below any depth, and the refusal names it in every field', () => {
    const t = named({ type: 'object' });
    const later = JSON.parse('{"a": {"x": 1}, "b": [1, {"__proto__": 1}]}') as Record<string, unknown>;
    expect(hasProtoField(later)).toBe(true);
    expect(argsRefusal(t, 't', 's', later)?.details).toEqual({
      code: 'args_invalid',
      tool: 't',
      step: 's',
      field: 'b.1.__proto__',
      fields: ['b.1.__proto__'],
      errors: ['b.1.__proto__ is not a name an argument may have'],
    });
    // Far deeper than any real argument: the search has no depth it gives up at.
    const deep = JSON.parse(`${'{"d":'.repeat(5000)}{"__proto__": 1}${'}'.repeat(5000)}`) as Record<string, unknown>;
    expect(hasProtoField(deep)).toBe(true);
    expect(argsRefusal(t, 't', 's', deep)?.details?.field).toBe(`${'d.'.repeat(5000)}__proto__`);
  });

  it('arguments that share one object at every level, or hold a cycle, are searched once per object', () => {
    const t = named({ type: 'object' });
    // 21 objects, each holding the next under two keys: 2^20 paths, if each were walked.
    const shared = sharedLevels(20);
    expect(hasProtoField(shared.top)).toBe(false);
    expect(argsRefusal(t, 't', 's', shared.top)).toBeUndefined();
    expect(shared.listed()).toBeLessThanOrEqual(3 * 21);
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic.list as unknown[]).push(cyclic, JSON.parse('{"__proto__": 1}'));
    expect(hasProtoField(cyclic)).toBe(true);
    expect(argsRefusal(t, 't', 's', cyclic)?.details?.field).toBe('list.1.__proto__');
    const clean: Record<string, unknown> = { n: 1 };
    clean.self = clean;
    expect(hasProtoField(clean)).toBe(false);
  });

  describe('the search without allocation, and the search it hands over to', () => {
    /** A composite step given `value` (a tool's output, passed on by reference) under `data`: its result, and whether the step's tool ran. */
    async function throughAComposite(value: unknown) {
      const produce = tool('produce', () => value, { hasSideEffects: false });
      const take = tool('take', () => 'ran', { hasSideEffects: false, inputSchema: { type: 'object' } });
      const composite = new ComposableToolBuilder(registry(produce, take).gate()).build('c', 'c', { type: 'object' }, {
        steps: [{ tool: 'produce' }, { tool: 'take', inputMapping: { data: '$prev' } }],
      });
      const result = await composite.execute({}, {});
      return { result, ran: take.calls.length > 0 };
    }
    const proto = () => JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    /** `depth` objects, each under `d` of the one before, the last holding `last`. */
    const nested = (depth: number, last: Record<string, unknown>) => {
      let top = last;
      for (let i = 0; i < depth; i++) top = { d: top };
      return top;
    };

    it.each([
      ['nested within the walk\'s depth', () => nested(14, proto()), `data.${'d.'.repeat(14)}__proto__`],
      ['at the walk\'s last depth', () => nested(15, proto()), `data.${'d.'.repeat(15)}__proto__`],
      ['one below the walk\'s last depth (the search it hands over to finds it)', () => nested(16, proto()), `data.${'d.'.repeat(16)}__proto__`],
      ['deeper than the walk goes (the search it hands over to finds it)', () => nested(40, proto()), `data.${'d.'.repeat(40)}__proto__`],
      ['inside an array, after other items', () => ({ list: [1, 'a', { ok: true }, [{ x: 1 }, proto()]] }), 'data.list.3.1.__proto__'],
      ['in an array\'s own field that is not an index', () => Object.assign([1, 2], { extra: proto() }), 'data.extra.__proto__'],
      ['in an object shared by two fields', () => {
        const shared = { inner: proto() };
        return { a: shared, b: shared };
      }, 'data.a.inner.__proto__'],
      ['in an object on a cycle', () => {
        const cyclic: Record<string, unknown> = { n: 1, inner: { first: proto() } };
        cyclic.self = cyclic;
        return cyclic;
      }, 'data.inner.first.__proto__'],
      ['past more objects than the walk enters (the search it hands over to finds it)', () => ({ many: Array.from({ length: 100 }, (_, i) => (i === 99 ? proto() : { i })) }), 'data.many.99.__proto__'],
      ['behind a cycle, past the walk\'s bounds', () => {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        cyclic.zlast = proto();
        return cyclic;
      }, 'data.zlast.__proto__'],
    ])('an own __proto__ field %s is refused as args_invalid before the tool runs', async (_, make, field) => {
      const value = make();
      expect(hasProtoField({ data: value })).toBe(true);
      const { result, ran } = await throughAComposite(value);
      expect(result.success).toBe(false);
      expect(result.details).toMatchObject({ code: 'args_invalid', field, fields: [field] });
      expect(ran).toBe(false);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('a cycle within the bounds ends the walk, and clean arguments that share objects or hold cycles are accepted', async () => {
      const cyclic: Record<string, unknown> = { n: 1, list: [] };
      (cyclic.list as unknown[]).push(cyclic, { x: cyclic });
      expect(hasProtoField(cyclic)).toBe(false);
      const shared = { leaf: { ok: true } };
      const diamond = { a: shared, b: shared, c: [shared, shared] };
      expect(hasProtoField(diamond)).toBe(false);
      for (const value of [cyclic, diamond]) expect(await throughAComposite(value)).toMatchObject({ result: { success: true, output: 'ran' }, ran: true });
    });

    it('clean arguments larger and deeper than the walk goes are accepted', async () => {
      const large = {
        rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'], meta: { at: i, by: { user: 'u' } } })),
        deep: nested(100, { end: true }),
      };
      expect(hasProtoField(large)).toBe(false);
      expect(await throughAComposite(large)).toMatchObject({ result: { success: true, output: 'ran' }, ran: true });
    });

    it('follows only own fields, as the refusal does: an inherited field is not an argument', async () => {
      const inherited = Object.create({ fromPrototype: proto() }) as Record<string, unknown>;
      inherited.own = { ok: true };
      expect(hasProtoField({ data: inherited })).toBe(false);
      expect(argsRefusal(named({ type: 'object' }), 't', 's', { data: inherited })).toBeUndefined();
    });
  });

  it("a composite step's arguments built from a tool's output that shares objects are checked once per object, and the step runs", async () => {
    const shared = sharedLevels(20);
    const produce = tool('produce', () => shared.top, { hasSideEffects: false });
    const take = tool('take', (a) => Object.keys(a).join(','), { hasSideEffects: false, inputSchema: { type: 'object' } });
    const composite = new ComposableToolBuilder(registry(produce, take).gate()).build('c', 'c', { type: 'object' }, {
      steps: [{ tool: 'produce' }, { tool: 'take', inputMapping: { data: '$prev', again: '$prev' } }],
    });
    expect(await composite.execute({}, {})).toMatchObject({ success: true, output: 'data,again' });
    expect(shared.listed()).toBeLessThanOrEqual(2 * 21);
  });

  it.each([
    ['an object', '{"__proto__": {"x": 1}}'],
    // No nested object at all: the cheap question answers from the top level alone.
    ['a number, beside a plain field', '{"a": 1, "__proto__": 1}'],
  ])('through a door: run_pipeline refuses an argument named __proto__ holding %s before the tool runs', async (_, args) => {
    const seen = tool('seen', (a) => Object.keys(a).join(','), { hasSideEffects: false, inputSchema: { type: 'object' } });
    const pipeline = createRunPipelineTool(registry(seen).gate());
    const result = await pipeline.execute(JSON.parse(`{"steps": [{"tool": "seen", "args": ${args}}]}`) as Record<string, unknown>, {});
    expect(result.details).toMatchObject({ code: 'args_invalid', field: '__proto__' });
    expect(seen.calls).toEqual([]);
  });

  it("a composite's own input check leaves an optional toString out and requires a required valueOf", async () => {
    const { gate } = setup();
    const composite = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object', properties: { toString: { type: 'string' }, valueOf: {} }, required: ['valueOf'] }, { steps: [{ tool: 'greet', inputMapping: { name: 'Ann' } }] });
    expect(await composite.execute({ valueOf: 1 } as never, {})).toMatchObject({ success: true, output: 'Hello, Ann!' });
    expect((await composite.execute({} as never, {})).details).toMatchObject({ code: 'input_invalid' });
  });
});
