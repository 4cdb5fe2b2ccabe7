/**
 * The promise of configuration-time checks: a spec the builder accepts without errors never fails
 * at run time with step_missing, args_invalid or spec_invalid, on a registry that has not changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, SpecError } from '../../src/builder.js';
import type { ComposableToolSpec, SpecNode } from '../../src/spec/types.js';
import type { ITool, JSONSchemaObject } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const SCHEMAS: JSONSchemaObject[] = [
  { type: 'object' },
  { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  { type: 'object', properties: { s: { type: 'string' } }, additionalProperties: false },
];
const ARGS = [{}, { n: 1 }, { n: 'x' }, { s: 'a' }, { s: 'a', n: 2 }];
const NAMES = ['t0', 't1', 't2', 't3', 't4'];
const CALLED = [...NAMES, 'ghost', 't_0'];

const toolArb = fc.record({
  schema: fc.integer({ min: 0, max: SCHEMAS.length - 1 }),
  effects: fc.constantFrom<boolean | undefined>(false, true, undefined),
  listed: fc.boolean(),
});

const leafArb: fc.Arbitrary<SpecNode> = fc.record({ tool: fc.constantFrom(...CALLED), args: fc.constantFrom(...ARGS) }).map(({ tool: t, args }) => ({ tool: t, inputMapping: args }));
const nodeArb: fc.Arbitrary<SpecNode> = fc.oneof(
  { weight: 3, arbitrary: leafArb },
  { weight: 1, arbitrary: fc.tuple(leafArb, leafArb).map(([a, b]) => ({ combinator: 'gather' as const, calls: { a, b } })) },
  { weight: 1, arbitrary: leafArb.map((template) => ({ combinator: 'for_each' as const, items: '$input.items', template })) },
  { weight: 1, arbitrary: fc.tuple(leafArb, leafArb).map(([a, b]) => ({ combinator: 'scope' as const, do: { combinator: 'pipe' as const, stages: [a, b] } })) },
);
const specArb: fc.Arbitrary<ComposableToolSpec> = fc.array(nodeArb, { minLength: 1, maxLength: 4 }).map((steps) => ({ steps }));

const NEVER_AFTER_VALIDATION = ['step_missing', 'args_invalid', 'spec_invalid'];

describe('a spec the builder accepts', () => {
  it('never fails at run time with step_missing, args_invalid or spec_invalid on an unchanged registry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(toolArb, { minLength: 5, maxLength: 5 }), specArb, async (tools, spec) => {
        const made: ITool[] = tools.map((t, i) =>
          tool(NAMES[i], (a) => a, { inputSchema: SCHEMAS[t.schema], ...(t.effects === undefined ? {} : { hasSideEffects: t.effects }) }),
        );
        const reg = registry(...made);
        const builder = new ComposableToolBuilder(reg.gate(), { validateArgs: true });
        builder.bind({ sideEffectingTools: NAMES.filter((_, i) => tools[i].listed) });
        const verdict = builder.validate(spec);
        let built: ITool | undefined;
        try {
          built = builder.build('c', 'c', { type: 'object' }, spec);
        } catch (error) {
          expect(error).toBeInstanceOf(SpecError);
        }
        // validate and build agree.
        expect(built !== undefined).toBe(verdict.valid);
        if (!built) return;
        const result = await built.execute({ items: [1, 2] }, {});
        const text = JSON.stringify(result);
        for (const code of NEVER_AFTER_VALIDATION) expect(text, text).not.toContain(`"${code}"`);
      }),
      { numRuns: 300 },
    );
  });
});
