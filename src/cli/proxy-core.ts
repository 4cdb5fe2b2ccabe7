/**
 * What every session of the proxy shares: the upstream servers and their tools (wrapped with
 * observations, so large results come back as previews), the observation store, the composite
 * files, and one list of the names taken, with the collisions found.
 */
import {
  createObservationStore,
  createSandboxPool,
  type SandboxPool,
  DEFAULT_OBSERVATION_STORE_BYTES,
  withObservations,
  type ITool,
  type ObservationStore,
} from '../index.js';
import type { CallRecording } from '../forge/record-calls.js';
import type { McpTool } from '../mcp/index.js';
import { ApprovalQueue } from './approvals/queue.js';
import { RESUME_RUN_TOOL_NAME } from './approvals/queued-doors.js';
import { approvalSettings } from './approvals/settings.js';
import type { CompositeFile, ProxyConfig } from './config-types.js';
import { trustsServerTool } from './flows-config.js';
import type { Log } from './log.js';
import { OWN_TOOL_NAMES } from './own-names.js';
import { Upstream } from './upstream.js';

export { GET_OBSERVATION_TOOL_NAME, OWN_TOOL_NAMES } from './own-names.js';

/**
 * The most bytes the store keeps of one result, and so the most bytes of one message read from a
 * server: any answer read can be stored whole and comes back as a preview with an `obs_` id, and a
 * larger one fails its call with `upstream_result_too_large` without being held.
 */
export const MAX_ANSWER_BYTES = DEFAULT_OBSERVATION_STORE_BYTES;

/** The shared part of the proxy. */
export class ProxyCore {
  /** The upstream servers, in config order. */
  readonly upstreams: Upstream[];
  /** Where large results are kept for get_observation. */
  readonly store: ObservationStore = createObservationStore({ maxBytes: MAX_ANSWER_BYTES });
  /** The sandbox pool every session's run_js shares; each session is a scope of its own in it. */
  readonly pool: SandboxPool;
  /** When calls are recorded (`record`): each upstream tool records under its observations, so a record holds the whole output. */
  readonly recording: CallRecording | undefined;
  /** With `approvals: queue`: the runs every session paused for the person, until they answer. */
  readonly approvalQueue: ApprovalQueue | undefined;
  private readonly wrapped = new WeakMap<McpTool, ITool>();
  private readonly listeners = new Set<() => void>();
  private readonly reported = new Set<string>();

  constructor(
    readonly config: ProxyConfig,
    readonly composites: readonly CompositeFile[],
    readonly log: Log,
    options: { restart?: boolean; recording?: CallRecording } = {},
  ) {
    this.recording = options.recording;
    const approvals = approvalSettings(config);
    this.approvalQueue = approvals.mode === 'queue' ? new ApprovalQueue(approvals.maxPending, approvals.maxPendingPerSession) : undefined;
    this.pool = createSandboxPool(config.script?.pool);
    this.upstreams = Object.entries(config.servers).map(
      // With flows, a server's readOnlyHint makes a tool pure unless the config says not to trust its annotations.
      ([name, server]) =>
        new Upstream(name, config.flows && server.trustAnnotations === undefined ? { ...server, trustAnnotations: true } : server, config.base, log, () => this.changed(), {
          restart: options.restart ?? true,
          maxMessageBytes: MAX_ANSWER_BYTES,
        }),
    );
  }

  /** Start every upstream; resolves once each first attempt has ended. */
  async start(): Promise<void> {
    await Promise.all(this.upstreams.map((upstream) => upstream.start()));
  }

  /** Stop every upstream. */
  async close(): Promise<void> {
    await Promise.all(this.upstreams.map((upstream) => upstream.close()));
  }

  /** Call `listener` when any upstream's tools change; returns the function that stops it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The upstream tools as served, each wrapped with observations, in config order. A name already
   * taken (by the proxy's own tools or an earlier server) stays with its first holder; the
   * collision is reported once, naming both.
   */
  upstreamTools(): ITool[] {
    const own = this.approvalQueue ? [...OWN_TOOL_NAMES, RESUME_RUN_TOOL_NAME] : OWN_TOOL_NAMES;
    const holders = new Map<string, string>(own.map((name) => [name, 'the proxy itself']));
    const tools: ITool[] = [];
    for (const upstream of this.upstreams) {
      for (const tool of upstream.tools) {
        const holder = holders.get(tool.name);
        if (holder !== undefined) {
          this.collision(tool.name, `server "${upstream.name}"`, holder);
          continue;
        }
        holders.set(tool.name, `server "${upstream.name}"`);
        tools.push(this.observed(tool, upstream.name));
      }
    }
    return tools;
  }

  /**
   * The server serving tool `name` and the tool's own name there, as the tools stand now (the
   * first holder of a name that collided).
   */
  ownerOf(name: string): { upstream: Upstream; own: string } | undefined {
    for (const upstream of this.upstreams) {
      if (upstream.tools.some((tool) => tool.name === name)) {
        return { upstream, own: upstream.ownName(name) };
      }
    }
    return undefined;
  }

  /** The servers that are not up now (starting, down, given up), in config order. */
  notConnected(): Upstream[] {
    return this.upstreams.filter((upstream) => upstream.state !== 'up' && upstream.state !== 'closed');
  }

  /**
   * For a call to `name`, which no tool has: which servers are not connected and why, and that
   * the tool may be one of theirs when their tools are not known; `undefined` when all are up.
   */
  missingNote(name: string): string | undefined {
    const down = this.notConnected();
    if (down.length === 0) return undefined;
    const each = down.map((upstream) => `MCP server "${upstream.name}" is not connected: ${upstream.status()}.`).join(' ');
    const unknown = down.filter((upstream) => !upstream.toolsKnown).map((upstream) => `"${upstream.name}"`);
    if (unknown.length === 0) return each;
    const whose = down.length === 1 ? 'Its tools are' : `The tools of ${unknown.join(' and ')} are`;
    return `${each} ${whose} not known until ${unknown.length === 1 ? 'it is' : 'they are'} up, so "${name}" may be one of them.`;
  }

  /** For a session's instructions: the servers not connected now and why; `undefined` when all are up. */
  connectionNote(): string | undefined {
    const down = this.notConnected();
    if (down.length === 0) return undefined;
    const lines = down.map(
      (upstream) => `- "${upstream.name}": ${upstream.status()}.${upstream.toolsKnown ? '' : ' Its tools are not listed until it is up.'}`,
    );
    return [`MCP servers not connected now (a call to one of their tools answers upstream_unavailable, saying why):`, ...lines].join('\n');
  }

  /** Report a name collision once: `second` lost `name` to `first`. */
  collision(name: string, second: string, first: string): void {
    this.reportOnce('tool_name_collision', `tool "${name}" of ${second} is not served: ${first} already serves a tool by that name; set prefix: true on one of them`);
  }

  /** Report a problem once, however many sessions meet it. */
  reportOnce(code: string, message: string): void {
    const key = `${code} ${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.error(code, message);
  }

  private observed(tool: McpTool, server: string): ITool {
    let wrapped = this.wrapped.get(tool);
    if (!wrapped) {
      wrapped = withObservations(this.recording ? this.recording.wrap(tool) : tool, this.store);
      if (trustsServerTool(this.config.flows, server, tool)) wrapped.trustedOutput = true;
      this.wrapped.set(tool, wrapped);
    }
    return wrapped;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
