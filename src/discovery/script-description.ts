/**
 * The description of `run_js` when it is the model's only way to the tools (code-only): how to
 * find and call tools, and what exists, in a few lines instead of every definition. A catalog
 * small enough is listed whole as declarations, so the model needs no search at all.
 */
import type { ToolGroup } from './catalog.js';
import { renderDeclarationsWithin, type DeclaredTool } from './declarations.js';

/**
 * Options of {@link renderCodeOnlyDescription}.
 *
 * @category Code mode / discovery
 */
export interface CodeOnlyDescriptionOptions {
  /**
   * List every tool's declaration in the description when all of them take at most this many
   * characters; past it, name the groups and say how to search. Default
   * {@link DEFAULT_LIST_UP_TO_CHARS}.
   */
  listUpToChars?: number;
  /** Name at most this many groups; the rest are counted. Default 24. */
  maxGroups?: number;
}

/**
 * About 500 tokens of declarations: past that, a search line costs less than the list.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_LIST_UP_TO_CHARS = 2000;
const DEFAULT_MAX_GROUPS = 24;

const HEAD = 'Run an async JS function body in a sandbox; return only the answer.';
const CALL =
  'await tools.name(args) gives the output (tools["a-name"] for other names) and throws an Error with .code on failure; ' +
  'await callTool(name, args) gives {text, error}. Promise.all runs calls at once.';

/**
 * The run_js description for `tools` (the tools a script can reach) and their `groups`.
 *
 * When the declarations of every tool fit in `listUpToChars`, they are listed:
 *
 *     Run an async JS function body in a sandbox; return only the answer. Call the tools below:
 *     await tools.name(args) gives the output ... Promise.all runs calls at once.
 *     declare const tools: { ... };
 *
 * Otherwise one line says how to find tools and one names the groups:
 *
 *     Run an async JS function body in a sandbox; return only the answer. 160 tools are reached
 *     only from here. Find them in the same script: await searchTools("what you need", 5) gives
 *     [{name, description, declaration}], best first; await describeTools(["name"]) gives
 *     declarations. await tools.name(args) gives the output ...
 *     Groups: everything 13, filesystem 14, memory 9, github 26, ...
 *
 * @example
 * ```ts
 * const text = renderCodeOnlyDescription(catalog.tools(), catalog.groups());
 * ```
 *
 * @category Code mode / discovery
 */
export function renderCodeOnlyDescription(tools: readonly DeclaredTool[], groups: readonly ToolGroup[], options: CodeOnlyDescriptionOptions = {}): string {
  const limit = options.listUpToChars ?? DEFAULT_LIST_UP_TO_CHARS;
  if (!tools.length) return `${HEAD} No tools can be called from a script here.`;
  const declarations = limit > 0 ? renderDeclarationsWithin(tools, limit) : undefined;
  if (declarations !== undefined) return `${HEAD} Call the tools below: ${CALL}\n${declarations}`;
  const find =
    `${tools.length} tools are reached only from here. Find them in the same script: ` +
    'await searchTools("what you need", 5) gives [{name, description, declaration}], best first; ' +
    'await describeTools(["name"]) gives declarations.';
  return `${HEAD} ${find} ${CALL}\n${groupsLine(groups, options.maxGroups ?? DEFAULT_MAX_GROUPS)}`;
}

/** `Groups: filesystem 14, github 26, and 3 more tools.` */
function groupsLine(groups: readonly ToolGroup[], max: number): string {
  const named = groups.filter((g): g is ToolGroup & { name: string } => g.name !== undefined);
  const shown = named.slice(0, max).map((g) => `${g.name} ${g.count}`);
  const rest = named.slice(max).reduce((sum, g) => sum + g.count, 0) + groups.filter((g) => g.name === undefined).reduce((sum, g) => sum + g.count, 0);
  const more = rest ? `${shown.length ? ', and ' : ''}${rest} more tool${rest === 1 ? '' : 's'}` : '';
  return `Groups: ${shown.join(', ')}${more}.`;
}
