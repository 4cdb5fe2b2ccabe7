/**
 * `toolweave mcp`: the proxy. It starts the upstream servers, and serves their tools, each call
 * through the gate, plus run_pipeline, compose, run_js and get_observation over them and the
 * config's composites, on stdio or Streamable HTTP.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { recordCalls, recordToDirectory, renderUsageGuide, type ToolEvent } from '../index.js';
import { createMcpServer, serveHttp, serveStdio, type Serving } from '../mcp/index.js';
import { serveApprovals } from './approvals/endpoint.js';
import { removeEndpointFile, writeEndpointFile } from './approvals/endpoint-file.js';
import { approvalSettings } from './approvals/settings.js';
import { loadComposites } from './composites.js';
import type { ProxyConfig } from './config-types.js';
import type { Log } from './log.js';
import { ProxyCore } from './proxy-core.js';
import { createSession } from './session.js';
import { refusedEffects } from './snippets.js';

/** Where the proxy serves. */
export interface ProxyServing {
  /**
   * Streamable HTTP on this address, with the host names and origins its requests may name besides
   * this machine's; absent: stdio.
   */
  http?: { host: string; port: number; allowedHosts?: string[]; allowedOrigins?: string[] };
  /** The bearer token HTTP clients must send. */
  token?: string;
  /** On stdio, where the client's messages come from (default: the process's stdin). */
  stdin?: Readable;
}

/** A running proxy. */
export interface RunningProxy {
  /** The HTTP endpoint, when serving HTTP. */
  url?: string;
  /** Stop serving and stop every upstream server. */
  close(): Promise<void>;
}

/** The proxy's version, as it tells clients. */
const VERSION = '0.1.0';

/**
 * Start the upstream servers and serve. `stop`, aborted while the servers start, stops them at
 * once (not after their initialize timeouts), and nothing is served.
 */
export async function runProxy(config: ProxyConfig, serving: ProxyServing, log: Log, stop?: AbortSignal): Promise<RunningProxy> {
  const { composites, problems } = await loadComposites(config.composites ?? [], config.base);
  for (const problem of problems) log.error('config_invalid', problem);
  for (const [name, snippet] of Object.entries(config.scripts ?? {})) {
    for (const tool of refusedEffects(snippet, config.sideEffectingTools ?? [])) {
      log.error('step_not_chainable', `scripts.${name} declares "${tool}", which sideEffectingTools does not list: the script's calls to it are refused; list it there (or with --chain)`);
    }
  }
  const directory = config.record ? recordToDirectory(path.resolve(config.base, config.record)) : undefined;
  const recording = directory ? recordCalls([], (record) => directory.write(record)) : undefined;
  if (directory) log.info(`recording every upstream call to ${path.resolve(config.base, config.record!)}`);
  const core = new ProxyCore(config, composites, log, recording ? { recording } : {});
  let closeApprovals = async () => {};
  const closeCore = async () => {
    await closeApprovals();
    await core.close();
    directory?.close();
  };
  const onStop = () => void closeCore();
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  await core.start();
  stop?.removeEventListener('abort', onStop);
  if (stop?.aborted) return { close: closeCore };
  if (core.approvalQueue) {
    // The person's side of the queue: an endpoint on 127.0.0.1, its token in a file only this user reads.
    const port = approvalSettings(config).port;
    try {
      const endpoint = await serveApprovals(core.approvalQueue, port);
      closeApprovals = () => endpoint.close();
      const file = await writeEndpointFile({ url: endpoint.url, token: endpoint.token, pid: process.pid });
      closeApprovals = async () => {
        await removeEndpointFile(file);
        await endpoint.close();
      };
      log.info(`approvals are queued for the person: \`toolweave approvals list\`, \`approve <id>\` or \`refuse <id>\` answers them, or ${endpoint.url} with the bearer token in ${file}`);
    } catch (error) {
      await closeCore();
      throw new Error(`the approvals endpoint cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
    }
  }

  const newServer = (): Server => {
    let server: Server | undefined;
    const session = createSession(core, () => server);
    // The guide (describing discovery when tools are found from run_js), and which servers are not
    // connected as the session begins (instructions are sent once).
    const discovery = session.discovery;
    const usage = renderUsageGuide(session.list.current(), {
      sideEffectingTools: config.sideEffectingTools ?? [],
      ...(discovery ? { discovery: { tools: discovery.catalog.tools(), groups: discovery.catalog.groups() } } : {}),
    });
    const guide = [usage, core.connectionNote()].filter(Boolean).join('\n\n');
    server = createMcpServer(session.list, {
      name: 'toolweave',
      version: VERSION,
      gate: session.gate,
      ...(guide ? { instructions: guide } : {}),
      ...(config.strictSchemas === true ? { strictSchemas: true } : {}),
      context: () => contextOf(log, recording?.onEvent),
      onCancelled: (call, result) => log.info(`call ${call.tool} was cancelled by the client; effects so far: ${JSON.stringify(result.effects ?? [])}`),
    });
    const onclose = server.onclose;
    server.onclose = () => {
      session.dispose();
      onclose?.();
    };
    return server;
  };

  let served: Serving & { url?: string };
  try {
    if (serving.http) {
      served = await serveHttp(newServer, { ...serving.http, ...(serving.token ? { token: serving.token } : {}) });
      log.info(`serving MCP over Streamable HTTP at ${served.url}${serving.token ? ' (bearer token required)' : ''}`);
    } else {
      served = await serveStdio(newServer(), serving.stdin ? { stdin: serving.stdin } : {});
    }
  } catch (error) {
    await closeCore();
    throw error;
  }
  return {
    ...(served.url ? { url: served.url } : {}),
    async close() {
      await served.close().catch(() => undefined);
      await closeCore();
    },
  };
}

/** The context of a client's call: the listeners of `--verbose` and of the recording, when on. */
function contextOf(log: Log, record: ((event: ToolEvent) => void) | undefined): { onEvent?: (event: ToolEvent) => void } {
  if (!log.isVerbose) return record ? { onEvent: record } : {};
  if (!record) return { onEvent: (event) => logCall(log, event) };
  return {
    onEvent: (event) => {
      record(event);
      logCall(log, event);
    },
  };
}

/** The most characters of a failure's message in a `--verbose` line. */
const MAX_LOGGED_ERROR_CHARS = 400;

/**
 * One line per call and its verdict (`--verbose`): each call a client makes, and each call made
 * under it by a script, a pipeline, a compose tree or a composite, a refused one with its code
 * and why.
 */
function logCall(log: Log, event: ToolEvent): void {
  if (event.type !== 'call_ended') return;
  const where = event.door ? ` in ${event.door}, step ${event.step}` : '';
  let verdict = event.ok ? 'ok' : (event.code ?? 'failed');
  if (!event.ok && event.error) {
    const why = event.error.replace(/\s+/gu, ' ');
    verdict += `: ${why.length > MAX_LOGGED_ERROR_CHARS ? `${why.slice(0, MAX_LOGGED_ERROR_CHARS)}...` : why}`;
  }
  log.verbose(`call ${event.tool}${where}: ${verdict} (${Math.round(event.ms)} ms)`);
}
