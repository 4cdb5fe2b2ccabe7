/**
 * A side-effecting call with no arguments is still the choice of whoever made it: a model whose
 * session read untrusted text cannot have it run without a question, directly or through
 * run_pipeline, by giving it nothing to label.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';
import { bank, LANDLORD } from './banking.js';

function setup() {
  const b = bank();
  const wiped: unknown[] = [];
  const wipe = tool('wipe_account', (args) => (wiped.push(args), 'wiped'), { hasSideEffects: true, inputSchema: { type: 'object', properties: { keep: { type: 'string' } } } });
  const gate = registry(...b.tools, wipe).gate({ flows: { onViolation: 'refuse', policies: { send_money: { trusted: ['recipient'] } } } });
  const doors = { sideEffectingTools: ['wipe_account', 'send_money'] };
  const builder = new ComposableToolBuilder(gate);
  builder.bind(doors);
  return { ...b, gate, wipe, wiped, builder, pipeline: createRunPipelineTool(gate, doors), compose: createComposeTool(gate, doors) };
}

type Call = (s: ReturnType<typeof setup>, context: ToolExecutionContext) => Promise<ToolExecutionResult>;

const CALLS: [string, Call][] = [
  ['directly', (s, c) => s.gate.run(s.wipe, {}, c)],
  ['through run_pipeline', (s, c) => s.pipeline.execute({ steps: [{ tool: 'wipe_account', args: {} }] }, c)],
  ['through run_pipeline, without args', (s, c) => s.pipeline.execute({ steps: [{ tool: 'wipe_account' }] }, c)],
  ['through compose', (s, c) => s.compose.execute({ combinator: 'pipe', stages: [{ tool: 'wipe_account', args: {} }] } as never, c)],
];

describe('a side-effecting call of no arguments, in a session that read untrusted text', () => {
  for (const [how, call] of CALLS) {
    it(`is refused ${how}; in a clean session it runs`, async () => {
      const s = setup();
      const read = s.tools.find((t: ITool) => t.name === 'read_file')!;
      await s.gate.run(read, {}, { sessionId: 'read' });
      const result = await call(s, { sessionId: 'read' });
      expect(JSON.stringify(result)).toContain('flow_untrusted');
      expect(s.wiped).toEqual([]);
      expect((await call(s, { sessionId: 'clean' })).success).toBe(true);
      expect(s.wiped).toHaveLength(1);
    });
  }

  it('leaving out an argument the policy needs trusted is that choice too', async () => {
    const s = setup();
    await s.gate.run(s.tools.find((t: ITool) => t.name === 'read_file')!, {}, { sessionId: 'read' });
    const result = await s.gate.run(s.tools.find((t: ITool) => t.name === 'send_money')!, { amount: 1 }, { sessionId: 'read' });
    expect(result.details?.code).toBe('flow_untrusted');
    expect(s.payments).toEqual([]);
  });

  it("a host's composite whose step has no arguments still runs: the host wrote which calls it makes", async () => {
    const s = setup();
    await s.gate.run(s.tools.find((t: ITool) => t.name === 'read_file')!, {}, { sessionId: 'read' });
    const pay = s.builder.build('pay_rent', 'x', { type: 'object' }, { steps: [{ tool: 'send_money', inputMapping: { recipient: LANDLORD, amount: 1 } }] });
    expect((await pay.execute({}, { sessionId: 'read' })).success).toBe(true);
  });
});

describe('a policy that needs no argument trusted', () => {
  it('lets a call of no arguments run from a session that read untrusted text', async () => {
    const s = setup();
    const gate = registry(s.wipe, ...s.tools).gate({ flows: { onViolation: 'refuse', policies: { wipe_account: { trusted: [], control: false } } } });
    await gate.run(s.tools.find((t: ITool) => t.name === 'read_file')!, {}, { sessionId: 'read' });
    expect((await gate.run(s.wipe, {}, { sessionId: 'read' })).success).toBe(true);
  });

  it('lets a call of no arguments run when the policy lets anything decide whether it is made', async () => {
    const s = setup();
    const gate = registry(s.wipe, ...s.tools).gate({ flows: { onViolation: 'refuse', policies: { wipe_account: { control: false } } } });
    await gate.run(s.tools.find((t: ITool) => t.name === 'read_file')!, {}, { sessionId: 'read' });
    expect((await gate.run(s.wipe, {}, { sessionId: 'read' })).success).toBe(true);
    // An argument it is given still needs whoever wrote it trusted.
    expect((await gate.run(s.wipe, { keep: 'photos' }, { sessionId: 'read' })).details?.code).toBe('flow_untrusted');
  });
});
