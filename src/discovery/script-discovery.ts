/**
 * Discovery for run_js: the catalog a script searches (`searchTools`, `describeTools`) and the
 * description run_js shows when it is the model's only way to the tools (code-only). The catalog
 * holds exactly the tools a script can call through the gate: not the batching doors, not the
 * interactive tools a script is refused, and not the tools the chainability rule refuses (a
 * side-effecting tool the host did not list, a tool that declares nothing), so a search never
 * offers a tool whose call would be refused.
 */
import { COMPOSE_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, SCRIPT_TOOL_NAME } from '../agent-tools/batching-names.js';
import { isChainable, toToolSet, type SideEffectingTools } from '../gate/stages/chainable.js';
import { gateSettings } from '../gate/settings.js';
import type { StepGate } from '../gate/options.js';
import type { ITool } from '../tool.js';
import { createToolCatalog, type ToolCatalog } from './catalog.js';
import { renderCodeOnlyDescription, type CodeOnlyDescriptionOptions } from './script-description.js';

/** The name of the observation pager: listed beside run_js, so a script has no need to find it. */
const GET_OBSERVATION = 'get_observation';

/**
 * How run_js offers discovery: what {@link createScriptDiscovery} is given (the proxy's `codeOnly` gives `codeOnly: true`).
 *
 * @category Code mode / discovery
 */
export interface ScriptDiscoveryOptions extends CodeOnlyDescriptionOptions {
  /**
   * The model is offered only run_js (and get_observation): run_js's description says how to find
   * tools and names their groups (or lists them whole when they are few). Default false: the
   * tools are offered as they are, and a script can still search them.
   */
  codeOnly?: boolean;
  /** The tools a script may find, as they are now. Default: every tool the gate names (`gate.names()`). */
  tools?: () => Iterable<ITool>;
  /**
   * The registry's version, so the catalog reads the tools again only when it changes. Default:
   * the version the gate was made with (`StepGateOptions.version`), when the tools are the gate's.
   */
  version?: () => unknown;
}

/**
 * What the script tool needs of discovery: the catalog its scripts search, and its description.
 *
 * @category Code mode / discovery
 */
export interface ScriptDiscovery {
  /** The tools a script can call, searched and described. */
  readonly catalog: ToolCatalog;
  /** Whether the model is offered only run_js. */
  readonly codeOnly: boolean;
  /** run_js's description in code-only mode, for the catalog as it is now. */
  description(): string;
}

/**
 * What the script tool knows that decides which tools a script can call.
 *
 * @category Code mode / discovery
 */
export interface ScriptReach {
  /** The host's side-effecting tools a script may call. */
  sideEffectingTools?: SideEffectingTools;
  /** Tools refused inside a script by name (the script tool's resolved list, defaults included). */
  interactiveTools?: Iterable<string>;
}

/**
 * Make the discovery of a script tool over `gate`: how its scripts find the tools they may call.
 *
 * The script tool answers a script's
 * `searchTools(query, limit)` with `catalog.search`, its `describeTools(names)` with
 * `catalog.describe`, and (code-only) reads its description from `description()` each time it is
 * listed, so a registry that changes is described as it is.
 *
 * @example
 * ```ts
 * const discovery = createScriptDiscovery(gate, { codeOnly: true }, { sideEffectingTools: ['write_file'] });
 * discovery.catalog.search('read a file', 3);
 * discovery.description(); // 'Run an async JS function body ... Groups: filesystem 14, github 26.'
 * ```
 *
 * @category Code mode / discovery
 */
export function createScriptDiscovery(gate: StepGate, options: ScriptDiscoveryOptions = {}, reach: ScriptReach = {}): ScriptDiscovery {
  const sideEffecting = toToolSet(reach.sideEffectingTools);
  const refused = new Set([SCRIPT_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, GET_OBSERVATION, ...(reach.interactiveTools ?? [])]);
  const aliases = new WeakMap<ITool, Map<string, ITool>>();
  const source = options.tools ?? (() => gateTools(gate, aliases));
  // The gate's own version holds for the gate's own tools, not for a list the host gives.
  const version = options.version ?? (options.tools ? undefined : gateSettings(gate)?.version);
  const catalog = createToolCatalog(source, {
    ...(version ? { version } : {}),
    exclude: (tool) => refused.has(tool.name) || tool.interactive === true || !isChainable(tool.name, tool, sideEffecting),
  });
  // Listed on every tools/list: written again only when the catalog changed.
  let described: { tools: readonly ITool[]; text: string } | undefined;
  return {
    catalog,
    codeOnly: options.codeOnly === true,
    description() {
      const tools = catalog.tools();
      if (described?.tools !== tools) described = { tools, text: renderCodeOnlyDescription(tools, catalog.groups(), options) };
      return described.text;
    },
  };
}

/**
 * Every tool the gate names, as it resolves them now, by the name the gate knows it by: a tool
 * registered under another name than its own is found under the registered one.
 */
function gateTools(gate: StepGate, aliases: WeakMap<ITool, Map<string, ITool>>): ITool[] {
  const tools: ITool[] = [];
  for (const name of gate.names?.() ?? []) {
    const tool = gate.resolve(name);
    if (!tool) continue;
    if (tool.name === name) {
      tools.push(tool);
      continue;
    }
    // The same object each time, so the catalog sees no change while the registry has none.
    let byName = aliases.get(tool);
    if (!byName) aliases.set(tool, (byName = new Map()));
    let alias = byName.get(name);
    if (!alias) byName.set(name, (alias = { ...tool, name }));
    tools.push(alias);
  }
  return tools;
}
