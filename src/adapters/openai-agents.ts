/**
 * `toolweave/openai-agents`: toolweave's tools as OpenAI Agents SDK function tools, and function
 * tools as toolweave's, in one line each. Works with `@openai/agents` (an optional peer
 * dependency; `toolweave` itself never loads it).
 *
 * - The SDK hides a thrown error from the model ("An error occurred while running the tool"), so a
 *   tool never throws here: it returns the presented text, `error <code>: <message>` for a
 *   failure. The rest of the presented result (`isError`, `code`, `structured`, `effects`,
 *   `trace`) is the tool output item's `customData`.
 * - Strict mode (the SDK's default, and `strict: true` here) sends a tool its strict form: every
 *   object closed, every property required, an optional one nullable; the model's `null` for such
 *   a property is removed again before the tool runs. `run_pipeline` and `compose`, whose own
 *   schemas hold open objects (a step's `args`, a gather's `calls`), are sent their
 *   `strictInputSchema`: a step's `args`, and compose's whole tree, as JSON text (`args_invalid`
 *   at the gate still checks each call against the called tool's own schema). A tool with no
 *   strict form in either is sent non-strict, as it is. `run_js`, `get_observation` and a
 *   composite with a closed input schema are strict.
 * - The run's abort signal reaches the gate; `approveSideEffects` sets the SDK's own
 *   `needsApproval` on every tool that has side effects or does not declare them.
 *
 * @module toolweave/openai-agents
 */
import { RunContext, tool, type FunctionTool, type JsonSchemaDefinition, type ToolInputParameters } from '@openai/agents';
import { randomUUID } from 'node:crypto';
import { failure, type ITool, type JSONSchemaObject, type ToolExecutionContext } from '../index.js';
import { declarationsFor, importedTool, type ImportOptions } from './imported-tool.js';
import { byName, hostContext, metaOf, runForFramework, type PresentedMeta } from './run-for-framework.js';
import { toStrictSchema, type StrictForm } from './strict-schema.js';

/**
 * The declarations every adapter's `from...Tools` takes: see them in `toolweave/ai-sdk`.
 *
 * @category Adapters: from a framework
 */
export type { ImportOptions, ImportedToolDeclaration } from './imported-tool.js';
/**
 * What a framework keeps beside the text the model reads: see it in `toolweave/langchain`.
 *
 * @category Adapters: to a framework
 */
export type { PresentedMeta } from './run-for-framework.js';
export { toStrictSchema, type StrictForm } from './strict-schema.js';

/**
 * Options of {@link toOpenAIAgentsTools}.
 *
 * @category Adapters: to a framework
 */
export interface OpenAIAgentsToolsOptions<TContext = unknown> {
  /**
   * Send each tool in its strict form where it has one (default true, as the SDK's own default);
   * `false` sends every tool as it is, non-strict.
   */
  strict?: boolean;
  /**
   * The toolweave context of a call, made from the run's context (default: the run's `context`
   * when it is a plain object, else an empty context). The call's abort signal is added to it.
   */
  context?: (runContext: RunContext<TContext>) => ToolExecutionContext;
  /**
   * Set the SDK's own `needsApproval` on every tool that has side effects or does not declare
   * them. Default false: the gate's checks and approvals still hold.
   */
  approveSideEffects?: boolean;
}

/**
 * The parameters of a function tool given as JSON Schema.
 *
 * @category Adapters: to a framework
 */
export type OpenAIAgentsParameters = JsonSchemaDefinition['schema'];

type StrictParameters = Extract<OpenAIAgentsParameters, { additionalProperties: false }>;
type OpenParameters = Extract<OpenAIAgentsParameters, { additionalProperties: true }>;

/**
 * A function tool made from a toolweave tool: it answers the presented text.
 *
 * @category Adapters: to a framework
 */
export type OpenAIAgentsTool<TContext = unknown> = FunctionTool<TContext, OpenAIAgentsParameters, string>;

/**
 * toolweave's tools as OpenAI Agents SDK function tools.
 *
 * For example `new Agent({ name, instructions, tools: toOpenAIAgentsTools([composite, runPipeline]) })`.
 * Each tool's `strict` says which form it was sent in.
 *
 * @throws TypeError when two tools share a name (a programming error)
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'helper', instructions, tools: toOpenAIAgentsTools([greetUser, runJs]) });
 * ```
 *
 * @category Adapters: to a framework
 */
export function toOpenAIAgentsTools<TContext = unknown>(tools: Iterable<ITool>, options: OpenAIAgentsToolsOptions<TContext> = {}): OpenAIAgentsTool<TContext>[] {
  return byName(tools, 'toOpenAIAgentsTools').map((source) => {
    const strict = options.strict === false ? undefined : strictFormOf(source);
    // The metadata of each call, kept until the SDK asks for the output item's custom data.
    const metaByRun = new WeakMap<object, Map<string, PresentedMeta>>();
    const common = {
      name: source.name,
      description: source.description,
      ...(options.approveSideEffects && source.hasSideEffects !== false ? { needsApproval: true } : {}),
      async execute(input: unknown, runContext?: RunContext<TContext>, details?: { signal?: AbortSignal; toolCall?: { callId?: string } }): Promise<string> {
        const args = strict ? strict.restore(input) : input;
        const own = runContext?.context;
        const shown = await runForFramework(source, args, () => hostContext(runContext as RunContext<TContext>, options.context, own), details?.signal);
        const callId = details?.toolCall?.callId;
        if (runContext && callId) {
          const byCall = metaByRun.get(runContext) ?? new Map<string, PresentedMeta>();
          metaByRun.set(runContext, byCall.set(callId, metaOf(shown)));
        }
        return shown.text;
      },
      customDataExtractor({ runContext, toolCall }: { runContext: RunContext<TContext>; toolCall: { callId: string } }) {
        const byCall = metaByRun.get(runContext);
        const meta = byCall?.get(toolCall.callId);
        byCall?.delete(toolCall.callId);
        return meta ? { ...meta } : undefined;
      },
    };
    const made = strict
      ? tool<StrictParameters, TContext, string>({ ...common, parameters: strict.schema as StrictParameters, strict: true })
      : tool<OpenParameters, TContext, string>({ ...common, parameters: source.inputSchema as OpenParameters, strict: false });
    return made as OpenAIAgentsTool<TContext>;
  });
}

/**
 * The strict form a tool is sent in: its input schema's, else that of the other form it takes
 * (`strictInputSchema`: run_pipeline's and compose's, whose open parts are JSON text); none when
 * neither has one.
 */
function strictFormOf(source: ITool): Extract<StrictForm, { ok: true }> | undefined {
  const own = toStrictSchema(source.inputSchema);
  if (own.ok) return own;
  const other = source.strictInputSchema === undefined ? undefined : toStrictSchema(source.strictInputSchema);
  return other?.ok === true ? other : undefined;
}

/**
 * The part of a function tool {@link fromOpenAIAgentsTools} uses.
 *
 * What {@link fromOpenAIAgentsTools} uses of a function tool (any `FunctionTool`, whatever its
 * parameters are written in): its name, description, JSON Schema parameters and `invoke`.
 *
 * @category Adapters: from a framework
 */
export type InvocableFunctionTool<TContext = unknown> = Pick<FunctionTool<TContext, ToolInputParameters, unknown>, 'name' | 'description' | 'parameters' | 'invoke'>;

/** The SDK's default answer for a tool that threw, learnt once from the SDK itself. */
let defaultErrorText: Promise<string> | undefined;
function sdkDefaultErrorText(): Promise<string> {
  defaultErrorText ??= tool({
    name: 'toolweave_probe',
    description: 'Throws, to read the default error answer.',
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    execute: () => {
      throw new Error('probe');
    },
  }).invoke(new RunContext(), '{}').then(String, () => '');
  return defaultErrorText;
}

/**
 * OpenAI Agents SDK function tools as toolweave tools, invoked outside a run.
 *
 * For example `fromOpenAIAgentsTools(tools, { tools: { search: { hasSideEffects: false } } })`.
 * A tool the host does not declare is undeclared: never chained, callable directly. The input schema is the
 * tool's `parameters` as the SDK holds them (for a strict tool, every property required: pass
 * `null` to leave an optional one out). The toolweave context is the run context's `context`;
 * the call's abort signal reaches the tool. The SDK answers a throw with its default error text,
 * which is `tool_failed`; an error function of the tool's own answers as it chooses. The SDK's
 * `needsApproval` is a Runner feature and is not asked here: declare such a tool
 * `hasSideEffects: true` and give the gate its `approvals`.
 *
 * @throws TypeError for a declaration of a tool that is not there
 *
 * @example
 * ```ts
 * const steps = fromOpenAIAgentsTools([lookupTool], { tools: { lookup: { hasSideEffects: false } } });
 * for (const tool of steps) registry.set(tool);
 * ```
 *
 * @category Adapters: from a framework
 */
export function fromOpenAIAgentsTools<TContext>(tools: readonly InvocableFunctionTool<TContext>[], options?: ImportOptions): ITool[] {
  const declared = declarationsFor('fromOpenAIAgentsTools', tools.map((t) => t.name), options);
  return tools.map((source) => importedTool({
    framework: 'openai-agents',
    name: source.name,
    description: source.description,
    inputSchema: source.parameters as JSONSchemaObject,
    async run(args, context) {
      const json = JSON.stringify(args);
      const callId = `toolweave-${randomUUID()}`;
      const output = await source.invoke(new RunContext(context as TContext), json, {
        signal: context.signal,
        toolCall: { type: 'function_call', callId, name: source.name, arguments: json },
      });
      if (typeof output === 'string' && output === (await sdkDefaultErrorText())) {
        return failure('tool_failed', `openai-agents tool "${source.name}" threw; the SDK's default error function does not say why (give the tool an errorFunction that names the error).`, { tool: source.name });
      }
      return { success: true, output };
    },
  }, declared(source.name)));
}
