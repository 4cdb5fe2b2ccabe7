/**
 * How a tool's result is shown outside toolweave, decided once for every integration (an MCP
 * server, each framework adapter): the text a model reads, the structured output when there is
 * one, whether it failed and with which code, and the run's effects and trace for wherever the
 * framework keeps tool metadata.
 */
import type { TraceEntry } from '../engine/run-state.js';
import type { EffectRecord, ToolExecutionResult } from '../tool.js';

/**
 * A result as an integration shows it; see {@link presentResult}.
 *
 * @category Adapters: presenting results
 */
export interface PresentedResult {
  /**
   * What the model reads: a string output as written, any other output as JSON (`''` for none);
   * a failure as `error <code>: <message>`, so the model sees the code it can act on.
   */
  text: string;
  /** The output itself when it is a plain object (what MCP calls structured content). */
  structured?: Record<string, unknown>;
  /** Whether the call failed. */
  isError: boolean;
  /** The failure's code (`details.code`). */
  code?: string;
  /** The side-effecting calls the run made (or would have), when it reports any. */
  effects?: EffectRecord[];
  /** The run's trace, when it has one (`details.trace`). */
  trace?: TraceEntry[];
}

/**
 * Show a result outside toolweave.
 *
 * Never throws: an output JSON cannot write (a cycle, a BigInt)
 * is named as such in the text and given no structured form.
 *
 * @example
 * ```ts
 * const shown = presentResult(await tool.execute(args, context));
 * return { content: [{ type: 'text', text: shown.text }], isError: shown.isError };
 * ```
 *
 * @category Adapters: presenting results
 */
export function presentResult(result: ToolExecutionResult): PresentedResult {
  const shown: PresentedResult = { text: '', isError: false };
  try {
    if (result.success !== true) {
      shown.isError = true;
      const code = result.details?.code;
      if (typeof code === 'string') shown.code = code;
      const message = typeof result.error === 'string' && result.error ? result.error : 'The call failed.';
      shown.text = shown.code ? `error ${shown.code}: ${message}` : `error: ${message}`;
    } else {
      const output = result.output;
      shown.text = outputText(output);
      if (isPlainObject(output) && shown.text.startsWith('{')) shown.structured = output;
    }
    if (Array.isArray(result.effects) && result.effects.length) shown.effects = result.effects;
    const trace = result.details?.trace;
    if (Array.isArray(trace)) shown.trace = trace as TraceEntry[];
  } catch (error) {
    return { text: `error: the result could not be read (${error instanceof Error ? error.message : String(error)})`, isError: true };
  }
  return shown;
}

/**
 * An output as a model reads it: a string as written, anything else as JSON, `''` for none.
 *
 * An output JSON cannot write is named as such. Never throws.
 *
 * @category Adapters: presenting results
 */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? '';
  } catch (error) {
    return `[output not shown: it cannot be written as JSON (${error instanceof Error ? error.message : String(error)})]`;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A failed result as an `Error`, for frameworks whose tools report a failure by throwing.
 *
 * A presented failure as an `Error`, for frameworks whose tools report a failure by throwing (the
 * AI SDK records a `tool-error` part, a LangChain tool invoked without a tool call throws). Its
 * message is the presented text, `error <code>: <message>`, so the model still reads the code;
 * the code, effects and trace stay on the error for the host.
 *
 * @category Adapters: presenting results
 */
export class PresentedError extends Error {
  /** The failure's code (`details.code`), when it had one. */
  declare readonly code?: string;
  /** The side-effecting calls the run made before it failed, when it reports any. */
  declare readonly effects?: EffectRecord[];
  /** The run's trace, when it has one. */
  declare readonly trace?: TraceEntry[];

  /** @param shown - a failure as {@link presentResult} shows it */
  constructor(shown: PresentedResult) {
    super(shown.text);
    this.name = 'PresentedError';
    if (shown.code !== undefined) this.code = shown.code;
    if (shown.effects) this.effects = shown.effects;
    if (shown.trace) this.trace = shown.trace;
  }
}
