/**
 * The config's `flows` as the gate takes it, and which upstream tools give trusted output: those of
 * a server the config trusts, unless the tool says it reaches the open world (`openWorldHint: true`:
 * a web fetch on a trusted server still answers what strangers wrote).
 */
import { readersInclude, type FlowOptions, type FlowPolicy } from '../index.js';
import type { McpTool } from '../mcp/index.js';
import type { FlowsConfig } from './config-types.js';

/** The gate's `flows` for a config's section. */
export function flowOptionsOf(flows: FlowsConfig): FlowOptions {
  const policies: Record<string, FlowPolicy> = {};
  for (const [tool, policy] of Object.entries(flows.policies ?? {})) {
    policies[tool] = {
      ...(policy.trusted !== undefined ? { trusted: policy.trusted } : {}),
      ...(policy.control !== undefined ? { control: policy.control } : {}),
      ...(policy.readersInclude !== undefined ? { check: readersInclude(policy.readersInclude) } : {}),
    };
  }
  return {
    ...(flows.trustedTools ? { trustedTools: flows.trustedTools } : {}),
    ...(flows.declassifiers ? { declassifiers: flows.declassifiers } : {}),
    ...(flows.untrustedFields ? { untrustedFields: flows.untrustedFields } : {}),
    ...(flows.readers ? { readers: flows.readers } : {}),
    policies,
    ...(flows.onViolation ? { onViolation: flows.onViolation } : {}),
    ...(flows.askEveryEffect ? { askEveryEffect: true } : {}),
  };
}

/** Whether `tool` of server `server` gives trusted output under `flows`. */
export function trustsServerTool(flows: FlowsConfig | undefined, server: string, tool: McpTool): boolean {
  if (flows?.trustedServers?.includes(server) !== true) return false;
  return tool.annotations?.openWorldHint !== true;
}
