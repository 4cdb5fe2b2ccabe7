/**
 * A short guide for the model, rendered from the tools actually registered, for the host's
 * system prompt. Agents ignore batching tools unless told when to batch; this tells them.
 * Every line fits the tools given: an example names a tool whose input schema takes what the
 * example says, and a capability no given tool can use is left out.
 */
import type { ToolGroup } from '../discovery/catalog.js';
import type { SideEffectingTools } from '../gate/stages/chainable.js';
import { isRecord } from '../spec/nodes.js';
import type { ITool } from '../tool.js';
import { COMPOSE_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, SCRIPT_TOOL_NAME } from './batching-names.js';

/** The name of the observation paging tool, as `createGetObservationTool` names it. */
const GET_OBSERVATION = 'get_observation';

/**
 * What {@link renderUsageGuide} needs of a tool: its name, its side-effect declaration and,
 * to pick fitting examples, its input schema.
 *
 * @category Tools for the model
 */
export type GuideTool = Pick<ITool, 'name'> & Partial<Pick<ITool, 'hasSideEffects' | 'interactive' | 'inputSchema'>>;

/**
 * Options of {@link renderUsageGuide}.
 *
 * @category Tools for the model
 */
export interface UsageGuideOptions {
  /** The host's chainable side-effecting tools, to name them. */
  sideEffectingTools?: SideEffectingTools;
  /**
   * Code-only: the tools a script reaches that the model is not offered (see
   * `ScriptDiscoveryOptions.codeOnly`), and their groups. The guide then says how a script finds
   * and calls them, and names the ones that change things.
   */
  discovery?: { tools: readonly GuideTool[]; groups?: readonly ToolGroup[] };
}

/**
 * Render the system-prompt guide to the batching tools the host offers.
 *
 * Only the batching tools present are described. Examples name the host's own
 * pure tools: a `for_each` example names a tool that takes one argument, per value of that
 * argument. Changing something inside a batch (`try_and_check`, `scope`) is described only when
 * the host lets a batch call a side-effecting tool, and those tools are listed.
 *
 * @param tools - every tool the model is offered
 * @param options - the host's chainable side-effecting tools, and (code-only) the tools a script finds
 *
 * @example
 * ```ts
 * const system = `${basePrompt}\n\n${renderUsageGuide([...registry.values()], { sideEffectingTools: ['write_file'] })}`;
 * ```
 *
 * @category Tools for the model
 */
export function renderUsageGuide(tools: readonly GuideTool[], options: UsageGuideOptions = {}): string {
  const names = new Set(tools.map((t) => t.name));
  const hidden = names.has(SCRIPT_TOOL_NAME) ? (options.discovery?.tools ?? []).filter((t) => !names.has(t.name)) : [];
  const batching = [RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, SCRIPT_TOOL_NAME].filter((n) => names.has(n));
  if (!batching.length && !names.has(GET_OBSERVATION)) return '';
  const special = new Set([...batching, GET_OBSERVATION]);
  const pure = tools.filter((t) => t.hasSideEffects === false && !t.interactive && !special.has(t.name));
  const reachable = new Set([...names, ...hidden.map((t) => t.name)]);
  const allowed = [...(options.sideEffectingTools ?? [])].filter((n) => reachable.has(n) && !special.has(n));
  const lines: string[] = ['Tool batching: every tool call is a turn that re-sends the whole conversation, so batch calls you can predict.'];
  if (names.has(RUN_PIPELINE_TOOL_NAME)) {
    const example = pure.length >= 2 ? ` (e.g. ${pure[0].name} then ${pure[1].name})` : '';
    lines.push(`- ${RUN_PIPELINE_TOOL_NAME}: when you already know the next 2+ calls${example}, send them as one call; use \${step_N.output} to pass an output on.`);
  }
  if (names.has(COMPOSE_TOOL_NAME)) lines.push(`- ${COMPOSE_TOOL_NAME}: ${composeUses(pure, allowed).join('; ')}.`);
  if (names.has(SCRIPT_TOOL_NAME)) {
    lines.push(`- ${SCRIPT_TOOL_NAME}: for a chain, batch or projection that needs logic (filter, count, compare); return only the answer, not the evidence.`);
  }
  if (hidden.length) lines.push(discoveryLine(hidden.length, options.discovery?.groups ?? []));
  if (names.has(GET_OBSERVATION)) {
    lines.push(`- Large results come back as a preview with an obs_ id; page the rest with ${GET_OBSERVATION} only if you need it.`);
  }
  if (hidden.length) {
    // Code-only: an unlisted tool has no other door, so even a single call goes through run_js.
    lines.push(`Unlisted tools are called only from ${SCRIPT_TOOL_NAME}, a single call too; do not call a tool that asks the user from a script.`);
    lines.push(allowed.length ? `Tools that change things a script may call: ${namedUpTo(allowed, MAX_NAMED_UNLISTED)}.` : 'A script may call only tools that change nothing.');
    return lines.join('\n');
  }
  lines.push('Do not batch a single call, a call whose arguments depend on judging an earlier result, or a tool that asks the user.');
  lines.push(allowed.length ? `Tools that change things and may be batched: ${allowed.join(', ')}. Others that change things must be called directly.` : 'Tools that change things must be called directly.');
  return lines.join('\n');
}

/**
 * The most unlisted tools that change things named by name: the guide is sent every turn, and
 * code-only is for catalogs too large to list (a search shows the rest).
 */
const MAX_NAMED_UNLISTED = 8;

/** `a, b, c` or, past `max`, `a, b, c and 12 more`. */
function namedUpTo(names: readonly string[], max: number): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/** How a script finds the tools the model is not offered, and which groups they come in. */
function discoveryLine(count: number, groups: readonly ToolGroup[]): string {
  const named = groups.filter((g) => g.name !== undefined).map((g) => `${g.name} ${g.count}`);
  const from = named.length ? ` (${named.join(', ')})` : '';
  return (
    `- ${count} more tools${from} are not listed: in a ${SCRIPT_TOOL_NAME} script, find them with searchTools(query) and describeTools(names) ` +
    'and call them with tools.<name>(args), searching and calling in the same script.'
  );
}

/** What the compose tool is for, given the pure tools and the side-effecting tools a batch may call. */
function composeUses(pure: readonly GuideTool[], allowed: readonly string[]): string[] {
  const perItem = pure.map((t) => ({ tool: t.name, argument: soleArgument(t) })).find((e) => e.argument !== undefined);
  const uses = [
    'gather independent calls at once',
    `for_each to make one call per item of a list${perItem ? ` (e.g. one ${perItem.tool} per ${perItem.argument})` : ''}`,
    'pipe when each call feeds the next',
  ];
  // A check needs a pure tool to verify with; an undo needs a change a batch may make.
  if (allowed.length && pure.length) uses.push(`try_and_check to make a change (${allowed[0]}) then verify it`);
  if (allowed.length) uses.push('scope with rollback for changes that must not be left half-done');
  return uses;
}

/**
 * The one argument a tool takes, when its input schema says so: the only required property (or
 * the only property), holding a single value (a string, number or integer, or of no stated type).
 */
function soleArgument(tool: GuideTool): string | undefined {
  const schema = tool.inputSchema;
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required.filter((n): n is string => typeof n === 'string') : [];
  const candidates = required.length ? required : Object.keys(properties);
  if (candidates.length !== 1) return undefined;
  const name = candidates[0];
  const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
  const type = isRecord(property) ? property.type : undefined;
  return type === undefined || type === 'string' || type === 'number' || type === 'integer' ? name : undefined;
}
