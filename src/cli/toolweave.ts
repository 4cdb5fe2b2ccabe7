#!/usr/bin/env node
/**
 * The `toolweave` bin: `toolweave mcp` (the proxy), `toolweave check` (the forge-time check) and
 * `toolweave schema` (the config's JSON Schema). The commands load the MCP SDK, an optional peer
 * dependency, only when run, so a missing SDK is a message that says what to install.
 */
import { parseArgs, USAGE, UsageError, type McpArgs } from './args.js';
import { ConfigError, loadConfig, type ProxyConfig } from './config.js';
import { PUBLISHED_SCHEMA } from './config-schema.js';
import { createLog } from './log.js';

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
      const { runCheck } = await import('./check.js');
      const report = await runCheck(config, log);
      process.stdout.write(`${report.lines.join('\n')}\n`);
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
  const { runProxy } = await import('./proxy.js');
  const token = process.env.TOOLWEAVE_MCP_TOKEN || undefined;
  const proxy = await runProxy(config, { ...(args.http ? { http: args.http } : {}), ...(token ? { token } : {}) }, log);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    // On stdio the client ends the session by closing the proxy's stdin.
    if (!args.http) process.stdin.once('close', resolve).once('end', resolve);
  });
  await proxy.close();
  return 0;
}

/** The config from a file, with the command line's additions. */
async function mcpConfig(args: McpArgs): Promise<ProxyConfig> {
  const config: ProxyConfig = args.config ? await loadConfig(args.config) : { servers: {}, base: process.cwd(), source: 'the command line' };
  if (args.upstream) {
    const [command, ...rest] = args.upstream;
    if (config.servers.upstream) throw new ConfigError([`${config.source}: servers.upstream: the server started after -- is named "upstream"; rename the one in the config`]);
    config.servers = { ...config.servers, upstream: { command, args: rest, cwd: process.cwd(), trustAnnotations: args.trustAnnotations } };
  }
  if (args.chain.length) config.sideEffectingTools = [...(config.sideEffectingTools ?? []), ...args.chain];
  if (args.codeOnly) config.codeOnly = true;
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
    const missing = (error as NodeJS.ErrnoException)?.code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('@modelcontextprotocol/sdk');
    process.stderr.write(
      missing
        ? 'toolweave: this command needs the MCP SDK, an optional peer dependency: npm install @modelcontextprotocol/sdk@1\n'
        : `toolweave: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);

