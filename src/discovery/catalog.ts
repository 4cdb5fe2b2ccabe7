/**
 * Search and describe a catalog of tools: `searchTools` ranks the tools for a need (BM25 over
 * names, descriptions and arguments) and gives each with its TypeScript declaration;
 * `describeTools` gives the declarations of named tools and reports the names it does not know.
 * Both are pure functions over a tool list; {@link createToolCatalog} keeps the index of a
 * registry that changes, rebuilding it only when the registry did.
 */
import { closestNames } from '../gate/suggest.js';
import type { ITool } from '../tool.js';
import { renderDeclaration, renderDeclarations, type DeclaredTool } from './declarations.js';
import { buildToolIndex, DEFAULT_SEARCH_LIMIT, type ToolIndex } from './ranking.js';

/**
 * A tool of a catalog: what a declaration is made of, and the group (server) it belongs to.
 *
 * @category Code mode / discovery
 */
export type CatalogEntry = DeclaredTool & {
  /** The group it belongs to (its server), if any; see {@link groupOfTool}. */
  group?: string;
  /** An ITool's id; an MCP tool's (`mcp:<server>:<tool>`) names its group. */
  id?: string;
};

/**
 * One tool as a search or a description gives it.
 *
 * @category Code mode / discovery
 */
export interface ToolDescription {
  /** The name to call it by: `tools.<name>(args)`, or `tools["<name>"](args)`. */
  name: string;
  /** What it does, as the tool says. */
  description: string;
  /** Its TypeScript method signature (the description is beside it, not repeated in it). */
  declaration: string;
}

/**
 * A name {@link describeTools} does not know, with the names closest to it.
 *
 * @category Code mode / discovery
 */
export interface UnknownTool {
  /** The name asked for. */
  name: string;
  /** Catalog names close to it in spelling or meaning, best first (may be empty). */
  didYouMean: string[];
}

/**
 * What {@link describeTools} gives: the tools found, in the order asked, and the names not found.
 *
 * @category Code mode / discovery
 */
export interface DescribedTools {
  /** The tools found. */
  tools: ToolDescription[];
  /** The names not found (empty when every name was). */
  unknown: UnknownTool[];
}

/**
 * A group of a catalog and how many tools it holds.
 *
 * @category Code mode / discovery
 */
export interface ToolGroup {
  /** The group's name (a server's name); `undefined` gathers the tools of no group. */
  name: string | undefined;
  /** Its tools. */
  count: number;
}

/** The most names one "did you mean" offers. */
const MAX_SUGGESTIONS = 3;

/**
 * The group a tool belongs to: its `group`, else the server an MCP tool's id names
 * (`mcp:<server>:<tool>`, as `mcpTools` sets it), else none.
 *
 * @category Code mode / discovery
 */
export function groupOfTool(tool: CatalogEntry): string | undefined {
  if (typeof tool.group === 'string' && tool.group) return tool.group;
  const match = typeof tool.id === 'string' ? /^mcp:([^:]+):/u.exec(tool.id) : null;
  return match?.[1];
}

/**
 * Search `tools` for a query, best match first.
 *
 * The tools of `tools` that best match `query` (BM25 over names, descriptions and arguments),
 * best first, at most `limit` (default 5, at most 50); a query that matches no word finds none.
 * Builds the index on every call: to search one catalog many times, use {@link createToolCatalog}.
 *
 * @example
 * ```ts
 * searchTools(registry.tools(), 'read a file', 3);
 * // [{ name: 'read_text_file', description: 'Read ...', declaration: 'read_text_file(args: { path: string; ... }): Promise<string>;' }, ...]
 * ```
 *
 * @category Code mode / discovery
 */
export function searchTools(tools: readonly CatalogEntry[], query: string, limit: number = DEFAULT_SEARCH_LIMIT): ToolDescription[] {
  return search(indexOf(tools), byName(tools), query, limit, new WeakMap());
}

/**
 * The declarations of the tools named, in the order named (each once).
 *
 * Names not in `tools` are
 * reported in `unknown`, each with the closest names by spelling and by meaning.
 *
 * @example
 * ```ts
 * describeTools(registry.tools(), ['read_text_file', 'raed_file']);
 * // { tools: [{ name: 'read_text_file', ... }], unknown: [{ name: 'raed_file', didYouMean: ['read_file', ...] }] }
 * ```
 *
 * @category Code mode / discovery
 */
export function describeTools(tools: readonly CatalogEntry[], names: readonly string[]): DescribedTools {
  return describe(() => indexOf(tools), byName(tools), names, new WeakMap());
}

/**
 * Options of {@link createToolCatalog}.
 *
 * @category Code mode / discovery
 */
export interface ToolCatalogOptions {
  /**
   * The registry's version (a gate's `version`, a {@link ToolRegistry}'s): while it is the same,
   * the tools are not read again. Without it, the tools are read on every use and the index is
   * rebuilt when any of them is another object than before.
   */
  version?: () => unknown;
  /** Leave these tools out of the catalog (the door itself, tools a script may not call). */
  exclude?: (tool: ITool) => boolean;
}

/**
 * A catalog that follows a registry: searched, described and summed up as it stands now.
 *
 * @category Code mode / discovery
 */
export interface ToolCatalog {
  /** The tools it holds now. */
  tools(): readonly ITool[];
  /** See {@link searchTools}. */
  search(query: string, limit?: number): ToolDescription[];
  /** See {@link describeTools}. */
  describe(names: readonly string[]): DescribedTools;
  /** Its groups in the order their first tools come, with counts; tools of no group last, as one. */
  groups(): ToolGroup[];
  /** Every tool as one `declare const tools: { ... }` (see {@link renderDeclarations}). */
  declarations(): string;
}

/**
 * A catalog of a registry's tools to search and describe, kept up to date as the registry changes.
 *
 * A catalog over `source` (the registry's tools as they are now): the index and the declarations
 * are built when first needed and again only after the registry changes.
 *
 * @example
 * ```ts
 * const registry = createToolRegistry(tools);
 * const catalog = createToolCatalog(() => registry.tools(), { version: () => registry.version });
 * catalog.search('take a screenshot', 3);
 * ```
 *
 * @category Code mode / discovery
 */
export function createToolCatalog(source: () => Iterable<ITool>, options: ToolCatalogOptions = {}): ToolCatalog {
  const exclude = options.exclude;
  let state: { version: unknown; tools: ITool[]; byName: Map<string, ITool>; index?: ToolIndex; all?: string } | undefined;
  // Declarations are rendered once per tool object, whichever state asks.
  const rendered = new WeakMap<object, string>();

  function current(): NonNullable<typeof state> {
    const version = options.version?.();
    if (state && options.version && Object.is(version, state.version)) return state;
    const tools = [...source()].filter((tool) => tool && typeof tool.name === 'string' && !exclude?.(tool));
    if (state && sameTools(state.tools, tools)) {
      state.version = version;
      return state;
    }
    state = { version, tools, byName: byName(tools) };
    return state;
  }
  const indexed = (now: NonNullable<typeof state>) => (now.index ??= indexOf(now.tools));

  return {
    tools: () => current().tools,
    search(query, limit = DEFAULT_SEARCH_LIMIT) {
      const now = current();
      return search(indexed(now), now.byName, query, limit, rendered);
    },
    describe(names) {
      const now = current();
      return describe(() => indexed(now), now.byName, names, rendered);
    },
    groups: () => groupsOf(current().tools),
    declarations() {
      const now = current();
      now.all ??= renderDeclarations(now.tools);
      return now.all;
    },
  };
}

/**
 * The groups of `tools` with counts, in the order they first come; tools of no group last.
 *
 * @category Code mode / discovery
 */
export function groupsOf(tools: readonly CatalogEntry[]): ToolGroup[] {
  const counts = new Map<string | undefined, number>();
  for (const tool of tools) {
    const group = groupOfTool(tool);
    counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  const named = [...counts].filter(([name]) => name !== undefined).map(([name, count]) => ({ name, count }));
  const loose = counts.get(undefined);
  return loose ? [...named, { name: undefined, count: loose }] : named;
}

function indexOf(tools: readonly CatalogEntry[]): ToolIndex {
  return buildToolIndex(tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, group: groupOfTool(tool) })));
}

function byName<T extends CatalogEntry>(tools: readonly T[]): Map<string, T> {
  const map = new Map<string, T>();
  // The first tool of a name wins, as in a registry that refuses a second.
  for (const tool of tools) if (!map.has(tool.name)) map.set(tool.name, tool);
  return map;
}

function search(index: ToolIndex, tools: Map<string, CatalogEntry>, query: string, limit: number, rendered: WeakMap<object, string>): ToolDescription[] {
  if (typeof query !== 'string') return [];
  return index.search(query, limit).map((hit) => describedOne(tools.get(hit.name)!, rendered));
}

function describe(index: () => ToolIndex, tools: Map<string, CatalogEntry>, names: readonly string[], rendered: WeakMap<object, string>): DescribedTools {
  // Names come from a script: anything that is not a string is not a name.
  const asked = [...new Set((Array.isArray(names) ? names : [names]).filter((name): name is string => typeof name === 'string'))];
  const found: ToolDescription[] = [];
  const unknown: UnknownTool[] = [];
  for (const name of asked) {
    const tool = tools.get(name);
    if (tool) {
      found.push(describedOne(tool, rendered));
      continue;
    }
    // Close in spelling first (a typo), then close in meaning (a name guessed from the task).
    const near = [...closestNames(name, tools.keys()), ...index().search(name, MAX_SUGGESTIONS).map((hit) => hit.name)];
    unknown.push({ name, didYouMean: [...new Set(near)].slice(0, MAX_SUGGESTIONS) });
  }
  return { tools: found, unknown };
}

function describedOne(tool: CatalogEntry, rendered: WeakMap<object, string>): ToolDescription {
  let declaration = rendered.get(tool);
  if (declaration === undefined) {
    declaration = renderDeclaration(tool, { description: false });
    rendered.set(tool, declaration);
  }
  return { name: tool.name, description: typeof tool.description === 'string' ? tool.description : '', declaration };
}

/** The same tool objects in the same order. */
function sameTools(a: readonly object[], b: readonly object[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}
