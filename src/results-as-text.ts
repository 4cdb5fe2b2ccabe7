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

/**
 * A text output that is a JSON object or array, read as that value: an MCP tool answers in text,
 * and code that reads its result wants the data (run_js's `tools.<name>` and compose read results
 * so). Any other output, text that only starts like JSON, and the text of a tool whose results
 * read as text ({@link resultsReadAsText}) stay as they are.
 */
export function jsonTextValue(output: unknown, tool: object | undefined): unknown {
  if (typeof output !== 'string' || !/^\s*[[{]/u.test(output) || (tool !== undefined && resultsReadAsText(tool))) return output;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    // Text that only starts like JSON stays text.
    return output;
  }
}
