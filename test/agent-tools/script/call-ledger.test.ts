import { describe, expect, it } from 'vitest';
import { CallLedger, effectOutcome } from '../../../src/agent-tools/script/call-ledger.js';
import type { CallByNameResult } from '../../../src/gate/call.js';
import { delay, mockTool } from './helpers.js';

const failed = (code: string) => ({ success: false, error: 'no', details: { code } });

describe('effectOutcome', () => {
  it('says how a started call ended, and nothing for a call whose tool never started', () => {
    expect(effectOutcome({ success: true, output: 1 })).toBe('ran');
    expect(effectOutcome(failed('step_failed'))).toBe('failed');
    expect(effectOutcome(failed('step_threw'))).toBe('failed');
    expect(effectOutcome(failed('step_timeout'))).toBe('timed_out');
    expect(effectOutcome(failed('step_bad_result'))).toBe('unknown');
    for (const code of ['permission_denied', 'approval_rejected', 'step_aborted', 'budget_exceeded']) {
      expect(effectOutcome(failed(code)), code).toBeUndefined();
    }
  });
});

describe('CallLedger', () => {
  const write = mockTool('write', () => 'ok', { hasSideEffects: true });
  const read = mockTool('read', () => 'ok');
  const settle = (ms: number, result: CallByNameResult) => delay(ms).then(() => result);

  it('lists side-effecting calls in the order they settled, waits the grace for the rest, then calls them unknown', async () => {
    const ledger = new CallLedger();
    ledger.track('call 1', 'write', write, settle(40, { result: { success: true }, tool: write }));
    ledger.track('call 2', 'write', write, settle(10, { result: failed('step_failed'), tool: write }));
    ledger.track('call 3', 'read', read, settle(5, { result: { success: true }, tool: read }));
    ledger.track('call 4', 'write', write, new Promise(() => {}));
    ledger.track('call 5', 'write', write, settle(5, { result: failed('approval_rejected'), tool: write }));
    expect(await ledger.close(100)).toEqual([
      { step: 'call 2', tool: 'write', ran: true, outcome: 'failed' },
      { step: 'call 1', tool: 'write', ran: true, outcome: 'ran' },
      { step: 'call 4', tool: 'write', ran: true, outcome: 'unknown' },
    ]);
  });

  it('records nothing that settles after it closed', async () => {
    const ledger = new CallLedger();
    ledger.track('call 1', 'write', write, settle(30, { result: { success: true }, tool: write }));
    expect(await ledger.close(0)).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'unknown' }]);
    await delay(50);
    expect(await ledger.close(0)).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'unknown' }]);
  });
});
