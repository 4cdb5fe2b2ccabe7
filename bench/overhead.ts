/**
 * The engine's overhead: a 20-step chain of trivial async tools run as one composite through
 * the full gate, against a hand-written loop that awaits the same ITool objects and checks
 * each result. Target: at most 2.0x the hand-written loop.
 */
import { ComposableToolBuilder, createStepGate, type ITool } from '../dist/index.js';
import { compare, printComparisons } from './measure.js';

const STEPS = 20;
const tools: ITool[] = Array.from({ length: STEPS }, (_, i) => ({
  id: `inc${i}`,
  name: `inc${i}`,
  displayName: `inc${i}`,
  description: 'adds one',
  inputSchema: { type: 'object' },
  hasSideEffects: false,
  execute: async (args) => ({ success: true, output: { n: (args.n as number) + 1 } }),
}));
const registry = new Map(tools.map((t) => [t.name, t]));
const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }), { stepTimeoutMs: Number(process.env.T ?? 120000) });
const composite = builder.build('chain', 'twenty increments', { type: 'object' }, {
  steps: tools.map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })),
});

async function handWritten(): Promise<unknown> {
  let value: unknown = { n: 0 };
  for (const t of tools) {
    const result = await t.execute({ n: (value as { n: number }).n }, {});
    if (!result.success) throw new Error(result.error);
    value = result.output;
  }
  return value;
}

async function viaComposite(): Promise<unknown> {
  const result = await composite.execute({ n: 0 }, {});
  if (!result.success) throw new Error(result.error);
  return result.output;
}

const [a, b] = [await handWritten(), await viaComposite()];
if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`results differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);

const row = await compare(`${STEPS}-step chain, one composite call`, handWritten, viaComposite, { iterations: 500 });
printComparisons('Engine overhead against a hand-written chain of awaits', [row], 2.0);
