/**
 * `toolweave/ai-sdk`: toolweave's tools as AI SDK tools, and AI SDK tools as toolweave's, in one
 * line each. Works with the `ai` package 5.x and 6.x (an optional peer dependency; `toolweave`
 * itself never loads it).
 *
 * - A call's result is the presented result (toolweave's `presentResult`): the model reads its `text`
 *   (through `toModelOutput`), the host reads `effects`, `trace` and `structured` on the tool
 *   result the loop records.
 * - A failure throws a {@link PresentedError}, which the loop records as a `tool-error` part; the
 *   model reads `error <code>: <message>`, the host finds the code, effects and trace on the error.
 * - The loop's abort signal reaches the gate; `approveSideEffects` asks the AI SDK's own approval
 *   (`needsApproval`) for every tool that has side effects or does not declare them.
 *
 * @module toolweave/ai-sdk
 */
import { asSchema, jsonSchema, tool, type Tool, type ToolExecutionOptions } from 'ai';
import { randomUUID } from 'node:crypto';
import { failure, PresentedError, type ITool, type JSONSchemaObject, type PresentedResult, type ToolExecutionContext } from '../index.js';
import { declarationsFor, importedTool, type ImportOptions } from './imported-tool.js';
import { byName, hostContext, runForFramework } from './run-for-framework.js';

export type { ImportOptions, ImportedToolDeclaration } from './imported-tool.js';

/**
 * Options of {@link toAiSdkTools}.
 *
 * @category Adapters: to a framework
 */
export interface AiSdkToolsOptions {
  /**
   * The toolweave context of a call, made from the AI SDK's call options (default: the loop's
   * `experimental_context` when it is a plain object, else an empty context). The loop's abort
   * signal is added to it.
   */
  context?: (options: ToolExecutionOptions) => ToolExecutionContext;
  /**
   * Ask the AI SDK's own approval (`needsApproval`) before a tool that has side effects, or does
   * not declare them, runs. Default false: the gate's checks and approvals still hold.
   */
  approveSideEffects?: boolean;
}

/**
 * An AI SDK tool made from a toolweave tool: arguments as the model sends them, the presented result out.
 *
 * @category Adapters: to a framework
 */
export type AiSdkTool = Tool<Record<string, unknown>, PresentedResult>;

/**
 * toolweave's tools as an AI SDK tool set, built with `tool()` and `jsonSchema()`, keyed by name.
 *
 * For example `generateText({ model, tools: toAiSdkTools([composite, runPipeline]) })`.
 *
 * @throws TypeError when two tools share a name (a programming error)
 *
 * @example
 * ```ts
 * const result = await generateText({ model, tools: toAiSdkTools([greetUser, runPipeline, runJs]), prompt });
 * ```
 *
 * @category Adapters: to a framework
 */
export function toAiSdkTools(tools: Iterable<ITool>, options: AiSdkToolsOptions = {}): Record<string, AiSdkTool> {
  const set: Record<string, AiSdkTool> = {};
  for (const source of byName(tools, 'toAiSdkTools')) {
    set[source.name] = tool<Record<string, unknown>, PresentedResult>({
      title: source.displayName,
      description: source.description,
      inputSchema: jsonSchema<Record<string, unknown>>(source.inputSchema as Parameters<typeof jsonSchema>[0]),
      ...(options.approveSideEffects && source.hasSideEffects !== false ? { needsApproval: true } : {}),
      async execute(input, call) {
        const shown = await runForFramework(source, input, () => hostContext(call, options.context, call.experimental_context), call.abortSignal);
        if (shown.isError) throw new PresentedError(shown);
        return shown;
      },
      toModelOutput: (options) => ({ type: 'text', value: modelText(options) }),
    });
  }
  return set;
}

/**
 * AI SDK tools as toolweave tools, one per key.
 *
 * For example `fromAiSdkTools(tools, { tools: { search: { hasSideEffects: false } } })`.
 * A tool the host does not declare is undeclared: never chained, callable directly. Its arguments
 * are checked against its schema (JSON Schema, then the AI SDK schema's own validation, whose
 * defaults and transforms apply); its output is the one `execute` returned (the last, for a
 * streaming tool); a throw is `tool_failed`. The context reaches it as `experimental_context`.
 *
 * @throws TypeError for a tool without `execute` (client-side and provider tools run elsewhere),
 * a schema that resolves asynchronously, or a declaration for a tool that is not there
 *
 * @example
 * ```ts
 * const steps = fromAiSdkTools({ weather, sendEmail }, { tools: { weather: { hasSideEffects: false }, sendEmail: { hasSideEffects: true } } });
 * for (const tool of steps) registry.set(tool);
 * ```
 *
 * @category Adapters: from a framework
 */
export function fromAiSdkTools(tools: Record<string, Tool>, options?: ImportOptions): ITool[] {
  const names = Object.keys(tools);
  const declared = declarationsFor('fromAiSdkTools', names, options);
  return names.map((name) => {
    const source = tools[name];
    const execute = source.execute;
    if (typeof execute !== 'function') throw new TypeError(`fromAiSdkTools: tool "${name}" has no execute function (it runs on the client or at the provider); toolweave calls only tools that run here.`);
    const schema = asSchema(source.inputSchema);
    const inputSchema: unknown = schema.jsonSchema;
    if (isThenable(inputSchema)) throw new TypeError(`fromAiSdkTools: the input schema of tool "${name}" resolves asynchronously; resolve it first and pass jsonSchema(resolved).`);
    return importedTool({
      framework: 'ai-sdk',
      name,
      displayName: source.title,
      description: source.description ?? '',
      inputSchema: inputSchema as JSONSchemaObject,
      async run(args, context) {
        const checked = schema.validate ? await schema.validate(args) : { success: true as const, value: args };
        if (!checked.success) return failure('args_invalid', `The arguments of tool "${name}" do not match its schema: ${checked.error.message}`, { tool: name, step: name });
        const output = await lastValue(execute(checked.value as never, { toolCallId: `toolweave-${randomUUID()}`, messages: [], abortSignal: context.signal, experimental_context: context }));
        return { success: true, output };
      },
    }, declared(name));
  });
}

/**
 * The text the model reads. The AI SDK 6 passes `toModelOutput` the call (`{ toolCallId, input,
 * output }`), the AI SDK 5 the output itself.
 */
function modelText(options: { output: PresentedResult } | PresentedResult): string {
  return 'output' in options && typeof options.output === 'object' && options.output !== null ? options.output.text : (options as PresentedResult).text;
}

/** What `execute` answered: a value, a promise of one, or a stream of them (the last one counts). */
async function lastValue(answer: unknown): Promise<unknown> {
  if (answer !== null && typeof answer === 'object' && Symbol.asyncIterator in answer && !isThenable(answer)) {
    let last: unknown;
    for await (const value of answer as AsyncIterable<unknown>) last = value;
    return last;
  }
  return answer;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
