/** The config's `approvals`, in its short form (a mode) or its long one, read as one shape. */
import type { ProxyConfig } from '../config-types.js';
import { DEFAULT_MAX_QUEUED_RUNS, DEFAULT_MAX_QUEUED_RUNS_PER_SESSION } from './queue.js';
import { DEFAULT_APPROVER } from './queued-doors.js';

/** `approvals` with every default filled in. */
export interface ApprovalSettings {
  mode: 'none' | 'elicit' | 'queue';
  port: number;
  maxPending: number;
  maxPendingPerSession: number;
  approver: string;
}

/** The approvals settings of `config`. */
export function approvalSettings(config: Pick<ProxyConfig, 'approvals'>): ApprovalSettings {
  const given = typeof config.approvals === 'string' ? { mode: config.approvals } : (config.approvals ?? { mode: 'none' as const });
  return {
    mode: given.mode,
    port: 'port' in given && given.port !== undefined ? given.port : 0,
    maxPending: 'maxPending' in given && given.maxPending !== undefined ? given.maxPending : DEFAULT_MAX_QUEUED_RUNS,
    maxPendingPerSession: 'maxPendingPerSession' in given && given.maxPendingPerSession !== undefined ? given.maxPendingPerSession : DEFAULT_MAX_QUEUED_RUNS_PER_SESSION,
    approver: 'approver' in given && given.approver ? given.approver : DEFAULT_APPROVER,
  };
}
