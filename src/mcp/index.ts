/**
 * `toolweave/mcp`: MCP both ways. {@link mcpTools} makes a connected MCP server's tools into ITools
 * that run as gated steps; {@link createMcpServer} serves ITools (composites, run_pipeline, compose,
 * run_js, get_observation, anything) over MCP, every call through a StepGate.
 *
 * It uses `@modelcontextprotocol/sdk` (1.x), a dependency of the package installed with it;
 * `toolweave` itself never loads it.
 *
 * @module toolweave/mcp
 */
export { mcpTools, MAX_TOOL_LIST_PAGES, type McpTool, type McpToolsOptions } from './mcp-tools.js';
export type { McpClient, McpToolDefinition } from './mcp-client.js';
export type { McpToolOverride } from './side-effects.js';
export { MCP_CONTENT_KEY } from './upstream-result.js';
export { createMcpServer, type McpServerOptions, type McpCallInfo } from './mcp-server.js';
export { META_KEYS } from './served-result.js';
export { createToolList, type ToolList, type MutableToolList } from './tool-list.js';
export { elicitationApprovals, approvalMessage, DEFAULT_APPROVAL_TIMEOUT_MS, type ElicitationApprovalsOptions } from './elicitation-approvals.js';
export { serveStdio, serveHttp, type Serving, type HttpServing, type HttpServeOptions, type HttpSessionInfo } from './transports.js';
