/**
 * The combinator workloads every combinator measurement runs (bench/combinators.ts in wall time,
 * bench/instructions.ts in instructions): a for_each over trivial items at concurrency 16 against
 * a hand-written bounded-concurrency loop over the same tool, and a gather of 100 calls against
 * Promise.all over the same tools; each also against the same rules written inline
 * (bench/floor.ts), the least an engine keeping them can add.
 */
import { ComposableToolBuilder, createStepGate, type ITool, type StepGate, type ToolExecutionResult } from '../dist/index.js';
import { inlineForEach, inlineGather } from './floor.js';

/** The for_each's concurrency, in the engine and in the hand-written loop. */
export const CONCURRENCY = 16;

const double: ITool = {
  id: 'double',
  name: 'double',
  displayName: 'double',
  description: 'doubles n',
  inputSchema: { type: 'object' },
  hasSideEffects: false,
  execute: async (args) => ({ success: true, output: (args.n as number) * 2 }),
};
const callers: ITool[] = Array.from({ length: 100 }, (_, i) => ({ ...double, id: `d${i}`, name: `d${i}` }));
const registry = new Map<string, ITool>([[double.name, double], ...callers.map((t) => [t.name, t] as const)]);

const resolve = (name: string) => registry.get(name);
/** The gate the combinators run through; its budget covers a for_each of 10,000 items (the default is 5,000 calls). */
const budget = { calls: 20_000 };
export const gate: StepGate = createStepGate({ resolve, budget });
/**
 * The same gate with a registry version (`StepGateOptions.version`): the registry here never
 * changes, so its version never does, and a run reuses the tools its check resolved.
 */
const versionedGate: StepGate = createStepGate({ resolve, budget, version: () => 1 });
const anyObject = { type: 'object' } as const;
// Without argument checks: these rows were measured before the checks became the builder's
// default, and stay comparable so; bench/chain.ts has a row that measures what the checks add.
const builder = new ComposableToolBuilder(gate, { validateArgs: false });
const versionedBuilder = new ComposableToolBuilder(versionedGate, { validateArgs: false });
/** The builder's default options (argument checks on): the tool's schema accepts every object, so they should cost nothing. */
const defaultBuilder = new ComposableToolBuilder(gate);

/** The output of a run (the engine's or an inline reference's), or a throw. */
async function outputOf(run: Promise<ToolExecutionResult>): Promise<unknown> {
  const result = await run;
  if (!result.success) throw new Error(result.error);
  return result.output;
}

/** A for_each over `count` items: hand-written, through the engine (without and with a registry version, and with default options), and the rules written inline. */
export function forEachCase(count: number) {
  const items = Array.from({ length: count }, (_, i) => i);
  const spec = {
    steps: [{ combinator: 'for_each' as const, items: '$input.items', concurrency: CONCURRENCY, maxItems: count, template: { tool: 'double', inputMapping: { n: '$item' } } }],
  };
  const tool = builder.build('double_all', 'doubles every item', anyObject, spec);
  const versioned = versionedBuilder.build('double_all', 'doubles every item', anyObject, spec);
  const defaults = defaultBuilder.build('double_all', 'doubles every item', anyObject, spec);
  const inline = inlineForEach(double.name, { resolve }, anyObject, CONCURRENCY, count);
  return {
    async hand(): Promise<unknown[]> {
      const out = new Array<unknown>(items.length);
      let next = 0;
      const worker = async () => {
        while (next < items.length) {
          const i = next++;
          const result = await double.execute({ n: items[i] }, {});
          if (!result.success) throw new Error(result.error);
          out[i] = result.output;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return out;
    },
    engine: (): Promise<unknown> => outputOf(tool.execute({ items }, {})),
    /** Through the engine, with a registry version. */
    versioned: (): Promise<unknown> => outputOf(versioned.execute({ items }, {})),
    /** Through the engine, built with the builder's default options (argument checks on). */
    defaults: (): Promise<unknown> => outputOf(defaults.execute({ items }, {})),
    /** The same rules written inline (bench/floor.ts). */
    inline: (): Promise<unknown> => outputOf(inline({ items }, {})),
  };
}

/** A gather of 100 calls, one per tool: hand-written, through the engine (without and with a registry version, and with default options), and the rules written inline. */
export function gatherCase() {
  const spec = {
    steps: [{ combinator: 'gather' as const, calls: Object.fromEntries(callers.map((t, i) => [t.name, { tool: t.name, inputMapping: { n: i } }])) }],
  };
  const tool = builder.build('gather_all', 'a hundred calls at once', anyObject, spec);
  const versioned = versionedBuilder.build('gather_all', 'a hundred calls at once', anyObject, spec);
  const defaults = defaultBuilder.build('gather_all', 'a hundred calls at once', anyObject, spec);
  const inline = inlineGather(callers.map((t) => t.name), { resolve }, anyObject);
  return {
    async hand(): Promise<Record<string, unknown>> {
      const results = await Promise.all(callers.map((t, i) => t.execute({ n: i }, {})));
      const out: Record<string, unknown> = {};
      results.forEach((r, i) => {
        if (!r.success) throw new Error(r.error);
        out[callers[i].name] = r.output;
      });
      return out;
    },
    engine: (): Promise<unknown> => outputOf(tool.execute({}, {})),
    /** Through the engine, with a registry version. */
    versioned: (): Promise<unknown> => outputOf(versioned.execute({}, {})),
    /** Through the engine, built with the builder's default options (argument checks on). */
    defaults: (): Promise<unknown> => outputOf(defaults.execute({}, {})),
    /** The same rules written inline (bench/floor.ts). */
    inline: (): Promise<unknown> => outputOf(inline({}, {})),
  };
}
