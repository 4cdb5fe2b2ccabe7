/**
 * `toolweave check`, for a composite `toolweave forge` made from recordings with flows on: the
 * policy its calls needed as recorded (`flowPolicies`: the arguments that came from trusted data)
 * against the config's. An argument the config requires trusted that came from untrusted data when
 * it was recorded means the composite's call will be asked about (or refused) on every run like it:
 * a `warn` line, since the config may mean exactly that.
 */
import type { CompositeFile, FlowsConfig } from './config-types.js';

/** One `warn` line per forged composite whose recorded calls the config's policies would stop. */
export function flowPolicyLines(flows: FlowsConfig | undefined, composites: readonly CompositeFile[]): string[] {
  if (!flows) return [];
  const policies = flows.policies ?? {};
  const lines: string[] = [];
  for (const composite of composites) {
    for (const [tool, needs] of Object.entries(composite.flowPolicies ?? {})) {
      const policy = Object.hasOwn(policies, tool) ? policies[tool] : undefined;
      const required = policy?.trusted;
      // Without a policy, or with '*', every argument must be trusted; the recorded calls name their own.
      const stopped =
        required === undefined || required === '*'
          ? `every argument (no policy names which), and ${needs.trusted.length === 0 ? 'none' : needs.trusted.join(', ')} alone came from trusted data`
          : required.filter((name) => !needs.trusted.includes(name)).join(', ');
      if (stopped === '') continue;
      lines.push(
        `warn flows composite ${composite.name} (${composite.file}): its calls of ${tool} were recorded with data from untrusted sources where the config's policy requires trusted data (${stopped}): each run like the recorded ones ${flows.onViolation === 'refuse' ? 'is refused' : 'asks'}`,
      );
    }
  }
  return lines;
}
