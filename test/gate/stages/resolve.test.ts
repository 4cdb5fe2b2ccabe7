import { describe, expect, it } from 'vitest';
import { resolveTool } from '../../../src/gate/stages/resolve.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

describe('stage: resolve', () => {
  const first = tool('lookup', () => 1);
  const second = tool('lookup', () => 2);

  it('finds the instance the registry holds now, by the name the call used', () => {
    const reg = registry(first);
    const call = callOf({ gate: reg.gate(), name: 'lookup' });
    expect(resolveTool(call)).toBeUndefined();
    expect(call.tool).toBe(first);
    reg.add(second);
    resolveTool(call);
    expect(call.tool).toBe(second);
  });

  it('finds nothing for a name no tool has (the next stage refuses it)', () => {
    const call = callOf({ gate: registry(first).gate(), name: 'nope' });
    resolveTool(call);
    expect(call.tool).toBeUndefined();
  });

  it("reuses the tool a plan's check resolved while the registry version holds, and resolves again once it changes", () => {
    const reg = registry(second);
    let version = 1;
    const call = callOf({ gate: reg.gate(), name: 'lookup', door: { version: () => version, resolved: { version: 1, bySlot: [first] } } });
    call.site = { slot: 0, mayBuildNonObject: false, checkedTool: undefined, argsCheck: null };
    resolveTool(call);
    expect(call.tool).toBe(first);
    version = 2;
    resolveTool(call);
    expect(call.tool).toBe(second);
  });
});
