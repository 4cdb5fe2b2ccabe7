/**
 * A suite's tools as an MCP server, for replaying the injection suites through `toolweave mcp`:
 * served over Streamable HTTP from the bench's own process, so the bench reads each task's effects
 * off the environment object directly and resets it before each task without restarting anything.
 *
 * Only what MCP carries reaches the proxy: each tool's name, description, input schema and, from
 * `hasSideEffects`, its `readOnlyHint`. The suite's `trustedOutput`, `untrustedFields` and
 * `readers` stay here; the proxy learns them from its config's `flows` (see `proxy.ts`).
 *
 * MCP also changes the shape of some values, and a model writing against the proxy sees that shape,
 * so the suite's programs are rewritten to it ({@link overMcp}):
 *
 * - A result's structured content must be an object, so a list would arrive as JSON text that no
 *   declarative path can index. The server answers a list as `{ value: [...] }` (the convention the
 *   project's own test servers use), and every path into a list goes through `value`.
 */
import type { ITool, ToolExecutionResult } from '../../dist/index.js';
import { createMcpServer, serveHttp } from '../../dist/mcp/index.js';
import type { Environment, Programs, Suite } from './suite.js';

/** A suite being served. */
export interface ServedSuite {
  /** The Streamable HTTP endpoint. */
  url: string;
  /** The suite's tools as the suite made them (with the properties MCP does not carry). */
  tools: readonly ITool[];
  /** The tools whose output is a list, served as `{ value: [...] }`. */
  listTools: ReadonlySet<string>;
  /** The environment the tools act on now. */
  env(): Environment;
  /** A fresh environment, as before a task. */
  reset(): void;
  close(): Promise<void>;
}

/** Serve `suite`'s tools on 127.0.0.1, on a free port. */
export async function serveSuite(suite: Suite): Promise<ServedSuite> {
  let current = suite.environment();
  let byName = new Map(current.tools.map((tool) => [tool.name, tool]));
  const listTools = await findListTools(suite);
  // Stable tools that act on whichever environment is current: a reset changes no listing, so
  // neither the proxy nor its sessions see the tools change.
  const served: ITool[] = current.tools.map((tool) => {
    const { trustedOutput: _trusted, untrustedFields: _fields, readers: _readers, execute: _execute, ...carried } = tool;
    return {
      ...carried,
      execute: async (args, context): Promise<ToolExecutionResult> => {
        const result = await byName.get(tool.name)!.execute(args, context);
        return result.success && Array.isArray(result.output) ? { ...result, output: { value: result.output } } : result;
      },
    };
  });
  // Each proxy is one session here; the stdio rows start a proxy per task.
  const http = await serveHttp(() => createMcpServer(served, { name: `suite-${suite.name}`, version: '1.0.0' }), { maxSessions: 1000 });
  return {
    url: http.url,
    tools: current.tools,
    listTools,
    env: () => current.env,
    reset() {
      current = suite.environment();
      byName = new Map(current.tools.map((tool) => [tool.name, tool]));
    },
    close: () => http.close(),
  };
}

/** The pure tools whose output is a list, found by calling each once on an environment of its own. */
async function findListTools(suite: Suite): Promise<Set<string>> {
  const { tools } = suite.environment();
  const lists = new Set<string>();
  for (const tool of tools) {
    if (tool.hasSideEffects !== false) continue;
    const result = await tool.execute({}, {});
    if (result.success && Array.isArray(result.output)) lists.add(tool.name);
  }
  return lists;
}

/** A path of `untrustedFields` into `tool`'s output, as the output is served: a list's items are under `value`. */
export function fieldPathOverMcp(tool: string, path: string, listTools: ReadonlySet<string>): string {
  return listTools.has(tool) && /^(\*|\d)/u.test(path) ? `value.${path}` : path;
}

/**
 * A suite's programs as a model writes them against the proxy: every index into a list goes
 * through the list's `value`. In these suites a path indexes only lists (a step's output, a
 * pipeline's `output`, a `pick` path or a compose hole's path that starts with a position, a script's `JSON.parse` of a
 * call's text), so the rewrite is mechanical; each rewritten program is checked, through the
 * 'no flows' rows, by its task being done (or its attack succeeding) there.
 */
export function overMcp(programs: Programs): Programs {
  const rewrite = <T>(value: T, pattern: RegExp, replacement: string): T => JSON.parse(JSON.stringify(value).replace(pattern, replacement)) as T;
  return {
    composite: rewrite(programs.composite, /\$steps\.(\w+)\[/gu, '$$steps.$1.value['),
    run_pipeline: rewrite(programs.run_pipeline, /\$\{(\w+)\.output\[/gu, '$${$1.output.value['),
    compose: programs.compose === null ? null : rewrite(rewrite(programs.compose, /"path":"(\d)/gu, '"path":"value.$1'), /\{result\.(\d)/gu, '{result.value.$1'),
    run_js: parsedValue(programs.run_js),
  };
}

/** `JSON.parse(x)` as `JSON.parse(x).value`, its argument found by matching parentheses. */
function parsedValue(code: string): string {
  const open = 'JSON.parse(';
  let out = '';
  let from = 0;
  for (let at = code.indexOf(open); at >= 0; at = code.indexOf(open, from)) {
    let depth = 0;
    let end = at + open.length - 1;
    for (; end < code.length; end++) {
      if (code[end] === '(') depth++;
      else if (code[end] === ')' && --depth === 0) break;
    }
    if (depth !== 0) throw new Error(`unbalanced JSON.parse( in a program: ${code}`);
    out += `${code.slice(from, end + 1)}.value`;
    from = end + 1;
  }
  return out + code.slice(from);
}
