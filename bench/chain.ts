/**
 * The chain every engine-overhead measurement runs (bench/overhead.ts in wall time,
 * bench/instructions.ts in instructions): trivial async tools run as one composite through the
 * full gate, against a hand-written loop that awaits the same ITool objects and checks each
 * result, and against the same rules written inline (bench/floor.ts). The composite has an
 * inputSchema and the host passes a realistic context (ids and a user object), as a host would.
 */
import { ComposableToolBuilder, createStepGate, type ITool, type StepGate, type StepGateOptions } from '../dist/index.js';
import { inlineChain } from './floor.js';
import { compileLikeTheGate } from './gate-ajv.js';

/** The longest chain measured. */
export const LONGEST = 2000;

/** The tools, `inc0` to `inc1999`: each adds one to `n`, and says so in its inputSchema as a real tool would. */
export const tools: ITool[] = Array.from({ length: LONGEST }, (_, i) => ({
  id: `inc${i}`,
  name: `inc${i}`,
  displayName: `inc${i}`,
  description: 'adds one',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  hasSideEffects: false,
  execute: async (args) => ({ success: true, output: { n: (args.n as number) + 1 } }),
}));
const registry = new Map(tools.map((t) => [t.name, t]));

/** The host's registry version (see StepGateOptions.version); never bumped while measuring. */
const registryVersion = 1;

/** A gate over the tools: `versioned` gives it the registry version, `extra` adds other options (a tracer). */
export function chainGate(versioned: boolean, extra: Partial<StepGateOptions> = {}): StepGate {
  const resolve = (name: string) => registry.get(name);
  // A host that bumps a version whenever it changes its registry lets the gate skip resolving
  // tools that cannot have changed; the versioned gate's budget covers the 2,000-step chain.
  return createStepGate(versioned ? { resolve, version: () => registryVersion, budget: { calls: 10_000 }, ...extra } : { resolve, ...extra });
}

/** What a host typically passes: a few ids and a user object. */
export const context = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });
const inputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;

/**
 * The composite of the first `steps` tools, each step given `{ n: $prev.n }`. Without argument
 * checks unless `checkArgs` (the builder's default): the rows measured before the checks became
 * the default stay comparable, and the row with them says what they add.
 */
export function composite(steps: number, gate: StepGate, checkArgs = false): ITool {
  return new ComposableToolBuilder(gate, { validateArgs: checkArgs }).build(`chain${steps}`, `${steps} increments`, inputSchema, {
    steps: tools.slice(0, steps).map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })),
  });
}

/**
 * The hand-written loop over the first `steps` tools; `checked`, it also validates the input and
 * each call's arguments with the same compiled schemas the gate's argument check runs (the
 * baseline of the row with the builder's default options).
 */
export function handWritten(steps: number, checked = false) {
  // Compiled only for the checked loop: the bare one is built for many rows.
  const checkInput = checked ? compileLikeTheGate(inputSchema) : () => true;
  const checks = checked ? tools.slice(0, steps).map((t) => compileLikeTheGate(t.inputSchema)) : [];
  return async (): Promise<unknown> => {
    const input = { n: 0 };
    if (checked && !checkInput(input)) throw new Error('input invalid');
    let value: unknown = input;
    const ctx = context();
    for (let i = 0; i < steps; i++) {
      const args = { n: (value as { n: number }).n };
      if (checked && !checks[i](args)) throw new Error(`args invalid at step ${i}`);
      const result = await tools[i].execute(args, ctx);
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
export function viaComposite(tool: ITool, after?: () => void) {
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
export function viaInline(steps: number) {
  const run = inlineChain(tools.slice(0, steps).map((t) => t.name), { version: () => registryVersion, resolve: (name) => registry.get(name) }, inputSchema);
  return async (): Promise<unknown> => {
    const result = await run({ n: 0 }, context());
    if (!result.success) throw new Error(result.error);
    return result.output;
  };
}
