import { describe, expect, it } from 'vitest';
import { Later } from '../../../src/gate/call-record.js';
import type { StepGate } from '../../../src/gate/options.js';
import { handToHostGate } from '../../../src/gate/stages/host-gate.js';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

/** The verdict a Later settles with. */
function verdictOf(later: Later): Promise<ToolExecutionResult | undefined> {
  return new Promise((resolve) => later.then(resolve));
}

describe('stage: host gate', () => {
  const read = tool('read', () => 'r');

  it('does nothing for a gate createStepGate made (its own stages follow)', () => {
    expect(handToHostGate(callOf({ gate: registry(read).gate(), tool: read }))).toBeUndefined();
  });

  it("hands the call to a host's own gate, which runs the rest, and ends with its answer", async () => {
    const seen: unknown[] = [];
    const host: StepGate = { resolve: () => read, run: async (t, args, context, signal, options) => (seen.push([t.name, args, options]), { success: true, output: 'host ran it' }) };
    const call = callOf({ gate: host, tool: read, args: { a: 1 }, timeoutMs: 50 });
    const later = handToHostGate(call);
    expect(later).toBeInstanceOf(Later);
    expect(call.answered).toBe('host');
    expect(await verdictOf(later!)).toEqual({ success: true, output: 'host ran it' });
    expect(seen).toEqual([['read', { a: 1 }, { step: 'step', timeoutMs: 50 }]]);
  });

  it('turns a host gate that throws, or answers a failure with no code, into a result with one', async () => {
    const throwing: StepGate = { resolve: () => read, run: () => Promise.reject(new Error('down')) };
    expect((await verdictOf(handToHostGate(callOf({ gate: throwing, tool: read }))!))?.details?.code).toBe('step_threw');
    const codeless: StepGate = { resolve: () => read, run: async () => ({ success: false, error: 'no' }) };
    expect((await verdictOf(handToHostGate(callOf({ gate: codeless, tool: read }))!))?.details).toMatchObject({ code: 'step_failed', tool: 'read' });
  });
});
