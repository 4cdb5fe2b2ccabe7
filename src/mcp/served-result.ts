/**
 * A toolweave result as a `tools/call` answer, shown the one way `presentResult` decides: a string
 * output as one text part, anything else as JSON text plus `structuredContent`; a failure as
 * `isError: true` with its code and message; the run's effects and trace in `_meta`.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { presentResult, resultProvenance, type ITool, type ToolExecutionResult } from '../index.js';
import { outputCheckOf } from './output-check.js';
import { servedTool } from './served-tool.js';
import { MCP_CONTENT_KEY } from './upstream-result.js';

/**
 * The `_meta` keys toolweave writes.
 *
 * @category MCP: serving tools
 */
export const META_KEYS = {
  /** The failure's code. */
  code: 'toolweave/code',
  /** The side-effecting calls the run made (or would have). */
  effects: 'toolweave/effects',
  /** The run's trace. */
  trace: 'toolweave/trace',
  /** Where the data the result carries came from (a gate with `flows`): `{ trusted, sources }`. */
  label: 'toolweave/label',
} as const;

/** `result` as the answer to a call of `tool`; `labelled` is the result the gate labelled, when it was copied since. */
export function servedResult(result: ToolExecutionResult, tool: ITool | undefined, labelled: unknown = result): CallToolResult {
  const shown = presentResult(result);
  const meta: Record<string, unknown> = {};
  if (shown.code) meta[META_KEYS.code] = shown.code;
  if (shown.effects) meta[META_KEYS.effects] = shown.effects;
  if (shown.trace) meta[META_KEYS.trace] = shown.trace;
  const label = resultProvenance(labelled);
  if (label) meta[META_KEYS.label] = label;
  const withMeta = Object.keys(meta).length ? { _meta: meta } : {};
  if (shown.isError) return { content: [{ type: 'text', text: shown.text }], isError: true, ...withMeta };

  const content: ContentBlock[] = [{ type: 'text', text: shown.text }, ...otherParts(result)];
  const answer: CallToolResult = { content, ...(shown.structured ? { structuredContent: shown.structured } : {}), ...withMeta };
  // The listing promised this schema: a result that no longer matches it must not claim success.
  if (tool && servedTool(tool).outputSchema) {
    const check = outputCheckOf(tool)!;
    if (!shown.structured || !check(shown.structured)) {
      const why = shown.structured ? (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ') : 'the output is not an object';
      return {
        content: [{ type: 'text', text: `error output_invalid: the output of "${tool.name}" does not match its outputSchema (${why})` }],
        isError: true,
        _meta: { ...meta, [META_KEYS.code]: 'output_invalid' },
      };
    }
  }
  return answer;
}

/** The parts of an upstream answer that are not text (images, audio, resources), kept in `details`. */
function otherParts(result: ToolExecutionResult): ContentBlock[] {
  const parts = result.details?.[MCP_CONTENT_KEY];
  return Array.isArray(parts) ? (parts as ContentBlock[]) : [];
}
