/**
 * Combinator overhead: for_each over 10,000 trivial items at concurrency 16 against a
 * hand-written bounded-concurrency loop over the same tool, and a gather of 100 calls against
 * Promise.all over the same tools. Target: within 1.5x of the hand-written versions.
 * Also prints the size of the run_pipeline and compose definitions a model is sent every turn.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { ComposableToolBuilder, createComposeTool, createRunPipelineTool, createStepGate, type ITool } from '../dist/index.js';
import { compare, printComparisons } from './measure.js';

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
// A for_each of 10,000 items is more than the default budget of 5,000 calls: this host raises it.
const gate = createStepGate({ resolve: (name) => registry.get(name), budget: { calls: 20_000 } });
const builder = new ComposableToolBuilder(gate);

const ITEMS = Array.from({ length: 10_000 }, (_, i) => i);
const CONCURRENCY = 16;
const forEachTool = builder.build('double_all', 'doubles every item', { type: 'object' }, {
  steps: [{ combinator: 'for_each', items: '$input.items', concurrency: CONCURRENCY, maxItems: ITEMS.length, template: { tool: 'double', inputMapping: { n: '$item' } } }],
});

async function handForEach(): Promise<unknown[]> {
  const out = new Array<unknown>(ITEMS.length);
  let next = 0;
  const worker = async () => {
    while (next < ITEMS.length) {
      const i = next++;
      const result = await double.execute({ n: ITEMS[i] }, {});
      if (!result.success) throw new Error(result.error);
      out[i] = result.output;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}
async function engineForEach(): Promise<unknown> {
  const result = await forEachTool.execute({ items: ITEMS }, {});
  if (!result.success) throw new Error(result.error);
  return result.output;
}

const gatherTool = builder.build('gather_all', 'a hundred calls at once', { type: 'object' }, {
  steps: [{ combinator: 'gather', calls: Object.fromEntries(callers.map((t, i) => [t.name, { tool: t.name, inputMapping: { n: i } }])) }],
});
async function handGather(): Promise<Record<string, unknown>> {
  const results = await Promise.all(callers.map((t, i) => t.execute({ n: i }, {})));
  const out: Record<string, unknown> = {};
  results.forEach((r, i) => {
    if (!r.success) throw new Error(r.error);
    out[callers[i].name] = r.output;
  });
  return out;
}
async function engineGather(): Promise<unknown> {
  const result = await gatherTool.execute({}, {});
  if (!result.success) throw new Error(result.error);
  return result.output;
}

for (const [a, b] of [[await handForEach(), await engineForEach()], [await handGather(), await engineGather()]]) {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the engine and the hand-written version disagree');
}

const rows = [
  await compare(`for_each, ${ITEMS.length} items, concurrency ${CONCURRENCY}`, handForEach, engineForEach, { iterations: 3, rounds: 11 }),
  await compare('gather, 100 calls', handGather, engineGather, { iterations: 300, rounds: 11 }),
];
printComparisons('Combinators against hand-written code over the same tools', rows, 1.5);

console.log('\nTool definitions a model is sent on every turn (o200k_base over name, description, inputSchema)');
console.log('| tool | tokens | bytes | target |');
console.log('|---|---|---|---|');
for (const [tool, target] of [[createRunPipelineTool(gate), 250], [createComposeTool(gate), 500]] as const) {
  const json = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  console.log(`| ${tool.name} | ${encode(json).length} | ${Buffer.byteLength(json)} | <= ${target} |`);
}
