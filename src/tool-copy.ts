/**
 * Copying a tool with another `execute`, for wrappers that change how a tool runs and nothing else.
 */
import { registerCopyOfDoor } from './runs/door-registry.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from './tool.js';

/**
 * `tool` with every property copied and `execute` replaced. The required fields are named again so
 * fields served by getters (a class-based tool) are copied too. A copy of a door is the same door
 * to `resumeRun`: a run the copy paused resumes through the copy.
 */
export function copyTool<I, O>(tool: ITool<I, unknown>, execute: (args: I, context: ToolExecutionContext) => Promise<ToolExecutionResult<O>>): ITool<I, O> {
  const copy: ITool<I, O> = {
    ...tool,
    id: tool.id,
    name: tool.name,
    displayName: tool.displayName,
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute,
  };
  registerCopyOfDoor(copy, tool);
  return copy;
}
