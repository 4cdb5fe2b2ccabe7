/**
 * The three ways a model is set up to do a task, as the token benchmark compares them:
 *
 * - direct: the base tools only;
 * - pipeline: the base tools and run_pipeline, with the usage guide in the system text;
 * - script: the base tools wrapped with observations (large results become a preview and an
 *   obs_ id), run_js over the same wrapped tools and get_observation, with the usage guide.
 *
 * The extra definitions and the guide are sent on every turn of the ways that offer them.
 */
import {
  createGetObservationTool,
  createObservationStore,
  createRunPipelineTool,
  createScriptTool,
  createStepGate,
  renderUsageGuide,
  withObservations,
  type ITool,
} from '../../dist/index.js';

/** The name of a way. */
export type WayName = 'direct' | 'pipeline' | 'script';

/** What the model is given: the system text and the tools it is offered. */
export interface Offer {
  system: string;
  tools: ITool[];
}

/** The host's side-effecting tools that a batch may call. */
export const SIDE_EFFECTING_TOOLS = ['edit_file', 'write_file'];

/** The system text every way starts from. */
export const BASE_SYSTEM =
  'You are a coding agent working in a software repository; every path is relative to its root. ' +
  'Use the tools to look things up and to make changes, then reply with the final answer only.';

/** The system text with the usage guide for `tools`, when it has anything to say. */
function systemWithGuide(tools: readonly ITool[]): string {
  const guide = renderUsageGuide(tools, { sideEffectingTools: SIDE_EFFECTING_TOOLS });
  return guide ? `${BASE_SYSTEM}\n\n${guide}` : BASE_SYSTEM;
}

/** Base tools only. */
export function offerDirect(base: readonly ITool[]): Offer {
  return { system: BASE_SYSTEM, tools: [...base] };
}

/** Base tools and run_pipeline over them. */
export function offerPipeline(base: readonly ITool[]): Offer {
  const byName = new Map(base.map((t) => [t.name, t]));
  const gate = createStepGate({ resolve: (name) => byName.get(name) });
  const tools = [...base, createRunPipelineTool(gate, { sideEffectingTools: SIDE_EFFECTING_TOOLS })];
  return { system: systemWithGuide(tools), tools };
}

/**
 * Base tools wrapped with observations (for the model's direct calls and the script's calls
 * alike), run_js over them, and get_observation over the same store.
 */
export function offerScript(base: readonly ITool[]): Offer {
  const store = createObservationStore({ tag: 'bench' });
  const wrapped: ITool[] = withObservations(base, store);
  const getObservation: ITool = createGetObservationTool(store);
  const byName = new Map([...wrapped, getObservation].map((t) => [t.name, t]));
  const gate = createStepGate({ resolve: (name) => byName.get(name) });
  const tools = [...wrapped, createScriptTool(gate, { sideEffectingTools: SIDE_EFFECTING_TOOLS }), getObservation];
  return { system: systemWithGuide(tools), tools };
}

/** The offer for a way. */
export function offer(way: WayName, base: readonly ITool[]): Offer {
  return way === 'direct' ? offerDirect(base) : way === 'pipeline' ? offerPipeline(base) : offerScript(base);
}
