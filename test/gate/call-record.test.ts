import { describe, expect, it } from 'vitest';
import { Later } from '../../src/gate/call-record.js';
import type { ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';
import { callOf } from './stages/record.js';

const refused: ToolExecutionResult = { success: false, error: 'no', details: { code: 'permission_denied' } };

describe('Later: a verdict known after the stage returned', () => {
  it('tells a listener that comes after the verdict at once', () => {
    const later = new Later();
    later.settle(refused);
    const heard: unknown[] = [];
    later.then((verdict) => heard.push(verdict));
    expect(heard).toEqual([refused]);
  });

  it('tells a listener that came before the verdict once it is known, and only the first verdict counts', () => {
    const later = new Later();
    const heard: unknown[] = [];
    later.then((verdict) => heard.push(verdict));
    expect(heard).toEqual([]);
    later.settle(undefined);
    later.settle(refused);
    expect(heard).toEqual([undefined]);
    // A listener after both still hears the first.
    later.then((verdict) => heard.push(verdict));
    expect(heard).toEqual([undefined, undefined]);
  });
});

describe('GateCall.expire', () => {
  it('names the tool by its own name, not the name it was called by', () => {
    const real = tool('real-name', () => 'r');
    const call = callOf({ gate: registry(real).gate(), tool: real, name: 'alias' });
    call.expire();
    expect(call.delivered).toHaveLength(1);
    expect(call.delivered[0].error).toContain('real-name');
    expect(call.delivered[0].error).not.toContain('alias');
  });
});
