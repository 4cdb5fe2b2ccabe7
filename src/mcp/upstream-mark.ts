/**
 * A mark an imported MCP tool carries, so a server serving it on knows whether its results can
 * still match the `outputSchema` it declares. The mark is an enumerable own property, so a wrapper
 * that copies the tool (`{ ...tool }`, as `withObservations` does) copies it too, and the copy is
 * known as changed: its results may be previews.
 */
import type { ITool } from '../index.js';

// In the global registry: the core reads the mark by this key (src/results-as-text.ts).
const UPSTREAM = Symbol.for('toolweave.mcp.upstream');

/** What the mark says. */
interface UpstreamMark {
  /** The tool as imported; a copy is a wrapper whose results may differ. */
  original: ITool;
  /** The tool's outputSchema only wraps text, so its results read as text. */
  textResults: boolean;
}

/** Mark `tool` as imported as it is. */
export function markUpstream<T extends ITool>(tool: T, mark: Omit<UpstreamMark, 'original'>): T {
  Object.defineProperty(tool, UPSTREAM, { value: { ...mark, original: tool }, enumerable: true });
  return tool;
}

/**
 * Whether an upstream `outputSchema` still holds for `tool`'s results: yes for a tool that is not
 * an imported one, or one imported as it is whose results are structured; no for an imported tool
 * whose results read as text, or a copy of one (a wrapper that may shape them into previews).
 */
export function keepsOutputSchema(tool: ITool): boolean {
  const mark = (tool as unknown as Record<symbol, UpstreamMark | undefined>)[UPSTREAM];
  if (!mark) return true;
  return mark.original === tool && !mark.textResults;
}
