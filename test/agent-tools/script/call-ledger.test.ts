import { describe, expect, it } from 'vitest';
import { CallLedger, effectOutcome } from '../../../src/agent-tools/script/call-ledger.js';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { delay, mockTool } from './helpers.js';

const failed = (code: string) => ({ success: false, error: 'no', details: { code } });

describe('effectOutcome', () => {
  it('says how a started call ended, and nothing for a call whose tool never started', () => {
    expect(effectOutcome({ success: true, output: 1 })).toBe('ran');
    expect(effectOutcome(failed('step_failed'))).toBe('failed');
    expect(effectOutcome(failed('step_threw'))).toBe('failed');
    expect(effectOutcome(failed('step_timeout'))).toBe('timed_out');
    expect(effectOutcome(failed('step_bad_result'))).toBe('unknown');
    for (const code of ['step_not_chainable', 'side_effects_undeclared', 'step_missing', 'args_invalid', 'input_invalid', 'composition_cycle', 'permission_denied', 'approval_rejected', 'step_aborted', 'budget_exceeded']) {
      expect(effectOutcome(failed(code)), code).toBeUndefined();
    }
  });
});

describe('CallLedger', () => {
  const write = mockTool('write', () => 'ok', { hasSideEffects: true });
  const read = mockTool('read', () => 'ok');
  const settle = (ms: number, result: ToolExecutionResult) => delay(ms).then(() => result);

  it('says whether every call it followed was of a tool that declares no side effects', () => {
    const ok = Promise.resolve({ success: true, output: 1 } as ToolExecutionResult);
    const pure = mockTool('pure', () => 'ok', { hasSideEffects: false });
    const undeclared = { ...mockTool('undeclared', () => 'ok'), hasSideEffects: undefined };
    const door = mockTool('door', () => 'ok', { hasSideEffects: false, composition: true });
    const ledger = new CallLedger();
    void ledger.track('call 1', 'pure', pure, ok);
    void ledger.track('call 2', 'missing', undefined, ok);
    expect(ledger.changedNothing).toBe(false);
    for (const [name, tool] of [['pure', pure], ['undeclared', undeclared], ['door', door], ['write', write]] as const) {
      const one = new CallLedger();
      void one.track('call 1', name, tool, ok);
      expect(one.changedNothing, name).toBe(name === 'pure');
    }
  });

  it('lists side-effecting calls in the order they settled, waits the grace for the rest, then calls them unknown', async () => {
    const ledger = new CallLedger();
    ledger.track('call 1', 'write', write, settle(40, { success: true }));
    ledger.track('call 2', 'write', write, settle(10, failed('step_failed')));
    ledger.track('call 3', 'read', read, settle(5, { success: true }));
    ledger.track('call 4', 'write', write, new Promise(() => {}));
    ledger.track('call 5', 'write', write, settle(5, failed('approval_rejected')));
    expect(await ledger.close(100)).toEqual([
      { step: 'call 2', tool: 'write', ran: true, outcome: 'failed' },
      { step: 'call 1', tool: 'write', ran: true, outcome: 'ran' },
      { step: 'call 4', tool: 'write', ran: true, outcome: 'unknown' },
    ]);
  });

  it('records nothing that settles after it closed', async () => {
    const ledger = new CallLedger();
    ledger.track('call 1', 'write', write, settle(30, { success: true }));
    expect(await ledger.close(0)).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'unknown' }]);
    await delay(50);
    expect(await ledger.close(0)).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'unknown' }]);
  });
});
