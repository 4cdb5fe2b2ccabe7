import { createStepGate } from '../../src/gate/step-gate.js';
import type { StepGateOptions } from '../../src/gate/options.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';

/** A mock tool for the tests: `run` gets the args and context and returns the output (or a result). */
export function tool(
  name: string,
  run: (args: Record<string, unknown>, context: ToolExecutionContext) => unknown,
  extra: Partial<ITool> = { hasSideEffects: false },
): ITool & { calls: Record<string, unknown>[]; contexts: ToolExecutionContext[] } {
  const calls: Record<string, unknown>[] = [];
  const contexts: ToolExecutionContext[] = [];
  return {
    id: `test:${name}`,
    name,
    displayName: name,
    description: `${name} (test tool)`,
    inputSchema: { type: 'object' },
    ...extra,
    calls,
    contexts,
    async execute(args, context): Promise<ToolExecutionResult> {
      calls.push(args);
      contexts.push(context);
      const out = await run(args, context);
      if (out && typeof out === 'object' && 'success' in (out as object)) return out as ToolExecutionResult;
      return { success: true, output: out };
    },
  };
}

/** A registry the gate resolves from; tools can be replaced by name. */
export function registry(...tools: ITool[]) {
  const map = new Map<string, ITool>(tools.map((t) => [t.name, t]));
  return {
    map,
    add: (t: ITool, as = t.name) => map.set(as, t),
    resolve: (name: string) => map.get(name),
    gate: (extra: Omit<StepGateOptions, 'resolve'> = {}) => createStepGate({ resolve: (n) => map.get(n), names: () => map.keys(), ...extra }),
  };
}

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
