/**
 * Whether a tool's results read as text though it declares an `outputSchema`: an imported MCP tool
 * whose schema only wraps its text. The MCP import marks such tools (src/mcp/upstream-mark.ts);
 * the mark is read here by its registry key, so the core loads no MCP code to ask.
 */
const UPSTREAM = Symbol.for('toolweave.mcp.upstream');

/**
 * Whether `tool` (or a copy of it) is an imported MCP tool whose results read as text: its
 * `outputSchema` only wraps the text, so what a caller gets is a string, not that object.
 */
export function resultsReadAsText(tool: object): boolean {
  const mark = (tool as Record<symbol, { textResults?: unknown } | undefined>)[UPSTREAM];
  return mark?.textResults === true;
}
