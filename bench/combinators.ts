/**
 * Combinator overhead: for_each over 10,000 trivial items at concurrency 16 against a
 * hand-written bounded-concurrency loop over the same tool, and a gather of 100 calls against
 * Promise.all over the same tools. Target: within 1.5x of the hand-written versions. Each is also
 * measured against the same rules written inline (bench/floor.ts): the least an engine that
 * keeps them can add. Each engine case runs without and with a registry version
 * (`StepGateOptions.version`), which lets a run reuse the tools its check resolved.
 * With the builder's default options (argument checks on), the tool's schema accepts every object:
 * the checks should add nothing (targets: for_each 1.5x, gather 2.0x). The same two workloads
 * then run realistic tools (bench/realistic-tools.ts: a payments schema per tool) with default
 * options, against hand-written code that runs the same ajv checks, and against the bare
 * hand-written code for reference.
 * Also prints the size of the run_pipeline and compose definitions a model is sent every turn.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { createComposeTool, createRunPipelineTool } from '../dist/index.js';
import { CONCURRENCY, forEachCase, gate, gatherCase } from './combinator-cases.js';
import { compare, printComparisons } from './measure.js';
import { realisticForEach, realisticGather } from './realistic-tools.js';

const ITEMS = 10_000;
const { hand: handForEach, engine: engineForEach, versioned: versionedForEach, defaults: defaultsForEach, inline: inlineForEach } = forEachCase(ITEMS);
const { hand: handGather, engine: engineGather, versioned: versionedGather, defaults: defaultsGather, inline: inlineGather } = gatherCase();
const realForEach = realisticForEach(ITEMS);
const realGather = realisticGather();

for (const [hand, ...others] of [
  [handForEach, engineForEach, versionedForEach, defaultsForEach, inlineForEach],
  [handGather, engineGather, versionedGather, defaultsGather, inlineGather],
  [realForEach.checked, realForEach.bare, realForEach.engine],
  [realGather.checked, realGather.bare, realGather.engine],
]) {
  const expected = JSON.stringify(await hand());
  for (const other of others) if (JSON.stringify(await other()) !== expected) throw new Error('the engine or the inline reference disagrees with the hand-written version');
}

const forEachName = `for_each, ${ITEMS} items, concurrency ${CONCURRENCY}`;
const rows = [
  await compare(forEachName, handForEach, engineForEach, { iterations: 3, rounds: 11 }),
  await compare(`${forEachName}, registry version`, handForEach, versionedForEach, { iterations: 3, rounds: 11 }),
  await compare(`${forEachName}, argument checks (the default)`, handForEach, defaultsForEach, { iterations: 3, rounds: 11 }),
  await compare(`${forEachName}, reference: the same rules written inline`, handForEach, inlineForEach, { iterations: 3, rounds: 11 }),
  await compare('gather, 100 calls', handGather, engineGather, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 calls, registry version', handGather, versionedGather, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 calls, argument checks (the default)', handGather, defaultsGather, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 calls, reference: the same rules written inline', handGather, inlineGather, { iterations: 300, rounds: 11 }),
];
printComparisons('Combinators against hand-written code over the same tools', rows, 1.5);

const realForEachName = `for_each, ${ITEMS} payments, concurrency ${CONCURRENCY}, realistic schemas`;
printComparisons('for_each with a realistic schema per tool, default options (target <= 1.5x the hand-written workers with the same ajv checks)', [
  await compare(`${realForEachName}, against hand-written + the same ajv checks`, realForEach.checked, realForEach.engine, { iterations: 3, rounds: 11 }),
  await compare(`${realForEachName}, against hand-written unchecked (reference)`, realForEach.bare, realForEach.engine, { iterations: 3, rounds: 11 }),
], 1.5);
printComparisons('gather with a realistic schema per tool, default options (target <= 2.0x Promise.all with the same ajv checks)', [
  await compare('gather, 100 payments, realistic schemas, against Promise.all + the same ajv checks', realGather.checked, realGather.engine, { iterations: 300, rounds: 11 }),
  await compare('gather, 100 payments, realistic schemas, against Promise.all unchecked (reference)', realGather.bare, realGather.engine, { iterations: 300, rounds: 11 }),
], 2.0);

console.log('\nTool definitions a model is sent on every turn (o200k_base over name, description, inputSchema)');
console.log('| tool | tokens | bytes | target |');
console.log('|---|---|---|---|');
for (const [tool, target] of [[createRunPipelineTool(gate), 250], [createComposeTool(gate), 500]] as const) {
  const json = JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  console.log(`| ${tool.name} | ${encode(json).length} | ${Buffer.byteLength(json)} | <= ${target} |`);
}
