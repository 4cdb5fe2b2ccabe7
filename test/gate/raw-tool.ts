import type { ITool, ToolExecutionResult } from '../../src/tool.js';

/** A pure tool whose execute returns whatever `answer` makes of its arguments, as it is: no wrapping into a result. */
export function raw(name: string, answer: (args: Record<string, unknown>) => unknown): ITool {
  return {
    id: `test:${name}`,
    name,
    displayName: name,
    description: name,
    inputSchema: { type: 'object' },
    hasSideEffects: false,
    execute: (args) => answer(args) as Promise<ToolExecutionResult>,
  };
}
