import type { ITool, ToolExecutionResult } from '../../src/tool.js';

/** A pure tool whose execute returns whatever `answer` makes, as it is: no wrapping into a result. */
export function raw(name: string, answer: () => unknown): ITool {
  return {
    id: `test:${name}`,
    name,
    displayName: name,
    description: name,
    inputSchema: { type: 'object' },
    hasSideEffects: false,
    execute: () => answer() as Promise<ToolExecutionResult>,
  };
}
