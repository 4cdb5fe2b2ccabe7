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

function viaComposite(tool: ITool) {
  return async (): Promise<unknown> => {
    const result = await tool.execute({ n: 0 }, context());
    if (!result.success) throw new Error(result.error);
    return result.output;
  };
}

const rows: Comparison[] = [];
const perStep: string[] = [];
for (const [steps, iterations] of [[20, 500]] as const) {
  const gates = steps === 20 ? ([['', plainGate], [', registry version', versionedGate], [', OpenTelemetry tracer', tracedGate]] as const) : ([['', plainGate], [', registry version', versionedGate]] as const);
  for (const [label, gate] of gates) {
    const tool = composite(steps, gate);
    const [a, b] = [await handWritten(steps)(), await viaComposite(tool)()];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`results differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    const row = await compare(`${steps}-step chain${label}`, handWritten(steps), async () => {
      const out = await viaComposite(tool)();
      exporter.reset();
      return out;
    }, { iterations });
    rows.push(row);
    perStep.push(`| ${row.name} | ${(((row.candidateMs - row.baselineMs) * 1e6) / steps).toFixed(0)} ns |`);
  }
}
registryVersion++;
printComparisons('Engine overhead against a hand-written chain of awaits (target: the 20-step chain <= 1.5x)', rows, 1.5);
console.log('\nCost per step over the hand-written loop (flat from 20 to 2,000 steps is the target)');
console.log('| case | per step |');
console.log('|---|---|');
for (const line of perStep) console.log(line);
