/**
 * The command line of the `toolweave` bin:
 *
 *     toolweave mcp [--config FILE] [--trust-annotations] [--chain a,b] [--code-only] [--strict-schemas] [--http [HOST:]PORT]
 *                   [--allowed-hosts a,b] [--allowed-origins a,b] [--max-calls n] [--verbose] [--] [COMMAND ARGS...]
 *     toolweave check --config FILE
 *     toolweave forge DIR --out DIR [--min-sessions n]
 *     toolweave forge --from-run FILE|DIR --run ID --out DIR
 *     toolweave approvals list [--json] | approve <id> | refuse <id> [--reason text]
 *     toolweave schema
 */

import { hostName, NOT_A_HOST, NOT_AN_ORIGIN, originOf, parseAll } from '../mcp/http-hosts.js';

/** Where `toolweave mcp --http` listens, and the hosts and origins its requests may name. */
export interface HttpArgs {
  host: string;
  port: number;
  /** Host names a request's Host header may give besides this machine's (`--allowed-hosts`). */
  allowedHosts?: string[];
  /** Origins a browser's request may come from besides the allowed hosts' pages (`--allowed-origins`). */
  allowedOrigins?: string[];
}

/** What `toolweave mcp` was asked to do. */
export interface McpArgs {
  command: 'mcp';
  /** The config file, if any. */
  config?: string;
  /** The server to start: the first word that is not an option, or what follows `--`, and every word after it. */
  upstream?: string[];
  /** Trust the annotations of the server given on the command line. */
  trustAnnotations: boolean;
  /** Side-effecting tools that may be chained. */
  chain: string[];
  /** Offer only run_js and get_observation. */
  codeOnly: boolean;
  /** List run_pipeline and compose in their strict forms (absent: not asked). */
  strictSchemas?: boolean;
  /** Serve Streamable HTTP here instead of stdio. */
  http?: HttpArgs;
  /** Log each call and its verdict. */
  verbose: boolean;
  /** How many calls one run_js run may make (the config's `script.maxCalls`). */
  maxCalls?: number;
  /** Record every upstream call into this folder (the config's `record`). */
  record?: string;
}

/** What `toolweave check` was asked to do. */
export interface CheckArgs {
  command: 'check';
  config: string;
}

/** What `toolweave forge` was asked to do. */
export interface ForgeArgs {
  command: 'forge';
  /** The recordings folder. */
  recordings: string;
  /** Where the composite files go. */
  out: string;
  /** The fewest sessions a chain must be seen in (default 3). */
  minSessions: number;
  /** With `--from-run`: the run to forge from (`recordings` is then a file or a folder). */
  run?: string;
}

/** What `toolweave approvals` was asked to do. */
export type ApprovalsArgs =
  | { command: 'approvals'; action: 'list'; json: boolean }
  | { command: 'approvals'; action: 'approve'; id: string }
  | { command: 'approvals'; action: 'refuse'; id: string; reason?: string };

/** Every command. */
export type CliArgs = McpArgs | CheckArgs | ForgeArgs | ApprovalsArgs | { command: 'schema' } | { command: 'help' } | { command: 'version' };

/** A command line that cannot be run; the message says what to write instead. */
export class UsageError extends Error {}

/** The usage text. */
export const USAGE = `Usage:
  toolweave mcp [options] [--] <command> [args...]
                                           serve one MCP server's tools, plus run_pipeline, compose,
                                           run_js and get_observation over them, on stdio (the
                                           command starts at the first word that is not an option)
  toolweave mcp --config toolweave.yaml    the same for every server in the config, with composites
                                           (a config or a command, not both)
  toolweave check --config toolweave.yaml  connect to every server, check every composite, run its examples
  toolweave forge <dir> --out <dir> [--min-sessions n]
                                           find the chains of calls seen in n sessions or more
                                           (default 3) of the recordings in <dir> (mcp --record) and
                                           write each as a composite file with examples; nothing is
                                           served until you add a file to a config's composites
  toolweave forge --from-run <file or dir> --run <id> --out <dir>
                                           write one composite file from one recorded run_js or
                                           run_pipeline run whose calls form a chain, a loop or a
                                           fan-out; a run whose calls depend on its data is refused,
                                           saying why, and nothing is written
  toolweave approvals list [--json]        the approvals waiting in the running proxies (approvals: queue)
  toolweave approvals approve <id>         approve a call (<run>.<n>), or every call of a run (<run>)
  toolweave approvals refuse <id> [--reason text]
                                           refuse it; the model reads the reason when it resumes
  toolweave schema                         print the config file's JSON Schema

Options of mcp:
  --trust-annotations   the server on the command line is trusted: readOnlyHint true makes a tool pure
  --chain a,b           side-effecting tools that may be chained
  --code-only           offer only run_js and get_observation: a script finds the other tools
                        (searchTools, describeTools) and calls them (tools.<name>)
  --strict-schemas      list run_pipeline and compose in their strict forms (a step's args, compose's
                        tree, as JSON text; null for a field left out), for clients whose strict
                        mode cannot take open objects (OpenAI Agents' convertSchemasToStrict)
  --http [host:]port    serve Streamable HTTP (default host 127.0.0.1); set TOOLWEAVE_MCP_TOKEN to require a bearer token
  --allowed-hosts a,b   with --http: host names a request's Host header may give besides this machine's
                        loopback and the address listened on (listening on 0.0.0.0, name this machine)
  --allowed-origins a,b with --http: origins (https://app.example) a browser's request may come from
                        besides the pages of the allowed hosts
  --max-calls n         how many calls one run_js run may make (default 1000)
  --record dir          record every call to an upstream tool (arguments, output, outcome, time) as
                        JSON lines, one file per client session, for toolweave forge (off by default)
  --verbose             log each call, and each call a script, pipeline or compose makes, with its
                        verdict to stderr (a refused one with its code and why)`;

/** Read the command line (without `node` and the script). */
export function parseArgs(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  // No command is a mistake (a script that forgot it must not pass for one that ran), not a request for help.
  if (command === undefined) throw new UsageError('Give a command.');
  if (command === 'help' || asksHelp([command])) return { command: 'help' };
  if (command === '--version' || command === '-v') return { command: 'version' };
  if (command === 'schema') return { command: 'schema' };
  if (['check', 'forge', 'approvals'].includes(command) && asksHelp(rest)) return { command: 'help' };
  if (command === 'check') {
    const options = readOptions(rest, ['--config']);
    if (!options.config) throw new UsageError('toolweave check needs --config <file>.');
    return { command: 'check', config: options.config };
  }
  if (command === 'forge') return forgeArgs(rest);
  if (command === 'approvals') return approvalsArgs(rest);
  if (command !== 'mcp') throw new UsageError(`Unknown command "${command}".`);
  const valued = ['--config', '--chain', '--http', '--allowed-hosts', '--allowed-origins', '--max-calls', '--record'];
  const { own, upstream } = splitUpstream(rest, valued);
  // A --help after the server's command is the server's.
  if (asksHelp(own)) return { command: 'help' };
  const options = readOptions(own, valued, ['--trust-annotations', '--code-only', '--strict-schemas', '--verbose']);
  if (upstream !== undefined && upstream.length === 0) throw new UsageError('Nothing after --: give the command that starts the MCP server.');
  if (!upstream && !options.config) throw new UsageError('toolweave mcp needs a server: <command> [args...], or --config <file>.');
  // Both would serve the config's servers and the command's side by side, and a server named in
  // both would collide with itself, tool by tool: one place says which servers run.
  if (upstream && options.config) {
    throw new UsageError(
      `toolweave mcp takes its servers from --config <file> or from the command line, not both: add it to the config's servers (servers: { <name>: { command, args } }) and leave out the command. Got --config ${options.config} and the command "${upstream.join(' ')}".`,
    );
  }
  for (const option of ['allowed-hosts', 'allowed-origins']) {
    if (options[option] !== undefined && !options.http) throw new UsageError(`--${option} applies to --http: add --http [host:]port.`);
  }
  const maxCalls = options['max-calls'];
  if (maxCalls !== undefined && !/^\d{1,9}$/u.test(maxCalls)) throw new UsageError(`--max-calls takes a whole number of calls, such as 2000 (got "${maxCalls}").`);
  return {
    command: 'mcp',
    ...(maxCalls !== undefined ? { maxCalls: Number(maxCalls) } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.record ? { record: options.record } : {}),
    ...(upstream ? { upstream } : {}),
    trustAnnotations: options['--trust-annotations'] === 'true',
    chain: (options.chain ?? '').split(',').map((name) => name.trim()).filter(Boolean),
    codeOnly: options['--code-only'] === 'true',
    ...(options['--strict-schemas'] === 'true' ? { strictSchemas: true } : {}),
    ...(options.http ? { http: httpArgs(options) } : {}),
    verbose: options['--verbose'] === 'true',
  };
}

/**
 * Split `mcp`'s words into its own and the upstream server's command. The command starts after
 * `--`, or without it at the first word that is neither an option nor an option's value: some
 * clients that pass a command line through (the MCP Inspector's CLI) drop a `--`. Every word after
 * the start is the server's, options included.
 */
function splitUpstream(args: readonly string[], valued: readonly string[]): { own: readonly string[]; upstream?: string[] } {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return { own: args.slice(0, i), upstream: args.slice(i + 1) };
    if (!arg.startsWith('-')) return { own: args.slice(0, i), upstream: args.slice(i) };
    // An option's value is its own word, not the command; a missing value is readOptions' to report.
    if (valued.includes(arg) && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) i++;
  }
  return { own: args };
}

/** `forge <dir> --out <dir> [--min-sessions n]`, or `forge --from-run <file or dir> --run <id> --out <dir>`. */
function forgeArgs(rest: readonly string[]): ForgeArgs {
  if (rest.includes('--from-run')) {
    const options = readOptions(rest, ['--from-run', '--run', '--out']);
    if (!options['from-run']) throw new UsageError('--from-run needs the recording: a file or the folder toolweave mcp --record wrote.');
    if (!options.run) throw new UsageError('toolweave forge --from-run needs --run <id>, the run to forge from (the "run" field of its records).');
    if (!options.out) throw new UsageError('toolweave forge needs --out <dir>, the folder the composite file is written to.');
    return { command: 'forge', recordings: options['from-run'], out: options.out, minSessions: 1, run: options.run };
  }
  const [recordings, ...more] = rest;
  if (recordings === undefined || recordings.startsWith('--')) throw new UsageError('toolweave forge needs the recordings folder: toolweave forge <dir> --out <dir>.');
  const options = readOptions(more, ['--out', '--min-sessions']);
  if (!options.out) throw new UsageError('toolweave forge needs --out <dir>, the folder the composite files are written to.');
  const min = options['min-sessions'];
  if (min !== undefined && !/^[1-9]\d{0,5}$/u.test(min)) throw new UsageError(`--min-sessions takes a whole number of sessions, 1 or more, such as 3 (got "${min}").`);
  return { command: 'forge', recordings, out: options.out, minSessions: min === undefined ? 3 : Number(min) };
}

/** `approvals list [--json] | approve <id> | refuse <id> [--reason text]`. */
function approvalsArgs(rest: readonly string[]): ApprovalsArgs {
  const [action, ...more] = rest;
  if (action === 'list') {
    const options = readOptions(more, [], ['--json']);
    return { command: 'approvals', action: 'list', json: options['--json'] === 'true' };
  }
  if (action !== 'approve' && action !== 'refuse') throw new UsageError('toolweave approvals takes list, approve <id> or refuse <id> [--reason text].');
  const [id, ...after] = more;
  if (id === undefined || !/^[A-Za-z0-9]{1,40}(\.\d{1,6})?$/u.test(id)) throw new UsageError(`toolweave approvals ${action} needs the id of an approval, such as q3Fx9a.1 or q3Fx9a (see toolweave approvals list).`);
  if (action === 'approve') {
    readOptions(after, []);
    return { command: 'approvals', action, id };
  }
  const options = readOptions(after, ['--reason']);
  return { command: 'approvals', action, id, ...(options.reason ? { reason: options.reason } : {}) };
}

/** `--name value` options and `--flag` switches; anything else is a usage error. */
function readOptions(args: readonly string[], valued: readonly string[], switches: readonly string[] = []): Record<string, string | undefined> {
  const options: Record<string, string | undefined> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (switches.includes(arg)) {
      options[arg] = 'true';
    } else if (valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value.`);
      options[arg.slice(2)] = value;
    } else {
      throw new UsageError(`Unknown option "${arg}".`);
    }
  }
  return options;
}

/** Whether `words` ask for the usage. */
function asksHelp(words: readonly string[]): boolean {
  return words.includes('--help') || words.includes('-h');
}

/** `--http` and the lists that go with it. */
function httpArgs(options: Record<string, string | undefined>): HttpArgs {
  const hosts = options['allowed-hosts'];
  const origins = options['allowed-origins'];
  const fail = (message: string) => new UsageError(message);
  return {
    ...hostPort(options.http!),
    ...(hosts !== undefined ? { allowedHosts: parseAll(listOf(hosts, '--allowed-hosts', 'host name'), hostName, '--allowed-hosts', NOT_A_HOST, fail) } : {}),
    ...(origins !== undefined ? { allowedOrigins: parseAll(listOf(origins, '--allowed-origins', 'origin'), originOf, '--allowed-origins', NOT_AN_ORIGIN, fail) } : {}),
  };
}

/** A comma-separated list, its entries trimmed; an empty one is a usage error. */
function listOf(text: string, option: string, what: string): string[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) throw new UsageError(`${option} needs at least one ${what}, comma-separated.`);
  return entries;
}

/** `8080`, `127.0.0.1:8080` or `[::1]:8080`. */
function hostPort(text: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/u.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new UsageError(`--http takes [host:]port, such as 8808 or 127.0.0.1:8808; got "${text}".`);
  return { host: match[1]?.replace(/^\[|\]$/gu, '') ?? '127.0.0.1', port };
}
