import { describe, expect, it } from 'vitest';
import { traceStart } from '../../../src/gate/stages/trace.js';
import type { ToolEvent } from '../../../src/tool-events.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf, frameOf } from './record.js';

describe('stage: trace', () => {
  const read = tool('read', () => 'r');
  const gate = registry(read).gate();

  it('starts no observation when nothing watches', () => {
    const call = callOf({ gate, tool: read, frame: frameOf() });
    traceStart(call);
    expect(call.observed).toBeUndefined();
  });

  it("tells the context's listener the call starts, with its door", () => {
    const events: ToolEvent[] = [];
    const call = callOf({ gate, tool: read, frame: frameOf({}, { kind: 'compose' }), context: { onEvent: (e: ToolEvent) => events.push(e) } });
    traceStart(call);
    expect(call.observed).toBeDefined();
    expect(events).toEqual([{ type: 'call_started', tool: 'read', step: 'step', path: [] }]);
  });
});
