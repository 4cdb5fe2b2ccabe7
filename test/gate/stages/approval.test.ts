import { describe, expect, it } from 'vitest';
import { Later } from '../../../src/gate/call-record.js';
import type { ApprovalAction } from '../../../src/gate/host-hooks.js';
import { askApproval } from '../../../src/gate/stages/approval.js';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf, frameOf } from './record.js';

const read = tool('read', () => 'r');
const write = tool('write', () => 'w', { hasSideEffects: true });

function verdict(later: unknown): Promise<ToolExecutionResult | undefined> {
  expect(later).toBeInstanceOf(Later);
  return new Promise((resolve) => (later as Later).then(resolve));
}

describe('stage: approval', () => {
  it('asks no one for a pure call, or through a gate without an approval hook', () => {
    const asking = registry(read, write).gate({ approvals: { requestApproval: () => ({ approved: true }) } });
    expect(askApproval(callOf({ gate: asking, tool: read }))).toBeUndefined();
    expect(askApproval(callOf({ gate: registry(write).gate(), tool: write }))).toBeUndefined();
  });

  it('asks once about a side-effecting call, counted against the budget before, and goes on when approved', async () => {
    const asked: ApprovalAction[] = [];
    const gate = registry(write).gate({ approvals: { requestApproval: (action) => (asked.push(action), { approved: true }) } });
    const frame = frameOf();
    const call = callOf({ gate, tool: write, args: { to: 'x' }, frame });
    expect(await verdict(askApproval(call))).toBeUndefined();
    expect(asked).toEqual([{ toolId: 'test:write', toolName: 'write', step: 'step', args: { to: 'x' } }]);
    expect(frame.budget.calls).toBe(1);
    expect(call.counted).toBe(true);
  });

  it('ends a refused call with the reason', async () => {
    const gate = registry(write).gate({ approvals: { requestApproval: () => ({ approved: false, reason: 'no' }) } });
    expect(await verdict(askApproval(callOf({ gate, tool: write })))).toMatchObject({ error: 'no', details: { code: 'approval_rejected', reason: 'no' } });
  });

  it('refuses an answer of later outside a run that can pause', async () => {
    const gate = registry(write).gate({ approvals: { requestApproval: () => ({ pending: true }) } });
    expect((await verdict(askApproval(callOf({ gate, tool: write }))))?.details).toMatchObject({ code: 'approval_rejected', reason: 'pending outside a run' });
  });

  it('does not ask again about a call a person approved when its run paused', () => {
    let asked = 0;
    const gate = registry(write).gate({ approvals: { requestApproval: () => (asked++, { approved: true }) } });
    const call = callOf({ gate, tool: write });
    call.approved = true;
    expect(askApproval(call)).toBeUndefined();
    expect(asked).toBe(0);
  });

  it('asks no one about a call that could not run anyway: its run was aborted, or the budget has no room', () => {
    let asked = 0;
    const gate = registry(write).gate({ approvals: { requestApproval: () => (asked++, { approved: true }) } });
    const abort = new AbortController();
    abort.abort();
    expect((askApproval(callOf({ gate, tool: write, signal: abort.signal })) as ToolExecutionResult).details?.code).toBe('step_aborted');
    const full = frameOf({ calls: 1 });
    full.budget.calls = 1;
    expect((askApproval(callOf({ gate, tool: write, frame: full })) as ToolExecutionResult).details?.code).toBe('budget_exceeded');
    expect(asked).toBe(0);
  });
});
