/**
 * One upstream MCP server behind the proxy: started (a command over stdio, or a URL over
 * Streamable HTTP), its tools imported, and restarted with backoff when it crashes. Its tools stay
 * listed while it is down: a call then fails with `upstream_unavailable`, naming the server and
 * why, instead of vanishing. Before it is first up, the tools its config names (`tools:`) are
 * listed in their place, so a call to one of them says the same.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { failure, type ToolExecutionResult } from '../index.js';
import { mcpTools, type McpTool } from '../mcp/index.js';
import { UpstreamStdioTransport } from '../mcp/upstream-stdio.js';
import type { ServerConfig } from './config-types.js';
import { coalesced } from './coalesced.js';
import { prefixLines, type Log } from './log.js';

/** How long a server may take to answer `initialize` by default. */
export const DEFAULT_INIT_TIMEOUT_MS = 30_000;
/** The first wait before a restart; each failed start doubles it, up to {@link MAX_RESTART_DELAY_MS}. */
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** Starts that fail in a row before the proxy stops trying (it keeps serving the other servers). */
export const MAX_FAILED_STARTS = 8;

/** How an upstream is run. */
export interface UpstreamOptions {
  /** Restart it after a crash or a failed start (the proxy does; `check` does not). Default true. */
  restart?: boolean;
  /** The most bytes of one message read from a server over stdio; a longer answer fails its call alone. */
  maxMessageBytes: number;
}

/** What the upstream is doing. */
export type UpstreamState = 'starting' | 'up' | 'down' | 'given_up' | 'closed';

/** One upstream server. */
export class Upstream {
  /** Its tools as last imported; until it first starts, the tools its config names. */
  tools: McpTool[];
  /** What it is doing. */
  state: UpstreamState = 'starting';
  /** Why it last failed, when it did. */
  problem: string | undefined;
  private client: Client | undefined;
  /** What the tools were when last imported, to tell a real change from a repeated notice. */
  private signature = '';
  private failedStarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  /** When the next start is due, while one is scheduled. */
  private restartAt: number | undefined;

  /**
   * @param name - its name in the config (logs, the prefix)
   * @param config - how to start it
   * @param base - the folder a relative `cwd` is read from (the config file's)
   * @param log - the proxy's log
   * @param onChange - told when its tools change
   * @param options - restarts, and the bound on one message
   */
  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly base: string,
    private readonly log: Log,
    private readonly onChange: () => void,
    private readonly options: UpstreamOptions,
  ) {
    this.tools = this.configuredTools();
  }

  /** The server's own name for the tool it serves as `served` (without the prefix, if any). */
  ownName(served: string): string {
    return this.config.prefix ? served.slice(this.name.length + 2) : served;
  }

  /** Whether any of its tools is known: imported, or named by its config. */
  get toolsKnown(): boolean {
    return this.tools.length > 0;
  }

  /**
   * Why it is not up and what the proxy does about it, in a few words ("could not be started:
   * command "x" not found; the proxy starts it again in 2 s"), or `undefined` while it is up.
   */
  status(): string | undefined {
    const why = this.problem;
    switch (this.state) {
      case 'up':
        return undefined;
      case 'starting':
        return why ? `${why}; it is being started again` : 'it is still starting';
      case 'down': {
        const seconds = Math.max(0, Math.ceil(((this.restartAt ?? Date.now()) - Date.now()) / 1000));
        return `${why ?? 'it is down'}; the proxy starts it again in ${seconds} s`;
      }
      case 'given_up':
        return `${why ?? 'it is down'}${this.options.restart !== false ? `; ${MAX_FAILED_STARTS} starts failed in a row, and the proxy no longer tries` : ''}`;
      case 'closed':
        return 'the proxy is shutting down';
    }
  }

  /**
   * What a call to its tool `tool` (its own name) answers while it is not up: `upstream_unavailable`
   * naming the server and why; `undefined` while it is up. `made`: the call was sent, and the
   * server went away before it answered.
   */
  unavailable(tool: string, made = false): ToolExecutionResult | undefined {
    const status = this.status();
    if (status === undefined) return undefined;
    return failure(
      'upstream_unavailable',
      `MCP server "${this.name}" is not connected: ${status}. The call to "${tool}" ${made ? 'got no answer' : 'was not made'}.`,
      { server: this.name, tool, state: this.state, ...(this.problem ? { problem: this.problem } : {}) },
    );
  }

  /** Start it; resolves once this attempt has succeeded or failed (a failure schedules a restart). */
  async start(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'starting';
    const transport = this.transport();
    const client = new Client({ name: 'toolweave', version: '0.1.0' });
    // Known from now on, so a close while it starts stops the process it starts.
    this.client = client;
    const timeout = this.config.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS;
    try {
      await client.connect(transport, { timeout });
      // Always taken: the tools of a new connection call through it, even if they look the same.
      await this.importTools(client, true);
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await client.close().catch(() => undefined);
      // Closed while it started: the close ended this attempt, not a fault of the server's.
      if ((this.state as UpstreamState) !== 'closed') this.failed(startProblem(error, this.config, timeout));
      return;
    }
    // close() may have been called while this start was under way.
    if ((this.state as UpstreamState) === 'closed' || this.client !== client) {
      await client.close().catch(() => undefined);
      return;
    }
    this.state = 'up';
    this.failedStarts = 0;
    this.problem = undefined;
    this.log.info(`server "${this.name}" is up: ${this.tools.length} tools`);
    client.onclose = () => {
      if (this.client !== client || this.state === 'closed') return;
      this.client = undefined;
      this.failed('it closed the connection or exited');
    };
    // However many notices come, one read at a time and at most one waiting; clients hear of a change only.
    const refresh = coalesced(async () => {
      try {
        await this.importTools(client, false);
      } catch (error) {
        this.log.error('upstream_error', `server "${this.name}" changed its tools and they could not be read: ${messageOf(error)}`);
      }
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
  }

  /** Stop it for good: no restart. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** Read the tools of `client`; take them, and say so, when `always` or when they differ from the last ones. */
  private async importTools(client: Client, always: boolean): Promise<void> {
    if (this.client !== client) return;
    const tools = await mcpTools(client, {
      server: this.name,
      ...(this.config.prefix ? { prefix: this.name } : {}),
      trustAnnotations: this.config.trustAnnotations === true,
      ...(this.config.tools ? { tools: this.config.tools } : {}),
      ...(this.config.callTimeoutMs ? { timeoutMs: this.config.callTimeoutMs } : {}),
    });
    // A restart or a close while the list was read: these tools call a connection that is gone.
    if (this.client !== client) return;
    const signature = signatureOf(tools);
    if (!always && signature === this.signature) return;
    this.tools = tools.map((tool) => this.guarded(tool));
    this.signature = signature;
    if (!always) this.log.info(`server "${this.name}" changed its tools: ${tools.length} tools`);
    this.onChange();
  }

  /**
   * `tool` answering for the server while it is down: a call then is not sent to a connection
   * that is gone, and a call the server went away from says why.
   */
  private guarded(tool: McpTool): McpTool {
    const own = this.ownName(tool.name);
    return {
      ...tool,
      execute: async (args, context) => {
        const down = this.unavailable(own);
        if (down) return down;
        const result = await tool.execute(args, context);
        if (result.success === false && result.details?.code === 'upstream_unavailable') return this.unavailable(own, true) ?? result;
        return result;
      },
    };
  }

  /**
   * The tools its config names (`tools:`), listed until it is first up: their side effects as the
   * config declares them, any arguments, and every call answered with why the server is down.
   */
  private configuredTools(): McpTool[] {
    return Object.entries(this.config.tools ?? {}).map(([own, override]) => ({
      id: `mcp:${this.name}:${own}`,
      name: this.config.prefix ? `${this.name}__${own}` : own,
      displayName: own,
      description: `A tool of MCP server "${this.name}", which is not connected yet: its description and arguments are known once it is up. A call answers upstream_unavailable with the reason.`,
      inputSchema: { type: 'object' },
      hasSideEffects: override.hasSideEffects,
      execute: async () =>
        this.unavailable(own) ??
        failure('upstream_unavailable', `MCP server "${this.name}" has just started; call "${own}" again.`, { server: this.name, tool: own, state: this.state }),
    }));
  }

  private failed(why: string): void {
    this.failedStarts++;
    this.problem = why;
    const restart = this.options.restart !== false;
    if (!restart || this.failedStarts >= MAX_FAILED_STARTS) {
      this.state = 'given_up';
      this.log.error('upstream_unavailable', `server "${this.name}": ${why}${restart ? `; ${MAX_FAILED_STARTS} starts failed in a row, not trying again` : ''}`);
      this.onChange();
      return;
    }
    this.state = 'down';
    const delay = Math.min(FIRST_RESTART_DELAY_MS * 2 ** (this.failedStarts - 1), MAX_RESTART_DELAY_MS);
    this.restartAt = Date.now() + delay;
    this.log.error('upstream_unavailable', `server "${this.name}": ${why}; its calls fail until it is back; restarting in ${delay} ms`);
    this.onChange();
    this.restartTimer = setTimeout(() => void this.start(), delay);
  }

  private transport(): Transport {
    const config = this.config;
    if (config.url) {
      return new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: config.headers } } : {});
    }
    const transport = new UpstreamStdioTransport({
      command: config.command!,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: path.resolve(this.base, config.cwd ?? '.'),
      maxMessageBytes: this.options.maxMessageBytes,
      report: (code, message) => this.log.error(code, `server "${this.name}": ${message}`),
    });
    // stdout is the protocol; what the server says on stderr goes to the proxy's, named.
    transport.stderr.on('data', prefixLines(this.name, (line) => void process.stderr.write(`${line}\n`)));
    return transport;
  }
}

/** What clients are shown of the tools, as one string: equal strings, nothing to tell them. */
function signatureOf(tools: readonly McpTool[]): string {
  return JSON.stringify(tools.map((tool) => [tool.name, tool.displayName, tool.description, tool.inputSchema, tool.outputSchema, tool.annotations, tool.hasSideEffects]));
}

/** Why a start failed, in words that say what to fix. */
function startProblem(error: unknown, config: ServerConfig, timeoutMs: number): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' && config.command) return `could not be started: command "${config.command}" not found`;
  if (code === 'EACCES' && config.command) return `could not be started: command "${config.command}" is not executable`;
  const message = messageOf(error);
  if (/timed out/iu.test(message)) return `did not answer initialize within ${timeoutMs} ms`;
  if (/Connection closed/iu.test(message)) return 'exited before answering initialize';
  return `could not be started: ${message}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
