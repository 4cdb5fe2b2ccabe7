/**
 * An ITool as `tools/list` shows it. The listing is made when the client asks, so a composite's
 * grade (pure or side-effecting) follows the registry as it is then.
 */
import type { Tool as McpToolDefinition, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ITool } from '../index.js';
import type { McpTool } from './mcp-tools.js';
import { outputCheckOf } from './output-check.js';
import { keepsOutputSchema } from './upstream-mark.js';

/** The definition of `tool` for `tools/list`; with `strictSchemas`, its `strictInputSchema` where it has one. */
export function servedTool(tool: ITool, options: { strictSchemas?: boolean } = {}): McpToolDefinition {
  const annotations = servedAnnotations(tool);
  const outputSchema = servedOutputSchema(tool);
  return {
    name: tool.name,
    ...(tool.displayName && tool.displayName !== tool.name ? { title: tool.displayName } : {}),
    description: tool.description,
    // MCP requires an object schema: a schema that does not say so is served as one.
    inputSchema: { ...((options.strictSchemas === true ? tool.strictInputSchema : undefined) ?? tool.inputSchema), type: 'object' } as McpToolDefinition['inputSchema'],
    ...(outputSchema ? { outputSchema } : {}),
    ...(annotations ? { annotations } : {}),
  };
}

/**
 * The annotations, from `hasSideEffects`: `false` is `readOnlyHint: true`; `true` is
 * `readOnlyHint: false` with the MCP annotations the tool carries kept; undeclared passes on the
 * carried hints as they are (or none).
 */
export function servedAnnotations(tool: ITool): ToolAnnotations | undefined {
  const carried = (tool as McpTool).annotations;
  const pure = tool.hasSideEffects;
  if (pure === false) {
    // destructiveHint and idempotentHint mean something only for a tool that is not read-only.
    const { destructiveHint: _destructive, idempotentHint: _idempotent, ...rest } = carried ?? {};
    return { ...rest, readOnlyHint: true };
  }
  if (pure === true) return { ...carried, readOnlyHint: false };
  return carried;
}

/**
 * The `outputSchema` served: only where the result still matches it. A tool whose results may be
 * shaped into previews, or read as text, does not keep its schema (an SDK client rejects a result
 * without the structured content its schema promises).
 */
function servedOutputSchema(tool: ITool): McpToolDefinition['outputSchema'] | undefined {
  if (!tool.outputSchema || !keepsOutputSchema(tool) || !outputCheckOf(tool)) return undefined;
  return { ...tool.outputSchema, type: 'object' } as McpToolDefinition['outputSchema'];
}
