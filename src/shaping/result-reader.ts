/**
 * Who reads a tool's result: the model, or code (a script's next line, a composite's next step).
 * Shaping (previews, grouping) is for the model; code needs the result as the tool gave it.
 * Each front door says which in `context.sessionData.resultReader` of the calls it makes.
 */
import type { ToolExecutionContext } from '../tool.js';

/**
 * The reader of a result.
 *
 * @category Observations
 */
export type ResultReader = 'model' | 'code';

/**
 * Where the reader travels: `context.sessionData.resultReader`.
 *
 * @category Observations
 */
export const RESULT_READER_KEY = 'resultReader';

/**
 * Who reads what a tool called with `context` returns: the model unless a door said code.
 *
 * @category Observations
 */
export function readerOf(context: ToolExecutionContext | undefined): ResultReader {
  return context?.sessionData?.[RESULT_READER_KEY] === 'code' ? 'code' : 'model';
}

/**
 * The context for the calls a door makes, marked with their reader.
 *
 * `sessionData` is copied, so
 * the caller's context is never changed; every other field is passed through unchanged.
 *
 * @category Observations
 */
export function forReader(context: ToolExecutionContext, reader: ResultReader): ToolExecutionContext {
  if (context.sessionData?.[RESULT_READER_KEY] === reader) return context;
  return { ...context, sessionData: { ...context.sessionData, [RESULT_READER_KEY]: reader } };
}
