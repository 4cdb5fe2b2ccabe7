/**
 * A short guide for the model, rendered from the tools actually registered, for the host's
 * system prompt. Agents ignore batching tools unless told when to batch; this tells them.
 */
import type { SideEffectingTools } from '../gate/chainable.js';
import type { ITool } from '../tool.js';
import { COMPOSE_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, SCRIPT_TOOL_NAME } from './batching-names.js';

/** The name of the observation paging tool, as `createGetObservationTool` names it. */
const GET_OBSERVATION = 'get_observation';

/** What {@link renderUsageGuide} needs of a tool: its name and its side-effect declaration. */
export type GuideTool = Pick<ITool, 'name'> & Partial<Pick<ITool, 'hasSideEffects' | 'interactive'>>;

/**
 * Render the guide. Only the batching tools present are described; the examples name the
 * host's own read-only tools, and the side-effecting tools the host lets a batch call are listed.
 *
 * @param tools - every tool the model is offered
 * @param options - `sideEffectingTools`: the host's chainable side-effecting tools, to name them
 */
export function renderUsageGuide(tools: readonly GuideTool[], options: { sideEffectingTools?: SideEffectingTools } = {}): string {
  const names = new Set(tools.map((t) => t.name));
  const batching = [RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, SCRIPT_TOOL_NAME].filter((n) => names.has(n));
  if (!batching.length && !names.has(GET_OBSERVATION)) return '';
  const special = new Set([...batching, GET_OBSERVATION]);
  const pure = tools.filter((t) => t.hasSideEffects === false && !t.interactive && !special.has(t.name)).map((t) => t.name);
  const example = (i: number) => pure[i % Math.max(pure.length, 1)] ?? 'read_file';
  const lines: string[] = ['Tool batching: every tool call is a turn that re-sends the whole conversation, so batch calls you can predict.'];
  if (names.has(RUN_PIPELINE_TOOL_NAME)) {
    lines.push(`- ${RUN_PIPELINE_TOOL_NAME}: when you already know the next 2+ calls (e.g. ${example(0)} then ${example(1)}), send them as one call; use \${step_N.output} to pass an output on.`);
  }
  if (names.has(COMPOSE_TOOL_NAME)) {
    lines.push(`- ${COMPOSE_TOOL_NAME}: gather independent reads at once; for_each over a list (one ${example(1)} per file); pipe when each call feeds the next; try_and_check to edit then verify; scope with rollback for edits that must not be left half-done.`);
  }
  if (names.has(SCRIPT_TOOL_NAME)) {
    lines.push(`- ${SCRIPT_TOOL_NAME}: for a chain, batch or projection that needs logic (filter, count, compare); return only the answer, not the evidence.`);
  }
  if (names.has(GET_OBSERVATION)) {
    lines.push(`- Large results come back as a preview with an obs_ id; page the rest with ${GET_OBSERVATION} only if you need it.`);
  }
  lines.push('Do not batch a single call, a call whose arguments depend on judging an earlier result, or a tool that asks the user.');
  const allowed = [...(options.sideEffectingTools ?? [])].filter((n) => names.has(n));
  lines.push(allowed.length ? `Tools that change things and may be batched: ${allowed.join(', ')}. Others that change things must be called directly.` : 'Tools that change things must be called directly.');
  return lines.join('\n');
}
