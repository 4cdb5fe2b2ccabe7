#!/usr/bin/env node
/**
 * The `toolweave` bin: `toolweave mcp` (the proxy), `toolweave check` (the forge-time check),
 * `toolweave forge` (composite files from recorded calls), `toolweave approvals` (answering the
 * approvals a proxy queued) and
 * `toolweave schema` (the config's JSON Schema). The MCP SDK, a dependency of the package, is
 * loaded only by the commands that use it, so `--help` and `schema` start without it.
 */
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { stopEveryGroup } from '../mcp/process-group.js';
import { parseArgs, USAGE, UsageError, type McpArgs } from './args.js';
import { ConfigError, loadConfig } from './config.js';
import type { ProxyConfig } from './config-types.js';
import { PUBLISHED_SCHEMA } from './config-schema.js';
import { createLog } from './log.js';

/**
 * How long the bin waits for its servers to stop once asked to end (their stdin closed, then
 * SIGTERM, then SIGKILL take up to 5 s); past it, it exits, and its exit kills whatever is left.
 */
const CLOSE_BOUND_MS = 10_000;
/** How long an interrupted `check` gives its servers after SIGTERM, before SIGKILL. */
const CHECK_STOP_GRACE_MS = 2_000;

async function main(argv: readonly string[]): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`toolweave: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  switch (args.command) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write('0.1.0\n');
      return 0;
    case 'schema':
      process.stdout.write(`${JSON.stringify(PUBLISHED_SCHEMA, null, 2)}\n`);
      return 0;
    case 'check': {
      const log = createLog();
      const config = await configOf(() => loadConfig(args.config), log);
      if (!config) return 1;
      const stop = onStopRequest();
      const { runCheck } = await import('./check.js');
      const report = await Promise.race([runCheck(config, log), aborted(stop)]);
      if (!report) {
        log.info('check was stopped before it finished; stopping its servers');
        await stopEveryGroup(CHECK_STOP_GRACE_MS);
        return 1;
      }
      process.stdout.write(`${report.lines.join('\n')}\n`);
      return report.ok ? 0 : 1;
    }
    case 'forge': {
      const { runForge } = await import('./forge.js');
      const report = await runForge(args);
      for (const problem of report.problems) process.stderr.write(`toolweave forge: ${problem}\n`);
      if (report.lines.length) process.stdout.write(`${report.lines.join('\n')}\n`);
      return report.ok ? 0 : 1;
    }
    case 'approvals': {
      const { runApprovals } = await import('./approvals/command.js');
      const report = await runApprovals(args);
      for (const problem of report.problems) process.stderr.write(`toolweave approvals: ${problem}\n`);
      if (report.lines.length) process.stdout.write(`${report.lines.join('\n')}\n`);
      return report.ok ? 0 : 1;
    }
    case 'mcp':
      return runMcp(args);
  }
}

async function runMcp(args: McpArgs): Promise<number> {
  const log = createLog({ verbose: args.verbose });
  const config = await configOf(() => mcpConfig(args), log);
  if (!config) return 1;
  // Listened for before any server starts: an end asked for while they start stops them too.
  const stop = onStopRequest();
  // On stdio the client ends the session by closing the proxy's stdin, and may do so before the
  // servers are up: stdin is read from now on, its messages kept for the session.
  const stdin = args.http ? undefined : clientInput(stop);
  const { runProxy } = await import('./proxy.js');
  const token = process.env.TOOLWEAVE_MCP_TOKEN || undefined;
  const proxy = await runProxy(config, { ...(args.http ? { http: args.http } : {}), ...(token ? { token } : {}), ...(stdin ? { stdin } : {}) }, log, stop.signal);
  await aborted(stop);
  const closed = await Promise.race([proxy.close().then(() => true), new Promise<false>((resolve) => setTimeout(resolve, CLOSE_BOUND_MS, false))]);
  if (!closed) log.info(`the servers did not all stop within ${CLOSE_BOUND_MS} ms; what is left of them is killed`);
  return 0;
}

/**
 * A controller aborted at SIGINT or SIGTERM. A second signal exits at once: the exit still kills
 * every server's process group, without the wait.
 */
function onStopRequest(): AbortController {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return stop;
}

/** Resolves (with `undefined`) once `stop` is aborted. */
function aborted(stop: AbortController): Promise<undefined> {
  return new Promise((resolve) => {
    if (stop.signal.aborted) return resolve(undefined);
    stop.signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}

/** The client's messages, read from stdin from now on; its end (or failure) aborts `stop`. */
function clientInput(stop: AbortController): Readable {
  const input = new PassThrough();
  const end = () => stop.abort();
  process.stdin.once('end', end).once('close', end).once('error', end);
  process.stdin.pipe(input);
  return input;
}

/** The config from a file, with the command line's additions. */
async function mcpConfig(args: McpArgs): Promise<ProxyConfig> {
  const config: ProxyConfig = args.config ? await loadConfig(args.config) : { servers: {}, base: process.cwd(), source: 'the command line' };
  if (args.upstream) {
    const [command, ...rest] = args.upstream;
    config.servers = { ...config.servers, upstream: { command, args: rest, cwd: process.cwd(), trustAnnotations: args.trustAnnotations } };
    config.commandLineServer = 'upstream';
  }
  if (args.chain.length) config.sideEffectingTools = [...(config.sideEffectingTools ?? []), ...args.chain];
  if (args.maxCalls !== undefined) config.script = { ...config.script, maxCalls: args.maxCalls };
  if (args.codeOnly) config.codeOnly = true;
  if (args.strictSchemas) config.strictSchemas = true;
  // Relative to where the command runs, as every path on the command line.
  if (args.record) config.record = path.resolve(args.record);
  return config;
}

/** Load a config; a wrong one is reported with its code and gives `undefined`. */
async function configOf(load: () => Promise<ProxyConfig>, log: ReturnType<typeof createLog>): Promise<ProxyConfig | undefined> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) log.error(error.code, problem);
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`toolweave: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

