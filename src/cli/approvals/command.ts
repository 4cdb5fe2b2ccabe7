/**
 * `toolweave approvals list | approve <id> | refuse <id> [--reason text]`: the person's side of
 * `approvals: queue` on the command line. It finds the running proxies by their endpoint files
 * (readable by this user only) and talks to each one's endpoint on 127.0.0.1 with its token.
 */
import type { ApprovalsArgs } from '../args.js';
import { readEndpoints, type EndpointRecord } from './endpoint-file.js';
import type { ListedApproval } from './queue.js';

/** How long one proxy may take to answer. */
const REQUEST_TIMEOUT_MS = 5_000;
/** The most characters of one approval's text printed by `list`. */
const SHOWN_TEXT_CHARS = 2_000;

/** What the command prints and whether it succeeded. */
export interface ApprovalsReport {
  ok: boolean;
  lines: string[];
  problems: string[];
}

/** Run `toolweave approvals ...`. */
export async function runApprovals(args: ApprovalsArgs): Promise<ApprovalsReport> {
  const endpoints = await readEndpoints();
  if (endpoints.length === 0) {
    return { ok: false, lines: [], problems: ['no proxy with approvals: queue is running for this user (no endpoint file in ~/.toolweave/approvals or TOOLWEAVE_APPROVALS_DIR)'] };
  }
  if (args.action === 'list') return list(endpoints, args.json);
  const body = args.action === 'approve' ? { decision: 'approve' } : { decision: 'refuse', ...(args.reason ? { reason: args.reason } : {}) };
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const answer = await ask(endpoint, `/${encodeURIComponent(args.id)}`, { method: 'POST', body: JSON.stringify(body) });
    if (answer.status === 404 && answer.data?.code === 'approval_unknown') continue;
    if (answer.status === 200) {
      const ids = Array.isArray(answer.data?.answered) ? (answer.data.answered as string[]) : [args.id];
      return { ok: true, lines: [`${args.action === 'approve' ? 'approved' : 'refused'} ${ids.join(', ')}; the model goes on when it calls resume_run`], problems };
    }
    problems.push(`${endpoint.url}: ${answer.error ?? `${answer.status} ${String(answer.data?.error ?? '')}`}`);
    if (answer.status === 409) return { ok: false, lines: [], problems };
  }
  return { ok: false, lines: [], problems: [...problems, `no running proxy has an approval "${args.id}" waiting (see toolweave approvals list)`] };
}

async function list(endpoints: readonly EndpointRecord[], json: boolean): Promise<ApprovalsReport> {
  const all: ListedApproval[] = [];
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const answer = await ask(endpoint, '', { method: 'GET' });
    if (answer.status === 200 && Array.isArray(answer.data?.approvals)) all.push(...(answer.data.approvals as ListedApproval[]));
    else problems.push(`${endpoint.url}: ${answer.error ?? `${answer.status}`}`);
  }
  if (json) return { ok: problems.length === 0, lines: [JSON.stringify(all, null, 2)], problems };
  if (all.length === 0) return { ok: problems.length === 0, lines: ['no approvals wait'], problems };
  const lines = all.flatMap((approval) => [
    `${approval.id}  ${approval.status}${approval.reason ? ` (${approval.reason})` : ''}  run ${approval.run}, asked ${approval.askedAt}`,
    ...cut(approval.text).split('\n').map((line) => `    ${line}`),
  ]);
  return { ok: problems.length === 0, lines, problems };
}

function cut(text: string): string {
  return text.length > SHOWN_TEXT_CHARS ? `${text.slice(0, SHOWN_TEXT_CHARS)}... (cut)` : text;
}

/** One request to a proxy's endpoint: its status and JSON, or why it could not be made. */
async function ask(endpoint: EndpointRecord, suffix: string, init: { method: string; body?: string }): Promise<{ status: number; data?: Record<string, unknown>; error?: string }> {
  try {
    const response = await fetch(`${endpoint.url}${suffix}`, {
      ...init,
      headers: { authorization: `Bearer ${endpoint.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let data: Record<string, unknown> | undefined;
    try {
      data = JSON.parse(text) as Record<string, unknown>;
    } catch {
      data = undefined;
    }
    return { status: response.status, ...(data ? { data } : {}) };
  } catch (error) {
    return { status: 0, error: `cannot be reached (${error instanceof Error ? error.message : String(error)})` };
  }
}
