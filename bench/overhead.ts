/**
 * The engine's overhead in wall time: chains of trivial async tools run as one composite through
 * the full gate (budget, watchdog, trace, effects, the registry consulted at every run), against a
 * hand-written loop and against the same rules written inline (the chain is bench/chain.ts).
 * Wall time on a shared machine is noisy; bench/instructions.ts counts instructions instead.
 * Target: the 20-step chain within 1.5x of the hand-written loop, and the cost per step flat from
 * 20 to 2,000 steps. The 20-step chain also runs with argument checks, the builder's default since
 * they were added, against the same loop and against the loop that runs the same ajv checks: the
 * other rows go without, as they were measured before.
 * One more follows labels (`flows`), to show what information-flow control adds.
 *
 * Then the same 20-step chain with realistic tools (bench/realistic-tools.ts): a payments schema
 * per tool, the engine with default options, against hand-written code that runs the same ajv
 * checks (target 2.7x), and against the bare loop for reference.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { StepGate } from '../dist/index.js';
import { chainGate, composite, handWritten, viaComposite, viaInline } from './chain.js';
import { compare, printComparisons, type Comparison } from './measure.js';
import { realisticChain } from './realistic-tools.js';

const plainGate = chainGate(false);
const versionedGate = chainGate(true);
// With an OpenTelemetry tracer (the SDK's own provider, spans kept in memory and dropped each round).
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
const tracedGate = chainGate(false, { tracer });
// Following labels: every tool's output untrusted, as with `flows: {}` (the chain's tools are pure, so nothing is refused).
const flowsGate = chainGate(false, { flows: {} });

const rows: Comparison[] = [];
const perStep: string[] = [];
for (const [steps, iterations] of [[20, 500], [200, 60], [2000, 6]] as const) {
  // The rows without argument checks are those measured before the checks became the default.
  const gates: (readonly [string, StepGate, boolean])[] = [['', plainGate, false], [', registry version', versionedGate, false]];
  if (steps === 20) gates.push([', OpenTelemetry tracer', tracedGate, false], [', argument checks (the default)', plainGate, true], [', following labels (flows)', flowsGate, false]);
  for (const [label, gate, checkArgs] of gates) {
    const tool = composite(steps, gate, checkArgs);
    const candidate = viaComposite(tool, gate === tracedGate ? () => exporter.reset() : undefined);
    const [a, b] = [await handWritten(steps)(), await candidate()];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`results differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    const row = await compare(`${steps}-step chain${label}`, handWritten(steps), candidate, { iterations });
    rows.push(row);
    perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
  }
  if (steps === 20) {
    // The chain's tools declare `n`, so the checks run a compiled validator per call: the fair
    // baseline for that row is the hand-written loop that runs the same validators.
    const row = await compare('20-step chain, argument checks (the default), against hand-written + the same ajv checks', handWritten(steps, true), viaComposite(composite(steps, plainGate, true)), { iterations });
    rows.push(row);
    perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
  }
  const inline = viaInline(steps);
  if (JSON.stringify(await inline()) !== JSON.stringify(await handWritten(steps)())) throw new Error('the inline reference disagrees');
  const row = await compare(`${steps}-step chain, reference: the same rules written inline`, handWritten(steps), inline, { iterations });
  rows.push(row);
  perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
}
printComparisons('Engine overhead against a hand-written chain of awaits (target: the 20-step chain <= 1.5x)', rows, 1.5);
console.log('\nCost per step over the hand-written loop (flat from 20 to 2,000 steps is the target)');
console.log('| case | per step |');
console.log('|---|---|');
for (const line of perStep) console.log(line);

const realistic = realisticChain(20);
const expected = JSON.stringify(await realistic.checked());
for (const run of [realistic.bare, realistic.engine]) if (JSON.stringify(await run()) !== expected) throw new Error('the realistic chain disagrees with its hand-written version');
printComparisons('The 20-step chain of payments tools (a realistic schema per tool), default options (target <= 2.7x the hand-written loop with the same ajv checks)', [
  await compare('20-step chain, realistic schemas, against hand-written + the same ajv checks', realistic.checked, realistic.engine, { iterations: 500 }),
  await compare('20-step chain, realistic schemas, against hand-written unchecked (reference)', realistic.bare, realistic.engine, { iterations: 500 }),
  await compare('reference: hand-written + ajv checks against hand-written unchecked', realistic.bare, realistic.checked, { iterations: 500 }),
], 2.7);
