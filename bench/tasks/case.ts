/**
 * What a benchmark case is: a task, and for each way a scripted "model" that makes its calls
 * and reaches the final answer. Any decision that depends on a result is computed in code from
 * the real result, standing in for the model's reasoning.
 */
import { expandPathList } from '../../dist/index.js';
import type { Conversation } from '../conversation/index.js';
import type { WayName } from './ways.js';

/** A scripted model for one way: it drives the conversation and returns its final answer. */
export type ScriptedModel = (conversation: Conversation) => Promise<string>;

/** One benchmark case. */
export interface TaskCase {
  /** The case's number in the table. */
  id: number;
  /** A short name. */
  name: string;
  /** One of the six large cases (true) or a small control (false). */
  large: boolean;
  /** The user's message. */
  task: string;
  /** The scripted model of each way. */
  ways: Record<WayName, ScriptedModel>;
  /** Checks the repository after the conversation (an edit task); returns a problem, if any. */
  verify?(root: string): Promise<string | undefined>;
}

/** One grep_files match line. */
export interface Match {
  file: string;
  line: number;
  text: string;
}

/**
 * grep_files' lines (`file:line: text`), read the way a model reads them: a grouped list (its
 * first line says how to read it) is read back into its lines.
 */
export function readMatches(text: string): Match[] {
  return expandPathList(text).flatMap((line) => {
    const m = /^(.*?):(\d+): ?(.*)$/.exec(line);
    return m ? [{ file: m[1], line: Number(m[2]), text: m[3] }] : [];
  });
}

/**
 * The outputs of a run_pipeline result by step id, read from the text the model gets: each step's
 * output under an `<id>: ok` line (`ids` in order); a failed step is a bench error.
 */
export function pipelineOutputs(text: string, ids: readonly string[]): Record<string, unknown> {
  const lines = text.split('\n');
  const out: Record<string, unknown> = {};
  let at = 0;
  ids.forEach((id, k) => {
    const header = lines[at];
    if (header !== `${id}: ok`) throw new Error(`run_pipeline step ${id} did not succeed: ${header}`);
    let end = at + 1;
    const next = ids[k + 1];
    while (end < lines.length && !(next !== undefined && (lines[end] === `${next}: ok` || lines[end].startsWith(`${next}: error`)))) end++;
    const body = lines.slice(at + 1, end).join('\n');
    // Non-text outputs arrive as JSON; a model reads them as such.
    let value: unknown = body;
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed !== 'string') value = parsed;
    } catch {
      /* text */
    }
    out[id] = value;
    at = end;
  });
  return out;
}

/** Call run_pipeline with `args` and read each step's output back from the text it returns. */
export async function callPipeline(c: Conversation, args: { steps: { id: string; tool: string; args?: Record<string, unknown> }[] }): Promise<Record<string, unknown>> {
  return pipelineOutputs(await c.call('run_pipeline', args), args.steps.map((step) => step.id));
}

/** The text of a run_js result; a failed script is a bench error (its message is the result). */
export function scriptAnswer(conversation: Conversation): string {
  const last = conversation.calls[conversation.calls.length - 1];
  if (!last || last.name !== 'run_js') throw new Error('the last call was not run_js');
  if (!last.result.success) throw new Error(`run_js failed: ${last.text}`);
  return last.text;
}
