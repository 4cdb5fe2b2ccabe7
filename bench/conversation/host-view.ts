/**
 * A tool result as the host puts it into the conversation: the output as written when it is a
 * string, its JSON otherwise; a failure is its error text. `details` and `effects` stay with the
 * host: the model never sees them.
 */
import type { ToolExecutionResult } from '../../dist/index.js';

/** The text the model reads for one tool result. */
export function resultText(result: ToolExecutionResult): string {
  if (!result.success) return result.error ?? 'The tool failed.';
  const output = result.output;
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output) ?? '';
}
