/**
 * Which of the proxy's own tools a session serves for a config, as `toolweave check` names them
 * (a session builds its doors in the same order, in `session.ts`).
 */
import { COMPOSE_TOOL_NAME, RUN_PIPELINE_TOOL_NAME, SCRIPT_TOOL_NAME } from '../agent-tools/batching-names.js';
import { RESUME_RUN_TOOL_NAME } from './approvals/queued-doors.js';
import { approvalSettings } from './approvals/settings.js';
import type { ProxyConfig } from './config-types.js';
import { GET_OBSERVATION_TOOL_NAME } from './own-names.js';

/**
 * The own tools served under `config`, in the order listed: code-only serves run_js alone of the
 * doors; `approvals: queue` adds resume_run in either mode, since any door that pauses needs it.
 */
export function servedDoorNames(config: Pick<ProxyConfig, 'codeOnly' | 'approvals'>): string[] {
  const doors = config.codeOnly ? [SCRIPT_TOOL_NAME] : [RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, SCRIPT_TOOL_NAME];
  return [...doors, GET_OBSERVATION_TOOL_NAME, ...(approvalSettings(config).mode === 'queue' ? [RESUME_RUN_TOOL_NAME] : [])];
}
