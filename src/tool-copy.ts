/**
 * Copying a tool with another `execute`, for wrappers that change how a tool runs and nothing else.
 */
import type { ITool, ToolExecutionContext, ToolExecutionResult } from './tool.js';

/**
 * `tool` with every property copied and `execute` replaced. The required fields are named again so
 * fields served by getters (a class-based tool) are copied too.
 */
export function copyTool<I, O>(tool: ITool<I, unknown>, execute: (args: I, context: ToolExecutionContext) => Promise<ToolExecutionResult<O>>): ITool<I, O> {
  return {
    ...tool,
    id: tool.id,
    name: tool.name,
    displayName: tool.displayName,
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute,
  };
}
