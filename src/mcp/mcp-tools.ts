/**
 * `mcpTools`: the tools of a connected MCP server as ITools, so they run as steps through the gate
 * (in composites, run_pipeline, run_js) like any other tool.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_STEP_TIMEOUT_MS, type ITool, type JSONSchemaObject } from '../index.js';
import type { McpClient, McpToolDefinition } from './mcp-client.js';
import { sideEffectsOf, type McpToolOverride } from './side-effects.js';
import { callFailure, callUpstream } from './upstream-call.js';
import { markUpstream } from './upstream-mark.js';
import { wrapsText } from './upstream-result.js';

/**
 * An ITool made from an MCP server's tool.
 *
 * @category MCP: a server's tools
 */
export interface McpTool extends ITool {
  /** The tool's MCP annotations as the server gave them: hints, kept so they can be served on. */
  annotations?: ToolAnnotations;
}

/**
 * Options of {@link mcpTools}.
 *
 * @category MCP: a server's tools
 */
export interface McpToolsOptions {
  /** Names become `<prefix>__<tool>` (the upstream server is still called by the tool's own name). */
  prefix?: string;
  /**
   * Trust the server's annotations: `readOnlyHint: true` makes a tool pure (`hasSideEffects: false`),
   * anything else side-effecting. Without trust (the default) every tool is undeclared: callable
   * directly, never chained.
   */
  trustAnnotations?: boolean;
  /** Per-tool overrides by the tool's own name (without the prefix), over trust either way. */
  tools?: Readonly<Record<string, McpToolOverride>>;
  /** Each call's timeout in milliseconds (default `DEFAULT_STEP_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** The server's name in ids and messages (default: the name it gave at `initialize`). */
  server?: string;
}

/**
 * The most pages of `tools/list` read: a server that pages forever is cut off here.
 *
 * @category MCP: a server's tools
 */
export const MAX_TOOL_LIST_PAGES = 100;

/**
 * The tools of the server `client` is connected to, as toolweave tools.
 *
 * `client` is the SDK's `Client`, from any copy of `@modelcontextprotocol/sdk` 1.x (it is typed
 * as {@link McpClient}).
 *
 * It reads every page of `tools/list`: names,
 * descriptions, `inputSchema` and `outputSchema` as the server gives them.
 *
 * Each `execute` calls `tools/call` and never throws: structured content is the output object (a
 * lone string field repeating the text reads as the text), else the text parts joined; other parts
 * are kept in `details.mcpContent`; `isError: true` is `tool_error`; a protocol error is
 * `upstream_error` with `details.mcpCode`, and a result of the wrong shape `upstream_error` saying
 * in one line what was wrong; a closed or crashed connection is `upstream_unavailable`;
 * the context's abort cancels the request (`step_aborted`) and the timeout ends it (`step_timeout`).
 *
 * Rejects (with the error's `code`, `upstream_unavailable` or `upstream_error`) only when the tool
 * list cannot be read at all.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'host', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '.'] }));
 * const tools = await mcpTools(client, { trustAnnotations: true });
 * ```
 *
 * @category MCP: a server's tools
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<McpTool[]> {
  const server = options.server ?? client.getServerVersion()?.name ?? 'mcp';
  const definitions = await listAllTools(client, server);
  const timeoutMs = positive(options.timeoutMs, DEFAULT_STEP_TIMEOUT_MS);
  return definitions.map((definition) => toTool(client, definition, server, options, timeoutMs));
}

async function listAllTools(client: McpClient, server: string): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_LIST_PAGES; page++) {
    let answer;
    try {
      answer = await client.listTools(cursor === undefined ? undefined : { cursor });
    } catch (error) {
      const failed = callFailure(error, { server, tool: 'tools/list', timeoutMs: 0 }, 'tools/list');
      throw Object.assign(new Error(failed.error), { code: failed.details?.code });
    }
    tools.push(...answer.tools);
    cursor = answer.nextCursor;
    // A cursor seen before would page in a circle.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

function toTool(client: McpClient, definition: McpToolDefinition, server: string, options: McpToolsOptions, timeoutMs: number): McpTool {
  const upstreamName = definition.name;
  const name = options.prefix ? `${options.prefix}__${upstreamName}` : upstreamName;
  const annotations = definition.annotations;
  // The host's own entry only: an upstream server chooses its tools' names (`constructor`, `__proto__`).
  const override = options.tools !== undefined && Object.hasOwn(options.tools, upstreamName) ? options.tools[upstreamName] : undefined;
  const hasSideEffects = sideEffectsOf(annotations, options.trustAnnotations === true, override);
  const target = { client, server, tool: upstreamName, timeoutMs };
  const tool: McpTool = {
    id: `mcp:${server}:${upstreamName}`,
    name,
    displayName: definition.title ?? annotations?.title ?? upstreamName,
    description: definition.description ?? '',
    inputSchema: definition.inputSchema as JSONSchemaObject,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema as JSONSchemaObject } : {}),
    ...(hasSideEffects === undefined ? {} : { hasSideEffects }),
    ...(annotations ? { annotations } : {}),
    execute: (args, context) => callUpstream(target, args, context),
  };
  return markUpstream(tool, { textResults: wrapsText(definition.outputSchema as JSONSchemaObject | undefined) });
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
