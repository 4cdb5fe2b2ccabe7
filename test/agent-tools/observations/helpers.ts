import type { ITool, ToolExecutionResult } from '../../../src/tool.js';

/** A pure mock tool that returns whatever `produce` gives, and records its calls. */
export function mockTool<O>(
  produce: (args: Record<string, unknown>) => ToolExecutionResult<O> | Promise<ToolExecutionResult<O>>,
  extra: Partial<ITool<Record<string, unknown>, O>> = {},
): ITool<Record<string, unknown>, O> & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    id: 'mock',
    name: 'mock',
    displayName: 'Mock',
    description: 'A mock tool.',
    inputSchema: { type: 'object' },
    hasSideEffects: false,
    ...extra,
    calls,
    async execute(args, context) {
      calls.push([args, context]);
      return produce(args);
    },
  };
}

/** `count` lines `line 1`, `line 2`, ... joined with newlines. */
export function numberedLines(count: number, width = 0): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1}`.padEnd(width, '.')).join('\n');
}
