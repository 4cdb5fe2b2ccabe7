/**
 * An MCP `tools/call` answer as a toolweave result: structured content as the output object, else
 * the text parts joined as a string; other parts kept in `details`; `isError` as a coded failure.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { failure, type ToolExecutionResult } from '../index.js';

/**
 * Where the parts that are not text (images, audio, resources) travel: `details.mcpContent`.
 *
 * @category MCP: a server's tools
 */
export const MCP_CONTENT_KEY = 'mcpContent';

/**
 * The result of one upstream call. A server that wraps its text in `structuredContent` (one string
 * field holding the same text, as the reference filesystem server does) reads as that text: a
 * model or a script wants the text, not `{"content": "..."}`.
 */
export function fromCallToolResult(answer: CallToolResult, tool: string, server: string): ToolExecutionResult {
  const blocks: ContentBlock[] = Array.isArray(answer.content) ? answer.content : [];
  const text = blocks
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  const others = blocks.filter((block) => block.type !== 'text');
  const kept = others.length ? { [MCP_CONTENT_KEY]: others } : {};
  if (answer.isError === true) {
    return failure('tool_error', text || `Tool "${tool}" on MCP server "${server}" reported an error without a message.`, { server, tool, ...kept });
  }
  const structured = answer.structuredContent;
  const output = structured !== undefined && !echoesText(structured, text) ? structured : text;
  return { success: true, output, ...(others.length ? { details: kept } : {}) };
}

/** Whether `structured` only repeats the text: one field, a string, the same text. */
function echoesText(structured: Record<string, unknown>, text: string): boolean {
  const values = Object.values(structured);
  return values.length === 1 && typeof values[0] === 'string' && values[0] === text;
}

/**
 * Whether an `outputSchema` only wraps text (one string property): results of such a tool read as
 * text, so they never match the schema they declare.
 */
export function wrapsText(schema: Record<string, unknown> | undefined): boolean {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return false;
  const fields = Object.values(properties as Record<string, unknown>);
  return fields.length === 1 && (fields[0] as { type?: unknown } | null)?.type === 'string';
}
