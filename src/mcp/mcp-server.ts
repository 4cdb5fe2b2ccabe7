/**
 * `createMcpServer`: ITools served over MCP. The low-level SDK `Server` is used, so JSON Schemas
 * pass through as they are (never converted to zod); every call runs through a StepGate.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  checkChainable,
  createStepGate,
  failure,
  RUN_PIPELINE_TOOL_NAME,
  type ITool,
  type StepGate,
  type ToolEvent,
  type ToolExecutionContext,
  type ToolExecutionResult,
} from '../index.js';
import { openRequests, REQUEST_ID_KEY, type OpenRequest } from './open-requests.js';
import { progressListener } from './progress.js';
import { servedResult } from './served-result.js';
import { servedTool } from './served-tool.js';
import { asToolList, type ToolList } from './tool-list.js';

/**
 * What a host's {@link McpServerOptions.context} is told about each call.
 *
 * @category MCP: serving tools
 */
export interface McpCallInfo {
  /** The tool called. */
  tool: string;
  /** The MCP session (Streamable HTTP), if any. */
  sessionId?: string;
  /** The JSON-RPC id of the request. */
  requestId: string | number;
}

/**
 * Options of {@link createMcpServer}.
 *
 * @category MCP: serving tools
 */
export interface McpServerOptions {
  /** The server's name at `initialize` (default `toolweave`). */
  name?: string;
  /** The server's version at `initialize` (default `0.0.0`). */
  version?: string;
  /** Instructions for the client's model, sent at `initialize` (a usage guide, say). */
  instructions?: string;
  /**
   * List each tool that has a `strictInputSchema` (run_pipeline, compose) with that schema instead
   * of its `inputSchema`, for clients whose strict mode cannot take open objects (the OpenAI Agents
   * SDK's `convertSchemasToStrict`). The tool takes either form. Default false.
   */
  strictSchemas?: boolean;
  /**
   * The gate every call passes (default: a gate over the served tools, with no host checks). Give
   * your own to apply permissions, checks, approvals and budgets to every call.
   */
  gate?: StepGate;
  /**
   * The context each call starts from (a user id, session data). The server adds the request's
   * abort signal, the session id as `sessionId` (observations are scoped by it), the request's
   * JSON-RPC id as `mcpRequestId` (an approval asked for any call under it goes with that
   * request) and an `onEvent` that reports progress, calling the host's own `onEvent` too.
   */
  context?: (call: McpCallInfo) => ToolExecutionContext;
  /** A timeout for each call, in milliseconds (default: none beyond the tool's own). */
  callTimeoutMs?: number;
  /**
   * Told when a call was cancelled by the client after it had started, with what it had done (the
   * client is told too, in a `notifications/message` log entry).
   */
  onCancelled?: (call: McpCallInfo, result: ToolExecutionResult) => void;
}

/**
 * Serve `tools` over MCP.
 *
 * `tools/list` lists each tool with its `inputSchema`, its `outputSchema`
 * where its results still match it, and annotations from `hasSideEffects` (`false`:
 * `readOnlyHint: true`; `true`: `readOnlyHint: false`, keeping the MCP annotations it carries),
 * computed when listed. A {@link ToolList} that changes what `tools/list` shows sends
 * `notifications/tools/list_changed` to a client that has initialized (a change that leaves the
 * listing as it was is not told).
 *
 * `tools/call` runs the tool through the gate with an abort signal tied to the request's
 * cancellation; with a progress token, each step of a composite, a pipeline or a script is reported
 * as it ends. A string output is one text part; anything else is JSON text plus `structuredContent`;
 * a failure is `isError: true` with `error <code>: <message>` (a failure the called tool returned
 * shows its own code, not the gate's `step_failed` around it); `effects` and `trace` go in `_meta`
 * (`toolweave/effects`, `toolweave/trace`), and with a gate that has `flows`, where the data the
 * result carries came from (`toolweave/label`: `{ trusted, sources }`). A tool that throws never takes the server down. A call
 * cancelled after it started is answered by no response (as MCP says); what it did so far is sent
 * as a `notifications/message` log entry (logger `toolweave`).
 *
 * Connect it to a transport yourself, or with {@link serveStdio} or {@link serveHttp}.
 *
 * @example
 * ```ts
 * const server = createMcpServer([lookup, greetUser], { gate });
 * await serveStdio(server);
 * ```
 *
 * @category MCP: serving tools
 */
export function createMcpServer(tools: readonly ITool[] | ToolList, options: McpServerOptions = {}): Server {
  const list = asToolList(tools);
  let byName = new Map<string, ITool>();
  let indexed: readonly ITool[] | undefined;
  const find = (name: string): ITool | undefined => {
    const current = list.current();
    if (current !== indexed) {
      byName = new Map(current.map((tool) => [tool.name, tool]));
      indexed = current;
    }
    return byName.get(name);
  };
  const names = () => list.current().map((tool) => tool.name);
  const gate = options.gate ?? createStepGate({ resolve: find, names });

  const server = new Server(
    { name: options.name ?? 'toolweave', version: options.version ?? '0.0.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  const open = openRequests(server);

  const strictSchemas = options.strictSchemas === true;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list.current().map((tool) => servedTool(tool, { strictSchemas })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const info: McpCallInfo = { tool: name, requestId: extra.requestId, ...(extra.sessionId ? { sessionId: extra.sessionId } : {}) };
    const tool = find(name);
    if (!tool) {
      const missing = checkChainable(name, undefined, undefined, names, gate.advice);
      return servedResult(missing.ok ? failure('step_missing', `No tool named "${name}".`) : missing.refusal, undefined);
    }
    const args = request.params.arguments ?? {};
    const entry: OpenRequest = { requestId: extra.requestId, signal: extra.signal };
    open.add(entry);
    try {
      const context = callContext(options, info, extra.signal, progressListener(extra.sendNotification, request.params._meta?.progressToken, stepsKnown(name, args)));
      const result = await runSafely(gate, tool, args, context, options.callTimeoutMs);
      if (extra.signal.aborted) reportCancelled(server, info, result, options);
      return servedResult(ownFailure(result), tool, result);
    } finally {
      open.delete(entry);
    }
  });

  // The list as the client knows it (as of its initialization or the last notice): a change that
  // leaves it as it was (an upstream restarted with the same tools) is not told. Before the client
  // has initialized nothing is sent: it lists the tools as they are then.
  let initialized = false;
  let known = '';
  const oninitialized = server.oninitialized;
  server.oninitialized = () => {
    initialized = true;
    known = listingOf(list.current(), strictSchemas);
    oninitialized?.();
  };
  const unsubscribe = list.subscribe(() => {
    if (!initialized) return;
    const listing = listingOf(list.current(), strictSchemas);
    if (listing === known) return;
    known = listing;
    server.sendToolListChanged().catch(() => {
      // Gone: a client that connects later lists the tools as they are.
    });
  });
  const onclose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    onclose?.();
  };
  return server;
}

/** The context of one call: the host's, plus the signal, the session and the progress listener. */
function callContext(options: McpServerOptions, info: McpCallInfo, signal: AbortSignal, progress: ((event: ToolEvent) => void) | undefined): ToolExecutionContext {
  let base: ToolExecutionContext = {};
  try {
    base = options.context?.(info) ?? {};
  } catch {
    // A host context function that throws gives the call a plain context; the gate still holds.
  }
  const own = typeof base.onEvent === 'function' ? (base.onEvent as (event: ToolEvent) => void) : undefined;
  const listeners = [own, progress].filter((l): l is (event: ToolEvent) => void => l !== undefined);
  return {
    ...base,
    signal,
    [REQUEST_ID_KEY]: info.requestId,
    ...(base.sessionId === undefined && info.sessionId !== undefined ? { sessionId: info.sessionId } : {}),
    ...(listeners.length ? { onEvent: (event: ToolEvent) => listeners.forEach((listener) => listener(event)) } : {}),
  };
}

/** A pipeline's step count: the one door whose number of steps is known before it runs. */
function stepsKnown(name: string, args: Record<string, unknown>): number | undefined {
  return name === RUN_PIPELINE_TOOL_NAME && Array.isArray(args.steps) ? args.steps.length : undefined;
}

/** Run through the gate; a host gate that throws or answers something else still gives a result. */
async function runSafely(gate: StepGate, tool: ITool, args: Record<string, unknown>, context: ToolExecutionContext, timeoutMs: number | undefined): Promise<ToolExecutionResult> {
  try {
    const result: unknown = await gate.run(tool, args, context, context.signal, { step: tool.name, ...(timeoutMs ? { timeoutMs } : {}) });
    if (typeof result === 'object' && result !== null && typeof (result as ToolExecutionResult).success === 'boolean') return result as ToolExecutionResult;
    return failure('step_bad_result', `Tool "${tool.name}" answered something that is not a result.`, { tool: tool.name });
  } catch (error) {
    return failure('step_threw', `Tool "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`, { tool: tool.name });
  }
}

/**
 * The client called the tool itself, not a step: a failure the tool returned shows the tool's own
 * code (`upstream_unavailable`, `tool_error`, a composite's `check_failed`), not the gate's
 * `step_failed` around it.
 */
function ownFailure(result: ToolExecutionResult): ToolExecutionResult {
  const details = result.details;
  if (result.success || details?.code !== 'step_failed' || typeof details.innerCode !== 'string') return result;
  const { innerCode, ...rest } = details;
  return { ...result, details: { ...rest, code: innerCode } };
}

/** A call cancelled after it started gets no response: what it did goes to the client's log instead. */
function reportCancelled(server: Server, info: McpCallInfo, result: ToolExecutionResult, options: McpServerOptions): void {
  const effects = Array.isArray(result.effects) ? result.effects : [];
  server
    .sendLoggingMessage({ level: 'warning', logger: 'toolweave', data: { cancelled: info.tool, requestId: info.requestId, effects } }, info.sessionId)
    .catch(() => undefined);
  try {
    options.onCancelled?.(info, result);
  } catch {
    // Told, not asked.
  }
}

/** The tools as `tools/list` shows them, as text to compare. */
function listingOf(tools: readonly ITool[], strictSchemas: boolean): string {
  try {
    return JSON.stringify(tools.map((tool) => servedTool(tool, { strictSchemas })));
  } catch {
    // A listing that cannot be read as text is taken as changed each time.
    return String(Math.random());
  }
}
