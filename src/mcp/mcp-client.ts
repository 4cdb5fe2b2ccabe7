/**
 * The part of an MCP client that `mcpTools` uses, named by its methods rather than by the SDK's
 * `Client` class: a class with private members is only its own type, so a client from another copy
 * of the SDK (a folder install brings the package's own) would not be accepted as the class.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A tool as `tools/list` describes it: the fields {@link mcpTools} reads.
 *
 * @category MCP: a server's tools
 */
export type McpToolDefinition = Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'>;

/**
 * A connected MCP client, as {@link mcpTools} uses it. The SDK's `Client` (any copy of
 * `@modelcontextprotocol/sdk` 1.x) fits it as it is.
 *
 * @category MCP: a server's tools
 */
export interface McpClient {
  /** The server's name and version from `initialize`, once connected. */
  getServerVersion(): { name: string } | undefined;
  /** One page of `tools/list`. */
  listTools(params?: { cursor?: string }): Promise<{ tools: McpToolDefinition[]; nextCursor?: string }>;
  /** One `tools/call`; the answer is checked where it is read. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: undefined, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}
