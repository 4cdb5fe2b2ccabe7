/**
 * What one `callTool` resolves to inside a script: `{ text, error }`. A refusal or a failure is
 * data here, so a script can skip it, record it or return a partial answer.
 */
import { jsonTextValue } from '../../results-as-text.js';
import type { ErrorCode } from '../../codes.js';
import type { ToolExecutionResult } from '../../tool.js';

/**
 * The error half of a {@link ScriptCallResult}.
 *
 * @category Code mode / discovery
 */
export interface ScriptCallError {
  /** The result's `details.code` (`step_failed` when the tool itself failed). */
  code: string;
  /** The result's message. */
  message: string;
  /** The tool's own code, when the tool failed with one (`details.innerCode`). */
  innerCode?: string;
}

/**
 * One call's result as the script sees it.
 *
 * @category Code mode / discovery
 */
export interface ScriptCallResult {
  /** The output: a string as written, anything else as JSON; always a string, `""` on failure. */
  text: string;
  /** `null` on success. */
  error: ScriptCallError | null;
  /**
   * The output as JSON text, for a call that asked for a value (`tools.<name>()`, `searchTools`,
   * `describeTools`): the script reads it parsed, where `callTool` reads `text`.
   */
  value?: string;
}

/** A refusal the script layer makes itself, before any tool runs. */
export function refusedCall(code: ErrorCode, message: string): ScriptCallResult {
  return { text: '', error: { code, message } };
}

/** The refusal of a call past the run's `maxCalls`: the call is not made. */
export function tooManyCalls(maxCalls: number): ScriptCallResult {
  return refusedCall(
    'script_too_many_calls',
    `This script already made ${maxCalls} tool calls, the most one run may make; this call was not made. Return what you have, or batch the work into fewer calls.`,
  );
}

/**
 * The refusal of a call whose arguments are too large: `bytes` (at least) against `limit`, for one
 * call or for the run's calls together. The call is not made.
 */
export function argsTooLarge(bytes: number, limit: number, scope: 'call' | 'run'): ScriptCallResult {
  const what =
    scope === 'call'
      ? `These arguments are ${bytes} bytes as JSON; one call may pass at most ${limit}.`
      : `This call would bring the arguments of the run's calls to ${bytes} bytes as JSON; a run may pass at most ${limit}.`;
  return refusedCall(
    'script_args_too_large',
    `${what} The call was not made. Pass a path, an id or a short pattern instead of the data itself, or split the work across runs.`,
  );
}

/**
 * Turn a gate result into what the script sees, with the text cut to `maxBytes` UTF-8 bytes
 * (note included) so one large result cannot flood the script's heap or its answer.
 */
export function toScriptCallResult(result: ToolExecutionResult, maxBytes: number): ScriptCallResult {
  if (!result.success) {
    const details = result.details ?? {};
    const error: ScriptCallError = {
      code: typeof details.code === 'string' ? details.code : 'step_failed',
      message: typeof result.error === 'string' && result.error ? result.error : 'The call failed.',
    };
    if (typeof details.innerCode === 'string') error.innerCode = details.innerCode;
    return { text: '', error };
  }
  const output = result.output;
  let text: string;
  if (typeof output === 'string') {
    text = output;
  } else if (output === undefined) {
    text = '';
  } else {
    try {
      // undefined for a function or a symbol: nothing a script could read.
      text = JSON.stringify(output) ?? '';
    } catch (error) {
      return refusedCall(
        'step_bad_result',
        `The tool's output cannot be sent to the script as JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { text: capUtf8(text, maxBytes), error: null };
}

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes, the note `\n[truncated: N bytes total]` included,
 * never splitting a character.
 */
export function capUtf8(text: string, maxBytes: number): string {
  // A UTF-8 character is at most 3 bytes per UTF-16 unit, so a short string needs no encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const note = `\n[truncated: ${bytes.length} bytes total]`;
  const room = Math.max(0, maxBytes - Buffer.byteLength(note));
  return bytes.subarray(0, utf8Boundary(bytes, room)).toString('utf8') + note;
}

/** The largest index `<= end` that starts a character (or ends the buffer). */
function utf8Boundary(bytes: Uint8Array, end: number): number {
  let i = Math.min(end, bytes.length);
  // Continuation bytes are 0b10xxxxxx; step back over them to the character's first byte.
  while (i > 0 && i < bytes.length && (bytes[i] & 0xc0) === 0x80) i--;
  return i;
}

/**
 * Turn a gate result into the value a script's `tools.<name>()` resolves to: the output itself
 * when it is not text (a tool's structured output), parsed when its text is a JSON object or array
 * (unless the tool's results are text by what it declares, `textResults`), else the text. A value
 * whose JSON is longer than `maxBytes` is refused rather than cut (a cut value would not parse):
 * `callTool` gives its text, cut with a note. A failure is the error the call throws.
 */
export function toScriptValueResult(result: ToolExecutionResult, name: string, textResults: boolean, maxBytes: number): ScriptCallResult {
  if (!result.success) return toScriptCallResult(result, maxBytes);
  const value = textResults ? result.output : jsonTextValue(result.output, undefined);
  let json: string | undefined;
  try {
    json = JSON.stringify(value === undefined ? null : value);
  } catch (error) {
    return refusedCall('step_bad_result', `The output of "${name}" cannot be sent to the script as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  json ??= 'null';
  const bytes = json.length * 3 <= maxBytes ? json.length : Buffer.byteLength(json);
  if (bytes > maxBytes) {
    return refusedCall(
      'script_result_too_large',
      `The output of "${name}" is ${bytes} bytes as JSON; a call may bring at most ${maxBytes} into the script. callTool("${name}", args) gives its text, cut with a note; or ask the tool for less.`,
    );
  }
  return { text: '', error: null, value: json };
}
