/**
 * The engine's overhead: chains of trivial async tools run as one composite through the full gate
 * (budget, watchdog, trace, effects, the registry consulted at every run), against a hand-written
 * loop that awaits the same ITool objects and checks each result. The composite has an
 * inputSchema and the host passes a realistic context (ids and a user object), as a host would.
 * Target: the 20-step chain within 1.5x of the hand-written loop, and the cost per step flat from
 * 20 to 2,000 steps.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ComposableToolBuilder, createStepGate, type ITool } from '../dist/index.js';
import { inlineChain } from './floor.js';
import { compare, printComparisons, type Comparison } from './measure.js';

const LONGEST = 2000;
const tools: ITool[] = Array.from({ length: LONGEST }, (_, i) => ({
  id: `inc${i}`,
  name: `inc${i}`,
  displayName: `inc${i}`,
  description: 'adds one',
  inputSchema: { type: 'object' },
  hasSideEffects: false,
  execute: async (args) => ({ success: true, output: { n: (args.n as number) + 1 } }),
}));
const registry = new Map(tools.map((t) => [t.name, t]));
// A host that bumps a version whenever it changes its registry lets the gate skip resolving
// tools that cannot have changed (see StepGateOptions.version); the bench measures both.
let registryVersion = 1;
const plainGate = createStepGate({ resolve: (name) => registry.get(name) });
const versionedGate = createStepGate({ resolve: (name) => registry.get(name), version: () => registryVersion, budget: { calls: 10_000 } });
// With an OpenTelemetry tracer (the SDK's own provider, spans kept in memory and dropped each round).
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
const tracedGate = createStepGate({ resolve: (name) => registry.get(name), tracer });

/** What a host typically passes: a few ids and a user object. */
const context = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });
const inputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;

function composite(steps: number, gate: typeof plainGate): ITool {
  const builder = new ComposableToolBuilder(gate);
  return builder.build(`chain${steps}`, `${steps} increments`, inputSchema, {
    steps: tools.slice(0, steps).map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })),
  });
}

function handWritten(steps: number) {
  return async (): Promise<unknown> => {
    let value: unknown = { n: 0 };
    const ctx = context();
    for (let i = 0; i < steps; i++) {
      const result = await tools[i].execute({ n: (value as { n: number }).n }, ctx);
      if (!result.success) throw new Error(result.error);
      value = result.output;
    }
    return value;
  };
}

/**
 * One call of the composite, wrapped exactly as the hand-written loop is (one async function per
 * run), so the pair differs only in what the engine does. `after` runs once per run (the traced
 * case drops the spans it kept).
 */
function viaComposite(tool: ITool, after?: () => void) {
  return async (): Promise<unknown> => {
    const result = await tool.execute({ n: 0 }, context());
    if (!result.success) throw new Error(result.error);
    after?.();
    return result.output;
  };
}

/**
 * The reference point (bench/floor.ts): the same rules written inline for this one chain, as a host
 * would have to write them by hand to keep the same guarantees. Its ratio is the least any engine
 * that keeps those rules can add to the bare loop.
 */
function viaInline(steps: number) {
  const run = inlineChain(tools.slice(0, steps).map((t) => t.name), { version: () => registryVersion, resolve: (name) => registry.get(name) }, inputSchema);
  return async (): Promise<unknown> => {
    const result = await run({ n: 0 }, context());
    if (!result.success) throw new Error(result.error);
    return result.output;
  };
}

const rows: Comparison[] = [];
const perStep: string[] = [];
for (const [steps, iterations] of [[20, 500], [200, 60], [2000, 6]] as const) {
  const gates = steps === 20 ? ([['', plainGate], [', registry version', versionedGate], [', OpenTelemetry tracer', tracedGate]] as const) : ([['', plainGate], [', registry version', versionedGate]] as const);
  for (const [label, gate] of gates) {
    const tool = composite(steps, gate);
    const candidate = viaComposite(tool, gate === tracedGate ? () => exporter.reset() : undefined);
    const [a, b] = [await handWritten(steps)(), await candidate()];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`results differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    const row = await compare(`${steps}-step chain${label}`, handWritten(steps), candidate, { iterations });
    rows.push(row);
    perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
  }
  const inline = viaInline(steps);
  if (JSON.stringify(await inline()) !== JSON.stringify(await handWritten(steps)())) throw new Error('the inline reference disagrees');
  const row = await compare(`${steps}-step chain, reference: the same rules written inline`, handWritten(steps), inline, { iterations });
  rows.push(row);
  perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
}
registryVersion++;
printComparisons('Engine overhead against a hand-written chain of awaits (target: the 20-step chain <= 1.5x)', rows, 1.5);
console.log('\nCost per step over the hand-written loop (flat from 20 to 2,000 steps is the target)');
console.log('| case | per step |');
console.log('|---|---|');
for (const line of perStep) console.log(line);
