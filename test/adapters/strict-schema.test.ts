import { describe, expect, it } from 'vitest';
import { toStrictSchema } from '../../src/adapters/strict-schema.js';
import { hostSetup } from './helpers.js';

describe('toStrictSchema: the OpenAI strict form of an input schema', () => {
  it('closes every object, requires every property, makes optional ones nullable, and removes exactly those nulls again', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'number' },
        tag: { type: 'string' },
        mode: { enum: ['fast', 'slow'] },
        note: { type: ['string', 'null'] }, // already nullable: its null is the tool's own
        items: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } }, required: ['path'] } },
      },
      required: ['id'],
    };
    const form = toStrictSchema(schema);
    if (!form.ok) throw new Error(form.reason);
    expect(form.schema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'number' },
        tag: { type: ['string', 'null'] },
        mode: { enum: ['fast', 'slow', null] },
        note: { type: ['string', 'null'] },
        items: { type: ['array', 'null'], items: { type: 'object', properties: { path: { type: 'string' }, depth: { type: ['integer', 'null'] } }, required: ['path', 'depth'], additionalProperties: false } },
      },
      required: ['id', 'tag', 'mode', 'note', 'items'],
      additionalProperties: false,
    });
    expect(form.restore({ id: 1, tag: null, mode: null, note: null, items: [{ path: 'a', depth: null }, { path: 'b', depth: 2 }] }))
      .toEqual({ id: 1, note: null, items: [{ path: 'a' }, { path: 'b', depth: 2 }] });
    expect(schema.required).toEqual(['id']); // the original is never changed
  });

  it('follows $defs and a reference to the root', () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } }, required: ['name'] };
    const form = toStrictSchema(tree);
    if (!form.ok) throw new Error(form.reason);
    expect(form.schema.properties).toEqual({ name: { type: 'string' }, child: { anyOf: [{ $ref: '#' }, { type: 'null' }] } });
    expect(form.restore({ name: 'a', child: { name: 'b', child: null } })).toEqual({ name: 'a', child: { name: 'b' } });
    const withDefs = { type: 'object', properties: { at: { $ref: '#/$defs/point' } }, required: ['at'], $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] } } };
    const defsForm = toStrictSchema(withDefs);
    if (!defsForm.ok) throw new Error(defsForm.reason);
    expect((defsForm.schema.$defs as Record<string, unknown>).point).toMatchObject({ required: ['x', 'y'], additionalProperties: false });
    expect(defsForm.restore({ at: { x: 1, y: null } })).toEqual({ at: { x: 1 } });
  });

  it('has no strict form for a root union, an open object, any value, an unsupported keyword or optional fields inside a union', () => {
    const reasons = [
      { anyOf: [{ type: 'object' }] },
      { type: 'object', properties: { args: { type: 'object' } }, required: ['args'] },
      { type: 'object', properties: { calls: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } }, required: ['calls'] },
      { type: 'object', properties: { when: {} }, required: ['when'] },
      { type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } }, required: ['a'] },
      { type: 'object', properties: { a: { anyOf: [{ type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false }, { type: 'string' }] } }, required: ['a'] },
    ].map((schema) => {
      const form = toStrictSchema(schema);
      return form.ok ? 'strict' : form.reason;
    });
    expect(reasons).toEqual([
      expect.stringMatching(/root is a union/u),
      expect.stringMatching(/input\.args is an open object/u),
      expect.stringMatching(/input\.calls is an open object/u),
      expect.stringMatching(/input\.when accepts any value/u),
      expect.stringMatching(/`oneOf`/u),
      expect.stringMatching(/anyOf\[0\] holds optional properties/u),
    ]);
  });

  it("decides toolweave's own tools: run_js, get_observation and a composite strict; compose and run_pipeline not", () => {
    const setup = hostSetup();
    const decided = Object.fromEntries([setup.runJs, setup.getObservation, setup.greetUser, setup.compose, setup.runPipeline].map((t) => {
      const form = toStrictSchema(t.inputSchema);
      return [t.name, form.ok ? 'strict' : form.reason];
    }));
    expect(decided).toEqual({
      run_js: 'strict',
      get_observation: 'strict',
      greet_user: 'strict',
      compose: expect.stringMatching(/input\.args is an open object/u),
      run_pipeline: expect.stringMatching(/input\.steps\[\]\.args is an open object/u),
    });
  });

  it('stays bounded on a deep hostile value', () => {
    const form = toStrictSchema({ type: 'object', properties: { child: { $ref: '#' } } });
    if (!form.ok) throw new Error(form.reason);
    let deep: Record<string, unknown> = { child: null };
    for (let i = 0; i < 10_000; i++) deep = { child: deep };
    expect(() => form.restore(deep)).not.toThrow();
  });

  it('restore reads own fields only: inherited functions are never copied in', () => {
    const form = toStrictSchema({ type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'string' }, nested: { type: 'object', properties: { valueOf: { type: 'number' } } } } });
    if (!form.ok) throw new Error(form.reason);
    const restored = form.restore({ nested: {} }) as Record<string, unknown>;
    expect(Object.keys(restored)).toEqual(['nested']);
    expect(Object.hasOwn(restored, 'toString')).toBe(false);
    expect(Object.keys(restored.nested as object)).toEqual([]);
    expect(form.restore({ toString: null, constructor: 'c', nested: { valueOf: null } })).toEqual({ constructor: 'c', nested: {} });
  });

  it('a property named __proto__ stays a property: in the strict schema, and in the restored arguments, with nothing polluted', () => {
    const schema = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "object", "properties": {"polluted": {"type": "boolean"}}}, "x": {"type": "string"}}}');
    const form = toStrictSchema(schema);
    if (!form.ok) throw new Error(form.reason);
    const properties = form.schema.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(form.schema.required).toEqual(['__proto__', 'x']);
    const restored = form.restore(JSON.parse('{"__proto__": {"polluted": true}, "x": null}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
    expect(Object.keys(restored)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(restored, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(form.restore(JSON.parse('{"__proto__": null, "x": "a"}'))).toEqual({ x: 'a' });
  });
});
