import { describe, expect, it } from 'vitest';
import { freeSlot, Later } from '../../../src/gate/call-record.js';
import { RunFrame } from '../../../src/gate/run-frame.js';
import { takeBudget } from '../../../src/gate/stages/budget.js';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf, frameOf } from './record.js';

const read = tool('read', () => 'r');
const gate = registry(read).gate();

describe('stage: budget', () => {
  it('counts the call and takes a place in flight', () => {
    const frame = frameOf();
    const call = callOf({ gate, tool: read, frame });
    expect(takeBudget(call)).toBeUndefined();
    expect([frame.budget.calls, frame.budget.inFlight, call.slot]).toEqual([1, 1, frame.budget]);
    freeSlot(call);
    expect(frame.budget.inFlight).toBe(0);
  });

  it('refuses a call whose run was aborted', () => {
    const abort = new AbortController();
    abort.abort();
    expect((takeBudget(callOf({ gate, tool: read, signal: abort.signal, frame: frameOf() })) as ToolExecutionResult).details?.code).toBe('step_aborted');
  });

  it('refuses a call past the calls in all', () => {
    const frame = frameOf({ calls: 1 });
    expect(takeBudget(callOf({ gate, tool: read, frame }))).toBeUndefined();
    expect((takeBudget(callOf({ gate, tool: read, frame })) as ToolExecutionResult).details).toMatchObject({ code: 'budget_exceeded', limit: 'calls' });
  });

  it('does not count again a call counted before a person was asked about it', () => {
    const frame = frameOf({ calls: 1 });
    frame.budget.calls = 1;
    const call = callOf({ gate, tool: read, frame });
    call.counted = true;
    expect(takeBudget(call)).toBeUndefined();
    expect(frame.budget.calls).toBe(1);
  });

  it('makes a call wait for a place in flight, and lets it go on once one is given back', async () => {
    const frame = frameOf({ inFlight: 1 });
    const first = callOf({ gate, tool: read, frame });
    takeBudget(first);
    const second = callOf({ gate, tool: read, frame });
    const wait = takeBudget(second);
    expect(wait).toBeInstanceOf(Later);
    const verdict = new Promise((resolve) => (wait as Later).then(resolve));
    freeSlot(first);
    expect(await verdict).toBeUndefined();
    expect(second.slot).toBe(frame.budget);
  });

  it('refuses an interactive tool under a script', () => {
    const frame = new RunFrame(frameOf().budget, new Set(['ask_user']), { kind: 'run_js' }, undefined, false, undefined, 1, [], undefined, undefined);
    const ask = tool('ask_user', () => 'yes', { hasSideEffects: false, interactive: true });
    expect((takeBudget(callOf({ gate, tool: ask, frame })) as ToolExecutionResult).details?.code).toBe('tool_interactive');
  });

  it('gives a composition no place in flight: its own calls take theirs', () => {
    const frame = frameOf({ inFlight: 1 });
    const composite = tool('outer', () => 'x', { hasSideEffects: false, composition: true });
    const call = callOf({ gate, tool: composite, frame });
    expect(takeBudget(call)).toBeUndefined();
    expect([frame.budget.calls, frame.budget.inFlight, call.slot]).toEqual([1, 0, undefined]);
  });
});
