import { describe, expect, it } from 'vitest';
import { checkArguments } from '../../src/gate/stages/arguments.js';
import { hasProtoField, protoSearchFor } from '../../src/gate/proto-fields.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';
import { callOf } from './stages/record.js';

/** An own `__proto__` field holding `{ admin: true }`, as JSON from a model or a tool makes one. */
const proto = () => JSON.parse('{"__proto__": {"admin": true}}') as Record<string, unknown>;
/** `value` with an own `__proto__` field added. */
const withProto = (value: Record<string, unknown>) => Object.assign(proto(), value);

const closedCustomer = { type: 'object', properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, additionalProperties: false };
const payment = {
  type: 'object',
  properties: { amount: { type: 'integer' }, currency: { enum: ['USD', 'EUR'] }, customer: closedCustomer, meta: { type: 'object' }, list: { type: 'array' } },
  required: ['amount'],
  additionalProperties: false,
};

describe('the __proto__ fields that count', () => {
  it('counts an own enumerable one, which a copy by assignment carries, and neither an inherited nor a hidden one, which it does not', () => {
    expect(hasProtoField({ a: { b: [proto()] } })).toBe(true);
    const hidden = Object.defineProperty({ a: 1 }, '__proto__', { value: { admin: true }, enumerable: false });
    expect(hasProtoField({ a: hidden })).toBe(false);
    expect(Object.getPrototypeOf({ ...hidden })).toBe(Object.prototype);
    const inherited = Object.create(Object.defineProperty({}, '__proto__', { value: { admin: true }, enumerable: true })) as Record<string, unknown>;
    inherited.b = 2;
    expect(hasProtoField({ a: inherited })).toBe(false);
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(inherited)) copy[key] = inherited[key];
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('the __proto__ search a schema leaves', () => {
  it('needs none where every object the schema accepts is closed and every other value a primitive', () => {
    expect(protoSearchFor({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: ['integer', 'null'] } }, additionalProperties: false } }, additionalProperties: false })).toBeNull();
    expect(protoSearchFor({ type: 'object', properties: { e: { enum: ['x', 1, null] }, k: { const: 'y' }, never: false }, additionalProperties: false })).toBeNull();
  });

  it('searches where a schema leaves room: an open object, an array, a keyword it does not read', () => {
    for (const schema of [
      { type: 'object' },
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
      { type: 'object', properties: { a: { type: 'object' } }, additionalProperties: false },
      { type: 'object', properties: { a: true }, additionalProperties: false },
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'object' } },
      { type: 'object', patternProperties: { '^_': {} }, additionalProperties: false },
      { type: 'object', properties: { a: { allOf: [{ type: 'object' }] } }, additionalProperties: false },
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, additionalProperties: false, $defs: { x: { type: 'object' } } },
      { type: 'object', properties: { a: { enum: [{ x: 1 }] } }, additionalProperties: false },
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"}},"additionalProperties":false}') as object,
    ]) expect(protoSearchFor(schema), JSON.stringify(schema)).not.toBeNull();
  });

  describe('arguments that pass the schema are refused wherever it leaves room for the field', () => {
    const pay = tool('pay', () => 'ok', { hasSideEffects: false, inputSchema: payment as never });
    const gate = registry(pay).gate();
    const check = (args: Record<string, unknown>) => checkArguments(callOf({ gate, tool: pay, args, door: { validateArgs: true } }))?.details;
    const base = () => ({ amount: 5, currency: 'USD', customer: { id: 'c1', tags: ['a'] }, meta: { note: 'x' }, list: [1, { a: 1 }] });

    it('lets clean arguments through', () => {
      expect(check(base())).toBeUndefined();
    });

    it.each([
      ['at the top of a closed object', () => withProto(base()), '__proto__'],
      ['in a closed object below', () => ({ ...base(), customer: withProto({ id: 'c1' }) }), 'customer.__proto__'],
      ['in an open object below', () => ({ ...base(), meta: { deeper: proto() } }), 'meta.deeper.__proto__'],
      ['on an open object itself', () => ({ ...base(), meta: proto() }), 'meta.__proto__'],
      ['in an array of a closed object', () => ({ ...base(), customer: { id: 'c1', tags: Object.assign(['a'], { extra: proto() }) } }), 'customer.tags.extra.__proto__'],
      ['in an item of an array', () => ({ ...base(), list: [1, proto()] }), 'list.1.__proto__'],
      ['on an array itself', () => ({ ...base(), list: Object.defineProperty([1], '__proto__', { value: {}, enumerable: true }) }), 'list.__proto__'],
    ])('%s', (_, args, field) => {
      expect(check(args())).toMatchObject({ code: 'args_invalid', field });
    });
  });
});

describe('arguments a step built from its mapping', () => {
  const seen: unknown[] = [];
  const open = tool('open', (args) => (seen.push(args), 'ok'), { hasSideEffects: false, inputSchema: { type: 'object' } });
  const named = tool('named', (args) => (seen.push(args), 'ok'), { hasSideEffects: false, inputSchema: { type: 'object', properties: { opts: { type: 'object' } } } });
  const gate = registry(open, named).gate();
  const composite = (toolName: string, inputMapping: Record<string, unknown>) =>
    new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, { steps: [{ tool: toolName, inputMapping }] });

  it.each(['open', 'named'])('are refused when a value the mapping read holds the field, at any depth (%s schema)', async (toolName) => {
    seen.length = 0;
    const c = composite(toolName, { opts: '$input.opts', n: 1 });
    expect((await c.execute({ opts: { ok: [1] } }, {})).success).toBe(true);
    for (const [opts, field] of [
      [proto(), 'opts.__proto__'],
      [{ deep: [{ x: 1 }, proto()] }, 'opts.deep.1.__proto__'],
    ] as const) {
      const result = await c.execute({ opts }, {});
      expect(result.details).toMatchObject({ code: 'args_invalid', field });
    }
    expect(seen).toHaveLength(1);
  });

  it('are refused when the mapping itself writes a __proto__ key', async () => {
    seen.length = 0;
    const result = await composite('open', JSON.parse('{"__proto__": "$input.x", "n": 1}') as Record<string, unknown>).execute({ x: 1 }, {});
    expect(result.details).toMatchObject({ code: 'args_invalid', field: '__proto__' });
    expect(seen).toHaveLength(0);
  });
});
