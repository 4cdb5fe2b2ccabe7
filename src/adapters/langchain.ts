/**
 * `toolweave/langchain`: toolweave's tools as LangChain structured tools, and LangChain tools as
 * toolweave's, in one line each. Works with `@langchain/core` (an optional peer dependency;
 * `toolweave` itself never loads it).
 *
 * - A tool invoked with a `ToolCall` answers a `ToolMessage`: its content the presented text, its
 *   `artifact` the rest of the presented result (`isError`, `code`, `structured`, `effects`,
 *   `trace`). A failure is a `ToolMessage` with `status: "error"` and content
 *   `error <code>: <message>`; invoked without a tool call, a failure throws a
 *   {@link PresentedError} with the same message.
 * - The model's arguments are checked before LangChain's own schema check, which would answer only
 *   "did not match expected schema": a mismatch is `args_invalid`, naming each field.
 * - The run's abort signal (`config.signal`) reaches the gate.
 *
 * @module toolweave/langchain
 */
import { ToolMessage, isToolMessage } from '@langchain/core/messages';
import {
  StructuredTool,
  ToolInputParsingException,
  type StructuredToolCallInput,
  type StructuredToolInterface,
  type ToolReturnType,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import { toJsonSchema, type JSONSchema } from '@langchain/core/utils/json_schema';
import { randomUUID } from 'node:crypto';
import { argsRefusal, failure, presentResult, PresentedError, type ITool, type JSONSchemaObject, type PresentedResult, type ToolExecutionContext } from '../index.js';
import { declarationsFor, importedTool, type ImportOptions } from './imported-tool.js';
import { byName, hostContext, metaOf, runForFramework, type PresentedMeta } from './run-for-framework.js';

/**
 * The declarations every adapter's `from...Tools` takes: see them in `toolweave/ai-sdk`.
 *
 * @category Adapters: from a framework
 */
export type { ImportOptions, ImportedToolDeclaration } from './imported-tool.js';
export type { PresentedMeta } from './run-for-framework.js';

/**
 * Options of {@link toLangChainTools}.
 *
 * @category Adapters: to a framework
 */
export interface LangChainToolsOptions {
  /**
   * The toolweave context of a call, made from LangChain's run config (default: the config's
   * `configurable` when it is a plain object, else an empty context). The config's abort signal
   * is added to it.
   */
  context?: (config: ToolRunnableConfig | undefined) => ToolExecutionContext;
}

/**
 * What a toolweave tool's `_call` answers LangChain (`content_and_artifact`).
 *
 * It is the text and the presented result's other parts, or, for a failed tool call, the error
 * `ToolMessage` itself.
 *
 * @category Adapters: to a framework
 */
export type LangChainToolAnswer = [string, PresentedMeta] | [ToolMessage, undefined];

/**
 * A LangChain structured tool made from a toolweave tool (`responseFormat: "content_and_artifact"`).
 *
 * @category Adapters: to a framework
 */
export type LangChainTool = StructuredTool<JSONSchema, Record<string, unknown>, Record<string, unknown>, LangChainToolAnswer>;

/** A toolweave tool as a LangChain structured tool; made by {@link toLangChainTools}. */
class ToolweaveLangChainTool extends StructuredTool<JSONSchema, Record<string, unknown>, Record<string, unknown>, LangChainToolAnswer> {
  /** The tool's name, as the model calls it. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The tool's `inputSchema`, as it is. */
  schema: JSONSchema;
  readonly #tool: ITool;
  readonly #options: LangChainToolsOptions;

  /**
   * @param tool - the toolweave tool to call
   * @param options - how a call's context is made
   */
  constructor(tool: ITool, options: LangChainToolsOptions = {}) {
    super({ responseFormat: 'content_and_artifact' });
    this.name = tool.name;
    this.description = tool.description;
    this.schema = tool.inputSchema as JSONSchema;
    this.#tool = tool;
    this.#options = options;
  }

  /** Checks the arguments first, with a coded answer, then runs LangChain's call. */
  override async call<TArg extends StructuredToolCallInput<JSONSchema, Record<string, unknown>>, TConfig extends ToolRunnableConfig | undefined>(
    arg: TArg,
    configArg?: TConfig,
    /** @deprecated */
    tags?: string[],
  ): Promise<ToolReturnType<TArg, TConfig, LangChainToolAnswer>> {
    const call = toolCallOf(arg) ?? configArg?.toolCall;
    const input = (isToolCallInput(arg) ? arg.args : arg) as Record<string, unknown>;
    const refusal = argsRefusal(this.#tool, this.name, this.name, input ?? {});
    if (refusal) return this.#failed(presentResult(refusal), call?.id) as ToolReturnType<TArg, TConfig, LangChainToolAnswer>;
    return super.call(arg, configArg, tags);
  }

  /** @internal */
  protected async _call(arg: Record<string, unknown>, _runManager: unknown, config?: ToolRunnableConfig): Promise<LangChainToolAnswer> {
    const shown = await runForFramework(this.#tool, arg, () => hostContext(config, this.#options.context, config?.configurable), config?.signal);
    if (!shown.isError) return [shown.text, metaOf(shown)];
    return [this.#failed(shown, config?.toolCall?.id), undefined];
  }

  /** A failure: a ToolMessage with `status: "error"` for a tool call, else a thrown {@link PresentedError}. */
  #failed(shown: PresentedResult, toolCallId: string | undefined): ToolMessage {
    if (!toolCallId) throw new PresentedError(shown);
    return new ToolMessage({ status: 'error', content: shown.text, artifact: metaOf(shown), tool_call_id: toolCallId, name: this.name });
  }
}

/**
 * toolweave's tools as LangChain structured tools: `model.bindTools(toLangChainTools(tools))`,
 * or a `ToolNode` of them.
 *
 * @throws TypeError when two tools share a name (a programming error)
 *
 * @example
 * ```ts
 * const agentTools = toLangChainTools([greetUser, runPipeline]);
 * const message = await agentTools[0].invoke({ id: 'call_1', name: 'greet_user', args: { id: 7 }, type: 'tool_call' });
 * ```
 *
 * @category Adapters: to a framework
 */
export function toLangChainTools(tools: Iterable<ITool>, options: LangChainToolsOptions = {}): LangChainTool[] {
  return byName(tools, 'toLangChainTools').map((tool) => new ToolweaveLangChainTool(tool, options));
}

/**
 * LangChain tools as toolweave tools.
 *
 * For example `fromLangChainTools(tools, { tools: { search: { hasSideEffects: false } } })`.
 * A tool the host does not declare is undeclared: never chained, callable directly. Each call
 * invokes the tool with a `ToolCall`: the output is the `ToolMessage`'s content (the artifact in
 * `details.artifact`); a `ToolMessage` with `status: "error"` or a throw is `tool_failed`, and
 * LangChain's own schema check `args_invalid`. The run config gets the call's abort signal and
 * the toolweave context as `configurable`.
 *
 * @throws TypeError for a declaration of a tool that is not there
 *
 * @example
 * ```ts
 * const steps = fromLangChainTools([searchTool], { tools: { search: { hasSideEffects: false } } });
 * for (const tool of steps) registry.set(tool);
 * ```
 *
 * @category Adapters: from a framework
 */
export function fromLangChainTools(tools: readonly StructuredToolInterface[], options?: ImportOptions): ITool[] {
  const declared = declarationsFor('fromLangChainTools', tools.map((t) => t.name), options);
  return tools.map((source) => importedTool({
    framework: 'langchain',
    name: source.name,
    description: source.description,
    inputSchema: toJsonSchema(source.schema as Parameters<typeof toJsonSchema>[0]) as JSONSchemaObject,
    async run(args, context) {
      let answer: unknown;
      try {
        answer = await source.invoke({ type: 'tool_call', id: `toolweave-${randomUUID()}`, name: source.name, args }, { signal: context.signal, configurable: context });
      } catch (error) {
        if (error instanceof ToolInputParsingException) return failure('args_invalid', `The arguments of tool "${source.name}" do not match its schema: ${error.message}`, { tool: source.name, step: source.name });
        throw error;
      }
      if (!isToolMessage(answer)) return { success: true, output: answer };
      const output = answer.content;
      const details = answer.artifact === undefined ? undefined : { artifact: answer.artifact };
      if (answer.status === 'error') return failure('tool_failed', `langchain tool "${source.name}" answered an error: ${typeof output === 'string' ? output : JSON.stringify(output)}`, { tool: source.name, ...details });
      return { success: true, output, ...(details ? { details } : {}) };
    },
  }, declared(source.name)));
}

function isToolCallInput(arg: unknown): arg is { args: unknown; id?: string; type: 'tool_call' } {
  return typeof arg === 'object' && arg !== null && (arg as { type?: unknown }).type === 'tool_call' && 'args' in arg;
}

function toolCallOf(arg: unknown): { id?: string } | undefined {
  return isToolCallInput(arg) ? arg : undefined;
}
