/**
 * A `$input` reference to a field the composite's inputSchema does not declare reads `undefined`
 * at every run: `validate` (given the schema) and `build` report it with the closest declared
 * names, as a warning in lenient mode and an error in strict mode.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, SpecError } from '../../src/builder.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import { registry, tool } from '../helpers/tools.js';

const inputSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, user: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } }, tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } } },
  required: ['id'],
} as const;

function setup(strictMode = false) {
  const lookup = tool('lookup', (a) => ({ name: `user-${String(a.id)}` }));
  const warnings: string[] = [];
  const builder = new ComposableToolBuilder(registry(lookup).gate(), { strictMode, onWarning: (w) => warnings.push(w) });
  return { builder, warnings, lookup };
}

const misread: ComposableToolSpec = { steps: [{ name: 'user', tool: 'lookup', inputMapping: { id: '$input.idd' } }] };
const idd = 'step "user": "$input.idd" reads "idd", which the inputSchema does not declare (did you mean id?)';

describe('a $input field the inputSchema does not declare', () => {
  it('lenient: validate warns with the closest name, build hands the warning to onWarning and the run reads undefined', async () => {
    const { builder, warnings, lookup } = setup();
    const expected = `${idd}; it reads undefined when the step runs (strict mode refuses it)`;
    expect(builder.validate(misread, { inputSchema })).toEqual({ valid: true, warnings: [expected] });
    const built = builder.build('c', 'c', inputSchema, misread);
    expect(warnings).toEqual([expected]);
    expect(await built.execute({ id: '7' }, {})).toMatchObject({ success: true, output: { name: 'user-undefined' } });
    expect(lookup.calls).toEqual([{ id: undefined }]);
  });

  it('strict: validate and build refuse it', () => {
    const { builder } = setup(true);
    expect(builder.validate(misread, { inputSchema })).toEqual({ valid: false, errors: [idd] });
    expect(() => builder.build('c', 'c', inputSchema, misread)).toThrow(SpecError);
    try {
      builder.build('c', 'c', inputSchema, misread);
    } catch (error) {
      expect((error as SpecError).errors).toEqual([idd]);
    }
  });

  it('is found in nested fields, templates, array items, for_each items, when and the output mapping', () => {
    const { builder } = setup(true);
    const spec: ComposableToolSpec = {
      steps: [
        { name: 'a', tool: 'lookup', inputMapping: { id: '$input.user.nmae', note: 'for ${$input.user.emial}' }, when: '$input.iid' },
        { combinator: 'for_each', items: '$input.tagz', template: { tool: 'lookup', inputMapping: { id: '$input.tags[0].lable' } } },
      ],
      output: { first: '$input.tags[0].label', wrong: '$input.user.nam' },
    };
    expect(builder.validate(spec, { inputSchema }).errors).toEqual([
      'step "a": "$input.user.nmae" reads "user.nmae", which the inputSchema does not declare (did you mean name?)',
      'step "a": "$input.user.emial" (in "for ${$input.user.emial}") reads "user.emial", which the inputSchema does not declare (did you mean email?)',
      'step "a": "$input.iid" reads "iid", which the inputSchema does not declare (did you mean id?)',
      'step "steps[1]": "$input.tagz" reads "tagz", which the inputSchema does not declare (did you mean tags?)',
      'step "steps[1].template": "$input.tags[0].lable" reads "tags[0].lable", which the inputSchema does not declare (did you mean label?)',
      'step "output": "$input.user.nam" reads "user.nam", which the inputSchema does not declare (did you mean name?)',
    ]);
  });

  it('names the declared fields when none is close', () => {
    const { builder } = setup();
    expect(builder.validate({ steps: [{ tool: 'lookup', inputMapping: { id: '$input.zzzzzz' } }] }, { inputSchema }).warnings).toEqual([
      'step "steps[0]": "$input.zzzzzz" reads "zzzzzz", which the inputSchema does not declare (it declares id, user, tags); it reads undefined when the step runs (strict mode refuses it)',
    ]);
  });

  it('is not reported where the schema leaves fields open or says nothing of them, nor without a schema', () => {
    const { builder } = setup(true);
    const spec: ComposableToolSpec = { steps: [{ tool: 'lookup', inputMapping: { id: '$input.anything.deeper', all: '$input', many: '$input..id' } }] };
    for (const open of [
      { type: 'object' },
      { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: true },
      { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: { type: 'string' } },
      { type: 'object', properties: { id: { type: 'string' } }, patternProperties: { '^a': {} } },
      { type: 'object', properties: { id: { type: 'string' } }, anyOf: [{ $ref: '#/definitions/x' }], definitions: { x: { properties: { other: {} } } } },
      { type: 'object', properties: { anything: { type: 'object' } } },
    ]) {
      expect(builder.validate(spec, { inputSchema: open }), JSON.stringify(open)).toEqual({ valid: true });
      expect(() => builder.build('c', 'c', open, spec)).not.toThrow();
    }
    expect(builder.validate(spec)).toEqual({ valid: true });
  });

  it('counts a field required, or declared under a condition (if, then, else, dependentSchemas, dependencies), as declared', () => {
    const { builder } = setup(true);
    const conditional = {
      type: 'object',
      properties: { kind: { type: 'string' } },
      required: ['token'],
      if: { properties: { kind: { const: 'file' } } },
      then: { properties: { path: { type: 'string' } } },
      else: { properties: { url: { type: 'string' } } },
      dependentSchemas: { path: { properties: { encoding: {} } } },
      dependencies: { url: ['headers'] },
    };
    const spec: ComposableToolSpec = { steps: [{ tool: 'lookup', inputMapping: { a: '$input.path', b: '$input.url', c: '$input.encoding', d: '$input.headers', e: '$input.token.value', f: '$input.knd' } }] };
    expect(builder.validate(spec, { inputSchema: conditional }).errors).toEqual([
      'step "steps[0]": "$input.knd" reads "knd", which the inputSchema does not declare (did you mean kind?)',
    ]);
    expect(builder.validate(spec, { inputSchema: { ...conditional, unevaluatedProperties: { type: 'string' } } })).toEqual({ valid: true });
  });

  it('counts a field declared in any branch of allOf, anyOf or oneOf as declared', () => {
    const { builder } = setup(true);
    const branched = { type: 'object', allOf: [{ properties: { id: { type: 'string' } } }], oneOf: [{ properties: { a: {} } }, { properties: { b: {} } }] };
    const spec: ComposableToolSpec = { steps: [{ tool: 'lookup', inputMapping: { id: '$input.id', a: '$input.a', b: '$input.b', c: '$input.c' } }] };
    expect(builder.validate(spec, { inputSchema: branched }).errors).toEqual([
      'step "steps[0]": "$input.c" reads "c", which the inputSchema does not declare (did you mean a, b, id?)',
    ]);
  });
});
