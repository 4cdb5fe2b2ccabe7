/**
 * `isApprovalPending(result)`: true for a door's pause (a token in `details.resume`, the calls in
 * `details.pending`), and it types both, so a strict TypeScript host reads them without a cast.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ComposableToolBuilder, isApprovalPending, resumeRun, type ITool, type PendingCall, type ToolExecutionResult } from '../../src/index.js';
import { registry, tool } from '../helpers/tools.js';

function pausingDoor(): ITool {
  const read = tool('read', (a) => ({ text: `note ${String(a.id)}` }));
  const send = tool('send', (a) => ({ sent: a.text }), { hasSideEffects: true });
  const gate = registry(read, send).gate({ approvals: { requestApproval: () => ({ pending: true }) } });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['send'] });
  return builder.build('notify', 'read a note and send it', { type: 'object' }, {
    steps: [
      { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
      { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
    ],
  }) as ITool;
}

describe('isApprovalPending', () => {
  it("is true for a door's pause, and types its token and pending calls", async () => {
    const door = pausingDoor();
    const result = await door.execute({ id: 7 }, { sessionId: 's1' });
    expect(isApprovalPending(result)).toBe(true);
    if (!isApprovalPending(result)) return;
    expectTypeOf(result.details.resume).toEqualTypeOf<string>();
    expectTypeOf(result.details.pending).toEqualTypeOf<PendingCall[]>();
    expectTypeOf(result.details.expiresAt).toEqualTypeOf<number>();
    expect(result.details.pending.map((call) => [call.tool, call.step, call.args])).toEqual([['send', 'send', { text: 'note 7' }]]);
    // The token it types is the one resumeRun takes.
    const resumed = await resumeRun(door, result.details.resume, [{ approved: true }], { sessionId: 's1' });
    expect(resumed).toMatchObject({ success: true, output: { sent: 'note 7' } });
    expect(isApprovalPending(resumed)).toBe(false);
  });

  it('is false for every result that is not a pause with a token', () => {
    const results: ToolExecutionResult[] = [
      { success: true, output: 'done' },
      { success: false, error: 'no', details: { code: 'tool_error' } },
      // What a call inside a paused run answers: the code, but no token (the door's result has it).
      { success: false, error: 'waits', details: { code: 'approval_pending', tool: 'send', step: 'send' } },
      { success: false, error: 'waits', details: { code: 'approval_pending', resume: 42, pending: [] } },
      { success: false, error: 'waits', details: { code: 'approval_pending', resume: 'tok', pending: 'send', expiresAt: 1 } },
      { success: false, error: 'waits', details: { code: 'approval_pending', resume: 'tok', pending: [] } },
      { success: true, details: { code: 'approval_pending', resume: 'tok', pending: [], expiresAt: 1 } },
      { success: false, error: 'no details' },
    ];
    expect(results.map((result) => isApprovalPending(result))).toEqual(results.map(() => false));
  });

  it("is what the guide's approval example uses, with no cast", () => {
    const guide = readFileSync(fileURLToPath(new URL('../../docs/guide.md', import.meta.url)), 'utf8');
    const section = guide.slice(guide.indexOf('## Approvals that wait for a person'));
    const example = /```ts\n([\s\S]*?)```/u.exec(section)?.[1] ?? '';
    expect(example).toContain('if (isApprovalPending(result))');
    expect(example).toMatch(/^import \{[^}]*\bisApprovalPending\b[^}]*\} from 'toolweave';$/mu);
    expect(example).not.toMatch(/ as [A-Z]|details\?\.code === 'approval_pending'/u);
  });
});
