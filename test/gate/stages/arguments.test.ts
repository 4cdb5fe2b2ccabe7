import { describe, expect, it } from 'vitest';
import { argsCheckOf, checkArguments } from '../../../src/gate/stages/arguments.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

describe('stage: arguments', () => {
  const greet = tool('greet', (a) => `hi ${a.name}`, { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
  const gate = registry(greet).gate();

  it('checks nothing for a door that does not check arguments', () => {
    expect(checkArguments(callOf({ gate, tool: greet, args: { name: 1 } }))).toBeUndefined();
  });

  it("refuses arguments that do not match the tool's schema, naming the field", () => {
    const refusal = checkArguments(callOf({ gate, tool: greet, args: { name: 1 }, door: { validateArgs: true } }));
    expect(refusal?.details).toMatchObject({ code: 'args_invalid', tool: 'greet', field: 'name' });
    expect(checkArguments(callOf({ gate, tool: greet, args: { name: 'Ann' }, door: { validateArgs: true } }))).toBeUndefined();
  });

  it('refuses an own __proto__ field, which the schema never sees', () => {
    const args = JSON.parse('{"name":"Ann","__proto__":{"admin":true}}') as Record<string, unknown>;
    expect(checkArguments(callOf({ gate, tool: greet, args, door: { validateArgs: true } }))?.details).toMatchObject({ code: 'args_invalid', field: '__proto__' });
  });

  it('compiles no check for a schema that accepts every object, and still refuses __proto__ and what is not an object', () => {
    const open = [{ type: 'object' }, { type: 'object', properties: {}, additionalProperties: true, required: [], description: 'anything' }, {}];
    for (const inputSchema of open) expect(argsCheckOf(tool('open', () => 'ok', { inputSchema: inputSchema as never }))).toBeNull();
    const closed = [{ type: 'object', required: ['a'] }, { type: 'object', additionalProperties: false }, { type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', maxProperties: 1 }];
    for (const inputSchema of closed) expect(argsCheckOf(tool('closed', () => 'ok', { inputSchema: inputSchema as never }))).toBeTypeOf('function');
    const anything = tool('anything', () => 'ok', { hasSideEffects: false, inputSchema: { type: 'object' } });
    const door = { validateArgs: true };
    expect(checkArguments(callOf({ gate, tool: anything, args: { any: [1, { deep: true }] }, door }))).toBeUndefined();
    const args = JSON.parse('{"opts":{"__proto__":{"admin":true}}}') as Record<string, unknown>;
    expect(checkArguments(callOf({ gate, tool: anything, args, door }))?.details).toMatchObject({ code: 'args_invalid', field: 'opts.__proto__' });
    expect(checkArguments(callOf({ gate, tool: anything, args: [1] as never, door }))?.details).toMatchObject({ code: 'input_invalid' });
  });

  it('refuses a mapping that resolved to something that is not an object', () => {
    const call = callOf({ gate, tool: greet, args: [1] as never });
    call.site = { slot: 0, mayBuildNonObject: true, checkedTool: undefined, argsCheck: null };
    expect(checkArguments(call)).toMatchObject({ details: { code: 'input_invalid' }, error: 'Step "step": its arguments resolved to an array, not an object.' });
  });

  it("keeps a step's check for the tool instance it checked, and makes it again for another", () => {
    const call = callOf({ gate, tool: greet, args: { name: 'Ann' }, door: { validateArgs: true } });
    const site = { slot: 0, mayBuildNonObject: false, checkedTool: undefined as never, argsCheck: null as never };
    call.site = site;
    checkArguments(call);
    expect(site.checkedTool).toBe(greet);
    const check = site.argsCheck;
    checkArguments(call);
    expect(site.argsCheck).toBe(check);
    const other = tool('greet', () => 'x', { hasSideEffects: false, inputSchema: { type: 'object', required: ['id'] } });
    call.tool = other;
    expect(checkArguments(call)?.details?.code).toBe('args_invalid');
    expect(site.checkedTool).toBe(other);
  });
});
