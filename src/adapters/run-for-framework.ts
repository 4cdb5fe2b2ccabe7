/**
 * A toolweave tool called by a framework: the one path every adapter's outgoing tools take. The
 * model's arguments are checked against the tool's `inputSchema` (the same `args_invalid` check
 * the gate's doors make), the tool runs with the host's context and the framework's abort signal,
 * and its result is presented the one decided way ({@link presentResult}). Never throws.
 */
import { argsRefusal, failure, presentResult, type ITool, type PresentedResult, type ToolExecutionContext, type ToolExecutionResult } from '../index.js';

/**
 * Run `tool` for a framework and present its result.
 *
 * @param tool - the toolweave tool the framework calls
 * @param args - the arguments as the framework parsed them from the model
 * @param context - makes the host's context for the call (a throw is a `step_threw` result)
 * @param signal - the framework's abort signal for the call, when it has one
 */
export async function runForFramework(tool: ITool, args: unknown, context: () => ToolExecutionContext, signal: AbortSignal | undefined): Promise<PresentedResult> {
  const input = (args ?? {}) as Record<string, unknown>;
  const refusal = argsRefusal(tool, tool.name, tool.name, input);
  if (refusal) return presentResult(refusal);
  let result: unknown;
  try {
    const host = context();
    result = await tool.execute(input, signal ? { ...host, signal } : host);
  } catch (error) {
    return presentResult(failure('step_threw', `Tool "${tool.name}" threw: ${error instanceof Error ? error.message : String(error)}`, { tool: tool.name }));
  }
  if (typeof result !== 'object' || result === null || typeof (result as ToolExecutionResult).success !== 'boolean') {
    return presentResult(failure('step_bad_result', `Tool "${tool.name}" answered something that is not a tool result.`, { tool: tool.name }));
  }
  return presentResult(result as ToolExecutionResult);
}

/**
 * What a framework keeps beside the text the model reads: everything {@link presentResult} gives but the text.
 *
 * @category Adapters: to a framework
 */
export type PresentedMeta = Omit<PresentedResult, 'text'>;

/** `shown` without its text: the metadata a framework keeps beside what the model reads. */
export function metaOf(shown: PresentedResult): PresentedMeta {
  const { text: _text, ...meta } = shown;
  return meta;
}

/**
 * The host's context for a call: what `contextOf` makes of the framework's own context, else
 * the framework's context object itself when it is a plain object, else an empty one.
 */
export function hostContext<F>(frameworkContext: F, contextOf: ((frameworkContext: F) => ToolExecutionContext) | undefined, own: unknown): ToolExecutionContext {
  if (contextOf) return contextOf(frameworkContext) ?? {};
  return isPlainObject(own) ? { ...own } : {};
}

/** Tools by name, refusing two tools with one name (a framework keys its tools by name). */
export function byName(tools: Iterable<ITool>, adapter: string): ITool[] {
  const list = [...tools];
  const seen = new Set<string>();
  for (const tool of list) {
    if (seen.has(tool.name)) throw new TypeError(`${adapter}: two tools are named "${tool.name}"; a framework keys its tools by name.`);
    seen.add(tool.name);
  }
  return list;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
