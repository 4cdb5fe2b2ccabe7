/**
 * The approvals queue and the hook of queue mode: bounded in runs, each run its session's, answers
 * given once, expired runs dropped; the hook waits only where a run can wait.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../src/cli/approvals/queue.js';
import { DEFAULT_APPROVER, queueApprovals } from '../../src/cli/approvals/queued-doors.js';
import { approvalSettings } from '../../src/cli/approvals/settings.js';
import type { ApprovalAction, PendingCall } from '../../src/index.js';

const call = (tool: string): PendingCall => ({ tool, step: tool, args: { path: `/tmp/${tool}` }, caller: { door: 'run_pipeline', path: [], modelChosen: ['step', 'args'] } });
const later = () => Date.now() + 60_000;

describe('ApprovalQueue', () => {
  it('holds at most maxRuns runs; the hook then refuses instead of pausing', async () => {
    const queue = new ApprovalQueue(2);
    const hook = queueApprovals(queue, 'a');
    const action: ApprovalAction = { toolId: 'w', toolName: 'write_file', step: 's', args: {}, caller: { door: 'compose', path: [], modelChosen: [] } };
    expect(await hook.requestApproval(action, {})).toEqual({ pending: true });
    expect(queue.file('a', 'run_pipeline', 't1', [call('one')], later())).toBeDefined();
    expect(queue.file('a', 'run_pipeline', 't2', [call('two')], later())).toBeDefined();
    expect(queue.full()).toBe(true);
    expect(queue.file('a', 'run_pipeline', 't3', [call('three')], later())).toBeUndefined();
    expect(await hook.requestApproval(action, {})).toMatchObject({ approved: false, queueFull: true, reason: expect.stringMatching(/queue is full \(2 runs wait\)/u) });
  });

  it("bounds each session's share: past it that session's hook answers queueFull, another session's still waits", async () => {
    const queue = new ApprovalQueue(10, 2);
    const action: ApprovalAction = { toolId: 'w', toolName: 'write_file', step: 's', args: {}, caller: { door: 'compose', path: [], modelChosen: [] } };
    expect(queue.file('alice', 'run_pipeline', 't1', [call('one')], later())).toBeDefined();
    expect(queue.file('alice', 'run_pipeline', 't2', [call('two')], later())).toBeDefined();
    expect([queue.room('alice'), queue.room('bob')]).toEqual(['session_full', 'free']);
    expect(queue.file('alice', 'run_pipeline', 't3', [call('three')], later())).toBeUndefined();
    expect(await queueApprovals(queue, 'alice').requestApproval(action, {})).toMatchObject({ approved: false, queueFull: true, reason: expect.stringMatching(/this session's share of the approvals queue is full \(2 of its runs wait\)/u) });
    expect(await queueApprovals(queue, 'bob').requestApproval(action, {})).toEqual({ pending: true });
    expect(queue.file('bob', 'run_pipeline', 't4', [call('four')], later())).toBeDefined();
    // A share is never more than the whole queue.
    expect(new ApprovalQueue(3, 50).maxRunsPerOwner).toBe(3);
  });

  it('the hook refuses what cannot wait, a direct call, and lets a run_js call wait', async () => {
    const hook = queueApprovals(new ApprovalQueue(), 'a');
    expect(await hook.requestApproval({ toolId: 'w', toolName: 'write_file', step: 'write_file', args: {} }, {})).toMatchObject({ approved: false, reason: expect.stringMatching(/a direct call cannot wait/u) });
    const fromScript = await hook.requestApproval({ toolId: 'w', toolName: 'write_file', step: 'call 1', args: {}, caller: { door: 'run_js', path: [], modelChosen: ['intention', 'args'] } }, {});
    expect(fromScript).toEqual({ pending: true });
  });

  it("a run is its session's; answers go to one call or every waiting call of a run, once", () => {
    const queue = new ApprovalQueue();
    const run = queue.file('alice', 'compose', 'token', [call('one'), call('two')], later())!;
    expect(run.calls.map((c) => c.id)).toEqual([`${run.id}.1`, `${run.id}.2`]);
    expect(queue.runOf(run.id, 'bob')).toBeUndefined();
    expect(queue.runOf(run.id, 'alice')).toBe(run);

    expect(queue.answer(`${run.id}.2`, { approved: false, reason: 'no' })).toEqual({ answered: [`${run.id}.2`] });
    expect(queue.answer(run.id, { approved: true })).toEqual({ answered: [`${run.id}.1`] });
    expect(queue.answer(run.id, { approved: true })).toEqual({ alreadyAnswered: [`${run.id}.1`, `${run.id}.2`] });
    expect(queue.answer(`${run.id}.3`, { approved: true })).toEqual({ unknown: true });
    expect(queue.list().map((a) => [a.id, a.status, a.reason])).toEqual([
      [`${run.id}.1`, 'approved', undefined],
      [`${run.id}.2`, 'refused', 'no'],
    ]);
    expect(queue.list()[0].text).toContain('Tool: one');

    queue.dropOwner('alice');
    expect(queue.list()).toEqual([]);
    expect(queue.answer(run.id, { approved: true })).toEqual({ unknown: true });
  });

  it('drops a run once its token has expired', () => {
    const queue = new ApprovalQueue(1);
    const run = queue.file('alice', 'compose', 'token', [call('one')], Date.now() - 1)!;
    expect(queue.runOf(run.id, 'alice')).toBeUndefined();
    expect(queue.full()).toBe(false);
    expect(queue.list()).toEqual([]);
  });
});

describe('approvalSettings', () => {
  it('reads the short form and the long one alike, with the defaults filled in', () => {
    expect(approvalSettings({})).toEqual({ mode: 'none', port: 0, maxPending: 100, maxPendingPerSession: 20, approver: DEFAULT_APPROVER });
    expect(approvalSettings({ approvals: 'elicit' })).toEqual(approvalSettings({ approvals: { mode: 'elicit' } }));
    expect(approvalSettings({ approvals: { mode: 'queue', port: 8123, maxPending: 3, maxPendingPerSession: 2, approver: 'ops' } })).toEqual({ mode: 'queue', port: 8123, maxPending: 3, maxPendingPerSession: 2, approver: 'ops' });
  });
});
