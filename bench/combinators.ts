/**
 * Combinator overhead: for_each over 10,000 trivial items at concurrency 16 against a
 * hand-written bounded-concurrency loop over the same tool, and a gather of 100 calls against
 * Promise.all over the same tools. Target: within 1.5x of the hand-written versions. Each is also
 * measured against the same rules written inline (bench/floor.ts): the least an engine that
 * keeps them can add. Each engine case runs without and with a registry version
 * (`StepGateOptions.version`), which lets a run reuse the tools its check resolved.
 * Also prints the size of the run_pipeline and compose definitions a model is sent every turn.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { createComposeTool, createRunPipelineTool } from '../dist/index.js';
import { CONCURRENCY, forEachCase, gate, gatherCase } from './combinator-cases.js';
import { compare, printComparisons } from './measure.js';

const ITEMS = 10_000;
const { hand: handForEach, engine: engineForEach, versioned: versionedForEach, inline: inlineForEach } = forEachCase(ITEMS);
const { hand: handGather, engine: engineGather, versioned: versionedGather, inline: inlineGather } = gatherCase();

for (const [hand, ...others] of [
  [handForEach, engineForEach, versionedForEach, inlineForEach],
  [handGather, engineGather, versionedGather, inlineGather],
]) {
  const expected = JSON.stringify(await hand());
  for (const other of others) if (JSON.stringify(await other()) !== expected) throw new Error('the engine or the inline reference disagrees with the hand-written version');
}

const forEachName = `for_each, ${ITEMS} items, concurrency ${CONCURRENCY}`;
const rows = [
  await compare(forEachName, handForEach, engineForEach, { iterations: 3, rounds: 11 }),
  await compare(`${forEachName}, registry version`, handForEach, versionedForEach, { iterations: 3, rounds: 11 }),
  await compare(`${forEachName}, reference: the same rules written inline`, handForEach, inlineForEach, { iterations: 3, rounds: 11 }),
  await compare('gather, 100 calls', handGather, engineGather, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 calls, registry version', handGather, versionedGather, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 calls, reference: the same rules written inline', handGather, inlineGather, { iterations: 300, rounds: 11 }),
];
printComparisons('Combinators against hand-written code over the same tools', rows, 1.5);

console.log('\nTool definitions a model is sent on every turn (o200k_base over name, description, inputSchema)');
console.log('| tool | tokens | bytes | target |');
console.log('|---|---|---|---|');
for (const [tool, target] of [[createRunPipelineTool(gate), 250], [createComposeTool(gate), 500]] as const) {
  const json = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  console.log(`| ${tool.name} | ${encode(json).length} | ${Buffer.byteLength(json)} | <= ${target} |`);
}
