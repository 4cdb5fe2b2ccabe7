/**
 * `run_pipeline`: the model sends a predictable sequence of calls as one tool call. Each step
 * is a leaf of the same engine, so every call passes the same StepGate; string args may embed
 * `${step_N.output}` (1-based) or `${<id>.output}` to thread an earlier step's output.
 */
import { failure } from '../codes.js';
import { toToolSet, type SideEffectingTools } from '../gate/stages/chainable.js';
import { messageOf } from '../gate/message-of.js';
import type { StepGate } from '../gate/options.js';
import { compileNode } from '../engine/compile-node.js';
import { createCompileEnv } from '../engine/compile-env.js';
import { ended } from '../engine/run-settings.js';
import type { DoorInfo } from '../tool-events.js';
import { plannedRefusal } from '../engine/planned-calls.js';
import { runSequence } from '../engine/sequence.js';
import { precheckBatch } from '../doors/batch-precheck.js';
import { withLabels } from '../engine/labels.js';
import { recordOutput } from '../engine/step-records.js';
import type { NodeOutcome, NodePlan } from '../engine/run-state.js';
import { runAuto } from '../engine/schedule.js';
import { compileSchema } from '../spec/ajv.js';
import type { StepNode } from '../spec/types.js';
import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { RUN_PIPELINE_TOOL_NAME } from './batching-names.js';
import { stepReferences, unresolvedNote, type UnresolvedReference } from './pipeline-refs.js';
import { outputText } from '../shaping/present-result.js';
import { Door } from '../doors/door.js';
import { pipelineStrictSchema, readPipelineArgs } from './strict-forms.js';

const PIPELINE_DOOR: DoorInfo = Object.freeze({ kind: 'run_pipeline' });

/**
 * The default bound on a pipeline's steps.
 *
 * @category Tools for the model
 */
export const DEFAULT_MAX_PIPELINE_STEPS = 20;

/**
 * Settings of {@link createRunPipelineTool}.
 *
 * @category Tools for the model
 */
export interface RunPipelineToolOptions {
  /** The host's side-effecting tools that may be chained (the same meaning as the builder's `bind`). */
  sideEffectingTools?: SideEffectingTools;
  /** The most steps one call may send (default 20). */
  maxSteps?: number;
  /** Per-step timeout in milliseconds (default: the engine's). */
  stepTimeoutMs?: number;
  /**
   * `auto`: run steps side by side where they read nothing of each other (a `${step_N.output}`
   * waits for step N), with side-effecting steps as barriers; the report keeps the steps' order.
   * Default `sequential`. The model-facing schema is the same either way.
   */
  schedule?: 'sequential' | 'auto';
}

/**
 * One step of a run_pipeline call, as the model sends it.
 *
 * @category Tools for the model
 */
export interface PipelineStep {
  /** A name for the step; `${<id>.output}` refers to it. Default `step_N`. */
  id?: string;
  /** The tool to call. */
  tool: string;
  /** Its arguments. */
  args?: Record<string, unknown>;
}

/**
 * One step in the result (`details.steps`): its output, or its error.
 *
 * @category Tools for the model
 */
export type PipelineStepReport =
  | { id: string; ok: true; output: unknown }
  | { id: string; ok: false; error: string; code?: string };

/**
 * The input schema a model is sent: kept to what it needs, since it is paid for on every turn. The
 * bounds and the details (the step count, an id used twice, what each tool's args must be) are
 * checked when a call arrives, each with a message that says what to change.
 */
function inputSchema(): JSONSchemaObject {
  return {
    type: 'object',
    properties: {
      steps: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, tool: { type: 'string' }, args: { type: 'object' } }, required: ['tool'] } },
      stop_on_error: { type: 'boolean' },
    },
    required: ['steps'],
  };
}

/** What a call is checked against when it arrives: the published schema, and the bounds it leaves out. */
function checkedSchema(maxSteps: number): JSONSchemaObject {
  const published = inputSchema() as { properties: { steps: { items: Record<string, unknown> } } };
  return {
    type: 'object',
    required: ['steps'],
    properties: {
      steps: { type: 'array', minItems: 1, maxItems: maxSteps, items: { ...published.properties.steps.items, additionalProperties: false } },
      stop_on_error: { type: 'boolean' },
    },
    additionalProperties: false,
  };
}

const DESCRIPTION = "Run tool calls in order, in one call. String args may use ${step_N.output} or ${id.output.field}: an earlier step's output.";

/**
 * Make the `run_pipeline` tool, which runs a list of steps the model writes in one call.
 *
 * Only tools the gate resolves are callable, each checked by the
 * host's chainability rule (checked for every step before anything runs, and again as each
 * runs); the pipeline cannot call itself; the step count is bounded.
 *
 * @example
 * ```ts
 * const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['write_file'], maxSteps: 10 });
 * registry.set(pipeline); // a ToolRegistry from createToolRegistry
 * const result = await pipeline.execute({ steps: [{ id: 'ls', tool: 'list_dir', args: { path: 'src' } }, { tool: 'read_file', args: { path: 'src/${ls.output.first}' } }] }, {});
 * ```
 *
 * @category Tools for the model
 */
export function createRunPipelineTool(gate: StepGate, options: RunPipelineToolOptions = {}): ITool {
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_PIPELINE_STEPS;
  const schema = inputSchema();
  // The host's list, made a set once: every call and every run reads it.
  const sideEffectingTools = toToolSet(options.sideEffectingTools);
  // The step bound is checked first, for its own code; the schema then says the same.
  const check = compileSchema(checkedSchema(maxSteps));
  const tool: ITool = {
    id: `toolweave:${RUN_PIPELINE_TOOL_NAME}`,
    name: RUN_PIPELINE_TOOL_NAME,
    displayName: 'Run pipeline',
    description: DESCRIPTION,
    inputSchema: schema,
    strictInputSchema: pipelineStrictSchema(),
    // It runs only what the host's rule allows; it has side effects exactly when the host lists some.
    hasSideEffects: sideEffectingTools.size > 0,
    // A door: its calls hold the budget's places, not the door itself; a dry run does not run it.
    composition: true,
    async execute(args, context) {
      try {
        const ctx = context ?? {};
        // The outermost door of a run that may pause records it; the run's frame is made
        // synchronously inside runPipeline (before its first await), where the record is handed over.
        return await door.run(args, ctx, () => runPipeline(args, ctx));
      } catch (error) {
        return failure('step_threw', `run_pipeline failed unexpectedly: ${messageOf(error)}`);
      }
    },
  };
  const door = new Door(gate, tool, { sideEffectingTools, validateArgs: true, door: PIPELINE_DOOR });

  async function runPipeline(given: Record<string, unknown>, context: ToolExecutionContext): Promise<ToolExecutionResult> {
    // A strict client's form (null for what is left out, args as JSON text) read as the ordinary one.
    const read = readPipelineArgs(given);
    if (!read.ok) return failure('input_invalid', `Invalid run_pipeline input: ${read.problem}`, { errors: [read.problem] });
    const args = read.args;
    if (Array.isArray(args?.steps) && args.steps.length > maxSteps) {
      return failure('pipeline_too_long', `run_pipeline takes at most ${maxSteps} steps; got ${args.steps.length}. Split the work.`, { steps: args.steps.length, maxSteps });
    }
    const problems = check(args, 'input') ?? [];
    const steps = (problems.length ? [] : args.steps) as PipelineStep[];
    const ids = steps.map((s, i) => s.id ?? `step_${i + 1}`);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i) problems.push(`input.steps.${i}.id "${id}" is used by an earlier step`);
    });
    if (problems.length) return failure('input_invalid', `Invalid run_pipeline input: ${problems.join('; ')}`, { errors: problems });

    const env = createCompileEnv([], { references: false, stepTimeoutMs: options.stepTimeoutMs });
    const unresolved: UnresolvedReference[] = [];
    const reads: number[][] = [];
    const plans: NodePlan[] = steps.map((step, i) => {
      const node: StepNode = { tool: step.tool, args: step.args ?? {} };
      // Only earlier steps become holes: a reference to a later or unknown step stays as written, and is reported.
      const references = stepReferences(node.args, i, ids);
      unresolved.push(...references.unresolved);
      reads.push([...references.reads]);
      return compileNode(node, env, {
        path: ids[i],
        stepsBefore: i,
        namesBefore: new Set(),
        hasPrev: i > 0,
        inForEach: false,
        inPipeStage: false,
        extraHoles: references.holes,
      });
    });
    // A step whose arguments cannot be compiled (a cycle, from a host caller) is refused before anything runs.
    if (env.errors.length) return failure('input_invalid', `Invalid run_pipeline input: ${env.errors.join('; ')}`, { errors: env.errors });

    const entered = door.enter(context, env.stepTimeoutMs);
    if (!entered.ok) return entered.refusal;
    const state = entered.state;
    // Every call it names may run here, or none runs.
    const refusal = precheckBatch(state, steps.map((s, i) => ({ tool: s.tool, at: ids[i] })), tool);
    if (refusal) return ended(state, refusal);
    // Every step is one call: a pipeline the budget cannot cover is refused before its first step.
    const over = plannedRefusal(state, plans.length, { input: args, prev: undefined, steps: [], named: new Map() });
    if (over) return ended(state, over);
    const stopOnError = args.stop_on_error !== false;
    const outcomes: NodeOutcome[] = [];
    // Record every step's outcome; without stop_on_error a failure reads as null to later steps
    // (labelled as the failure was: a later step reading it carries what the failed call read).
    const recorded = plans.map((plan, i): NodePlan => async (s, scope) => {
      const outcome = await plan(s, scope);
      outcomes[i] = outcome;
      return outcome.ok || stopOnError ? outcome : { ok: true, output: null, ...(outcome.label !== undefined ? { label: outcome.label } : {}) };
    });
    // The model wrote every step's arguments: their text is labelled as the pipeline's input.
    const scope = withLabels({ input: args, prev: undefined, steps: [], named: new Map() }, state, context, true);
    if (options.schedule === 'auto') {
      // Side by side where the references allow; `recorded` keeps every outcome, in order.
      await runAuto(recorded.map((plan, i) => ({ plan, reads: reads[i], tools: [steps[i].tool] })), state, scope, stopOnError);
    } else {
      await new Promise<void>((resolve) => runSequence(recorded, state, () => scope, (_, output, label) => recordOutput(scope, output, label), () => resolve()));
    }
    const reports: PipelineStepReport[] = ids.map((id, i) => {
      const outcome = outcomes[i];
      if (!outcome) return { id, ok: false, error: 'not run: an earlier step failed' };
      if (outcome.ok) return { id, ok: true, output: outcome.output };
      return { id, ok: false, error: withoutStep(outcome.failure.error ?? 'failed', id), code: codeFor(outcome.failure) };
    });
    const text = unresolved.length ? `${renderReports(reports)}\n${unresolvedNote(unresolved)}` : renderReports(reports);
    const notes = unresolved.length ? { unresolved } : {};
    const failed = reports.filter((r, i) => !r.ok && outcomes[i]);
    if (!failed.length) return ended(state, { success: true, output: text, details: { steps: reports, ...notes }, effects: state.effects });
    const first = outcomes.find((o) => o && !o.ok) as Extract<NodeOutcome, { ok: false }>;
    return ended(state, {
      success: false,
      output: text,
      error: `${failed.length} of ${ids.length} steps failed; first: ${failed[0].id}: ${(failed[0] as { error: string }).error}`,
      details: { ...first.failure.details, steps: reports, ...notes },
      effects: state.effects,
    });
  }
  return tool;
}

/**
 * What the model reads: each step under a `<id>: ok` (or `<id>: error <code>: ...`) line, its
 * output as written when it is text, as JSON otherwise. Text, not one JSON document, because a
 * JSON document would escape every line of every output again.
 */
export function renderReports(reports: readonly PipelineStepReport[]): string {
  const parts: string[] = [];
  for (const r of reports) {
    if (r.ok) {
      parts.push(`${r.id}: ok`);
      const out = outputText(r.output);
      if (out !== '') parts.push(out);
    } else {
      parts.push(`${r.id}: error${r.code ? ` ${r.code}` : ''}: ${r.error}`);
    }
  }
  return parts.join('\n');
}

/** A step's message without the `Step "<id>" (tool): ` in front: the report puts it under its id already. */
function withoutStep(error: string, id: string): string {
  const head = `Step ${JSON.stringify(id)}`;
  if (!error.startsWith(head)) return error;
  const colon = error.indexOf(': ', head.length);
  return colon < 0 ? error : error.slice(colon + 2);
}

/** The code to show the model: the tool's own when it failed itself, else the refusal's. */
function codeFor(result: ToolExecutionResult): string | undefined {
  const details = result.details;
  if (!details) return undefined;
  return details.code === 'step_failed' && typeof details.innerCode === 'string' ? details.innerCode : details.code;
}
