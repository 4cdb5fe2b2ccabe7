import { describe, expect, it } from 'vitest';
import { Later } from '../../../src/gate/call-record.js';
import { askPermission } from '../../../src/gate/stages/permission.js';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

const read = tool('read', () => 'r');

function verdict(later: Later | undefined): Promise<ToolExecutionResult | undefined> {
  expect(later).toBeInstanceOf(Later);
  return new Promise((resolve) => later!.then(resolve));
}

describe('stage: permission', () => {
  it('asks nothing of a gate with no permission check and no checks', () => {
    expect(askPermission(callOf({ gate: registry(read).gate(), tool: read }))).toBeUndefined();
  });

  it('asks the permission check, then each check in order; the first refusal ends the call', async () => {
    const asked: string[] = [];
    const gate = registry(read).gate({
      permissionManager: { isExecutionAllowed: () => (asked.push('manager'), { isAllowed: true }) },
      checks: [() => (asked.push('first'), { isAllowed: false, reason: 'not today' }), () => (asked.push('second'), { isAllowed: true })],
    });
    expect(await verdict(askPermission(callOf({ gate, tool: read })))).toMatchObject({ error: 'not today', details: { code: 'permission_denied', tool: 'read', step: 'step' } });
    expect(asked).toEqual(['manager', 'first']);
  });

  it('goes on when every check allows the call', async () => {
    const gate = registry(read).gate({ checks: [() => ({ isAllowed: true })] });
    expect(await verdict(askPermission(callOf({ gate, tool: read })))).toBeUndefined();
  });

  it('fails closed: a check that throws, or answers anything but a well-formed decision, refuses', async () => {
    for (const check of [() => { throw new Error('down'); }, () => ({ isAllowed: 'yes' }), () => null]) {
      const gate = registry(read).gate({ checks: [check as never] });
      expect((await verdict(askPermission(callOf({ gate, tool: read }))))?.details?.code).toBe('permission_denied');
    }
  });
  it('fails closed when reading the host\'s checks itself throws', async () => {
    const call = callOf({ gate: registry(read).gate({ checks: [() => ({ isAllowed: true })] }), tool: read });
    const broken = { [Symbol.iterator]: () => { throw new Error('checks unreadable'); } };
    call.settings = { ...call.settings!, asksPermission: true, checks: broken as never };
    expect(await verdict(askPermission(call))).toMatchObject({ success: false, details: { code: 'permission_denied', tool: 'read' } });
  });
});
