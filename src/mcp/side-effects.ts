/**
 * What an MCP tool declares to the chainability rule. MCP annotations are hints, and a client must
 * not trust them from a server it does not trust: the host decides.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * A host's word on one tool, over whatever its annotations say.
 *
 * @category MCP: a server's tools
 */
export interface McpToolOverride {
  /** `false`: pure (chained freely); `true`: side-effecting (chained only when listed). */
  hasSideEffects?: boolean;
}

/**
 * The tool's `hasSideEffects`: the host's override when it gives one; else, when the host trusts the
 * server's annotations, `false` only for `readOnlyHint: true` (no annotations, or
 * `readOnlyHint: false`, reads as "not read-only", as the MCP specification says); else undeclared.
 */
export function sideEffectsOf(annotations: ToolAnnotations | undefined, trust: boolean, override: McpToolOverride | undefined): boolean | undefined {
  if (typeof override?.hasSideEffects === 'boolean') return override.hasSideEffects;
  if (!trust) return undefined;
  return annotations?.readOnlyHint !== true;
}
