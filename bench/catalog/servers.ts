/**
 * The nine MCP servers of the catalog bench, as installed (exact-pinned devDependencies) and as a
 * toolweave config starts them: the reference servers everything, filesystem and memory, the
 * archived github, gitlab and slack servers, Notion's, Playwright's and Chrome DevTools'. Each lists
 * its tools without the network, without a browser and without a real account:
 *
 * - gitlab and slack refuse to start without their variables, so they get placeholders; listing
 *   tools makes no request, and no call is made to them;
 * - chrome-devtools-mcp is told not to check for updates nor send usage statistics (it would reach
 *   for the network at start); it starts Chrome only on a tool call, never to list;
 * - Playwright's server needs a browser only on a tool call; no browser is installed here.
 *
 * github and gitlab name eight tools alike (create_issue, push_files, ...), so both are prefixed
 * (`github__create_issue`): one client sees every tool once.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

/** One server of the catalog: its package, the file that starts it, its arguments and variables. */
export interface CatalogServer {
  /** Its name in the config (the tool group the model is told of). */
  name: string;
  /** The npm package that ships it. */
  package: string;
  /** The file that starts it, inside the package. */
  entry: string;
  /** Its arguments; `{dir}` stands for a folder of its own. */
  args: string[];
  /** Variables it needs to start; `{dir}` as above. */
  env: Record<string, string>;
  /** Its tools are named `<name>__<tool>` behind the proxy. */
  prefix: boolean;
}

/** The nine servers, in the order a config lists them. */
export const CATALOG_SERVERS: readonly CatalogServer[] = [
  { name: 'everything', package: '@modelcontextprotocol/server-everything', entry: 'dist/index.js', args: ['stdio'], env: {}, prefix: false },
  { name: 'filesystem', package: '@modelcontextprotocol/server-filesystem', entry: 'dist/index.js', args: ['{dir}'], env: {}, prefix: false },
  { name: 'memory', package: '@modelcontextprotocol/server-memory', entry: 'dist/index.js', args: [], env: { MEMORY_FILE_PATH: '{dir}/memory.jsonl' }, prefix: false },
  { name: 'github', package: '@modelcontextprotocol/server-github', entry: 'dist/index.js', args: [], env: {}, prefix: true },
  { name: 'gitlab', package: '@modelcontextprotocol/server-gitlab', entry: 'dist/index.js', args: [], env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'placeholder-not-used-to-list' }, prefix: true },
  { name: 'slack', package: '@modelcontextprotocol/server-slack', entry: 'dist/index.js', args: [], env: { SLACK_BOT_TOKEN: 'placeholder-not-used-to-list', SLACK_TEAM_ID: 'placeholder' }, prefix: false },
  { name: 'notion', package: '@notionhq/notion-mcp-server', entry: 'bin/cli.mjs', args: [], env: {}, prefix: false },
  { name: 'playwright', package: '@playwright/mcp', entry: 'cli.js', args: [], env: {}, prefix: false },
  {
    name: 'chrome-devtools',
    package: 'chrome-devtools-mcp',
    entry: 'build/src/bin/chrome-devtools-mcp.js',
    args: ['--no-usage-statistics'],
    env: { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
    prefix: false,
  },
];

/** The folder a package is installed in. */
export function packageDir(name: string): string {
  return path.join(REPO, 'node_modules', name);
}

/** The installed version of a package. */
export function installedVersion(name: string): string {
  return (require(path.join(packageDir(name), 'package.json')) as { version: string }).version;
}

/** How to start `server` with node, its own folder under `dir` standing for `{dir}`. */
export function launchOf(server: CatalogServer, dir: string): { command: string; args: string[]; env: Record<string, string> } {
  const fill = (text: string) => text.replaceAll('{dir}', dir);
  return {
    command: process.execPath,
    args: [path.join(packageDir(server.package), server.entry), ...server.args.map(fill)],
    env: Object.fromEntries(Object.entries(server.env).map(([key, value]) => [key, fill(value)])),
  };
}

/** A toolweave config (as JSON) that starts every server, each with a folder of its own under `root`. */
export function catalogConfig(root: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const server of CATALOG_SERVERS) {
    const dir = path.join(root, server.name);
    const launch = launchOf(server, dir);
    servers[server.name] = { ...launch, cwd: dir, ...(server.prefix ? { prefix: true } : {}), initTimeoutMs: 60_000 };
  }
  return { servers, ...extra };
}
