import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { FlowOptions } from '../../src/flows/options.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { registry } from '../helpers/tools.js';
import { ATTACKER, bank, LANDLORD } from './banking.js';

const anyObject = { type: 'object' } as const;

function setup(flows: FlowOptions = {}, approve?: (action: ApprovalAction) => boolean) {
  const b = bank();
  const asked: ApprovalAction[] = [];
  const reg = registry(...b.tools);
  const gate = reg.gate({
    flows,
    ...(approve ? { approvals: { requestApproval: (action: ApprovalAction) => (asked.push(action), { approved: approve(action) }) } } : {}),
  });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['send_money'] });
  const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['send_money'] });
  const compose = createComposeTool(gate, { sideEffectingTools: ['send_money'] });
  return { ...b, gate, builder, pipeline, compose, asked };
}

const fromFile = { steps: [{ name: 'bill', tool: 'read_file', inputMapping: { path: 'bill.txt' } }, { tool: 'send_money', inputMapping: { recipient: '$steps.bill', amount: 98 } }] };

describe('flows: a composite', () => {
  it("refuses a payment whose recipient untrusted text steers, with each argument's provenance, and pays nothing", async () => {
    const { builder, payments } = setup();
    const result = await builder.build('pay_bill', 'pay the bill', anyObject, fromFile).execute({}, {});
    expect(payments).toEqual([]);
    expect(result.details).toMatchObject({
      code: 'flow_untrusted',
      tool: 'send_money',
      provenance: { recipient: { trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] }, amount: { trusted: true, sources: [] } },
    });
  });

  it("pays from the user's own input and from trusted parts of a trusted tool's output, without a question", async () => {
    const { builder, payments, asked } = setup({}, () => false);
    const fromInput = builder.build('pay', 'pay', anyObject, { steps: [{ tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 10 } }] });
    expect((await fromInput.execute({ to: LANDLORD }, {})).success).toBe(true);
    const refund = builder.build('refund_first', 'refund', anyObject, {
      steps: [{ tool: 'get_transactions' }, { tool: 'send_money', inputMapping: { recipient: '$prev[0].sender', amount: '$prev[0].amount' } }],
    });
    expect((await refund.execute({}, {})).success).toBe(true);
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 10 }, { recipient: LANDLORD, amount: 1200 }]);
    expect(asked).toEqual([]);
  });

  it('labels each call by the tool instance that answers it: a trusted tool replaced by an untrusted one steers nothing from the next run', async () => {
    const b = bank();
    const reg = registry(...b.tools);
    const untrustedRead = reg.map.get('read_file')!;
    reg.add(Object.assign(Object.create(Object.getPrototypeOf(untrustedRead) as object) as ITool, untrustedRead, { trustedOutput: true }));
    const builder = new ComposableToolBuilder(reg.gate({ flows: {} }));
    builder.bind({ sideEffectingTools: ['send_money'] });
    const payBill = builder.build('pay_bill', 'pay the bill', anyObject, fromFile);
    expect((await payBill.execute({}, {})).success).toBe(true);
    reg.add(untrustedRead);
    expect((await payBill.execute({}, {})).details?.code).toBe('flow_untrusted');
    expect(b.payments).toHaveLength(1);
  });

  it("refuses a payment built from a transaction's subject, which its sender wrote", async () => {
    const { builder, payments } = setup();
    const hijacked = builder.build('hijacked', 'follows a subject', anyObject, {
      steps: [{ tool: 'get_transactions' }, { tool: 'send_money', inputMapping: { recipient: 'DE00-X', amount: 1, subject: '${$prev[1].subject}' } }],
    });
    const result = await hijacked.execute({}, {});
    expect(result.details?.code).toBe('flow_untrusted');
    expect((result.details?.provenance as Record<string, { trusted: boolean }>).subject.trusted).toBe(false);
    expect(payments).toEqual([]);
  });

  it('asks a person once, showing where each argument came from; a yes pays, a no does not', async () => {
    for (const yes of [true, false]) {
      const { builder, payments, asked } = setup({}, () => yes);
      const result = await builder.build('pay_bill', 'pay the bill', anyObject, fromFile).execute({}, {});
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ toolName: 'send_money', untrusted: true, provenance: { recipient: { trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] } } });
      expect(payments).toEqual(yes ? [{ recipient: expect.stringContaining(ATTACKER), amount: 98 }] : []);
      expect(result.success).toBe(yes);
    }
  });

  it("refuses what a violation asks about when onViolation is 'refuse', even with a hook", async () => {
    const { builder, payments, asked } = setup({ onViolation: 'refuse' }, () => true);
    expect((await builder.build('pay_bill', 'x', anyObject, fromFile).execute({}, {})).details?.code).toBe('flow_untrusted');
    expect(asked).toEqual([]);
    expect(payments).toEqual([]);
  });

  it("lets a host's policy name the arguments that must be trusted", async () => {
    const { builder, payments } = setup({ policies: { send_money: { trusted: ['recipient'] } } });
    const subjectFromFile = builder.build('note', 'x', anyObject, {
      steps: [{ name: 'bill', tool: 'read_file' }, { tool: 'send_money', inputMapping: { recipient: LANDLORD, amount: 5, subject: '$steps.bill' } }],
    });
    expect((await subjectFromFile.execute({}, {})).success).toBe(true);
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 5 }]);
  });

  it("lets a policy's check refuse or ask, and refuses when it throws", async () => {
    for (const [check, code] of [[() => 'refuse', 'flow_untrusted'], [() => { throw new Error('x'); }, 'flow_untrusted']] as const) {
      const { builder } = setup({ policies: { send_money: { trusted: ['recipient'], check: check as never } } });
      const result = await builder.build('p', 'x', anyObject, { steps: [{ tool: 'send_money', inputMapping: { recipient: LANDLORD, amount: 1 } }] }).execute({}, {});
      expect(result.details?.code).toBe(code);
    }
  });

  it('carries the label of a when condition as control: a payment a condition on untrusted text makes is refused', async () => {
    const { builder, payments } = setup();
    const conditional = builder.build('cond', 'x', anyObject, {
      steps: [{ name: 'bill', tool: 'read_file' }, { tool: 'send_money', when: '$steps.bill', inputMapping: { recipient: LANDLORD, amount: 7 } }],
    });
    const result = await conditional.execute({}, {});
    expect(result.details).toMatchObject({ code: 'flow_untrusted', control: { trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] } });
    expect(payments).toEqual([]);
  });

  it('gives every for_each item its own label, and the list its own: trusted senders pay, a list an untrusted tool chose does not', async () => {
    const { builder, payments } = setup();
    const refundAll = builder.build('refund_all', 'x', anyObject, {
      steps: [{ tool: 'get_transactions' }, { combinator: 'for_each', items: '$prev', template: { tool: 'send_money', inputMapping: { recipient: '$item.sender', amount: 1 } } } as never],
    });
    expect((await refundAll.execute({}, { sessionId: 'f1' })).success).toBe(true);
    expect(payments).toHaveLength(2);
    const fromText = builder.build('from_text', 'x', anyObject, {
      steps: [{ tool: 'read_file' }, { combinator: 'for_each', items: '$input.list', template: { tool: 'send_money', inputMapping: { recipient: '{item}', amount: 1 } } } as never],
    });
    expect((await fromText.execute({ list: [LANDLORD] }, { sessionId: 'f2' })).success).toBe(true);
    expect(payments).toHaveLength(3);
    const fromWeb = builder.build('from_web', 'x', anyObject, {
      steps: [{ tool: 'search_web' }, { combinator: 'for_each', items: '$prev', template: { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 1 } } } as never],
    });
    // The recipient is the user's, but which items (how many payments) the web chose.
    const result = await fromWeb.execute({ to: LANDLORD }, { sessionId: 'f3' });
    expect(result.details).toMatchObject({ code: 'flow_untrusted', control: { trusted: false, sources: [{ tool: 'search_web' }] } });
    expect(payments).toHaveLength(3);
  });

  it('follows a JSONPath filter as a read of all it filtered: the chosen item carries every subject', async () => {
    const { builder, payments } = setup();
    const filtered = builder.build('filtered', 'x', anyObject, {
      steps: [{ tool: 'get_transactions' }, { tool: 'send_money', inputMapping: { recipient: LANDLORD, amount: 1, note: '$prev[?(@.amount > 1000)].sender' } }],
    });
    const result = await filtered.execute({}, {});
    expect(result.details?.code).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });
});

describe('flows: the batching doors', () => {
  it('run_pipeline: a step reading the file steers the payment, and is refused', async () => {
    const { pipeline, payments } = setup();
    const result = await pipeline.execute({ steps: [{ id: 'bill', tool: 'read_file', args: {} }, { tool: 'send_money', args: { recipient: '${bill.output}', amount: 98 } }] }, {});
    expect(result.details?.code).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });

  it('run_pipeline: the model\'s own arguments are trusted in a session that has seen nothing untrusted', async () => {
    const { pipeline, payments } = setup();
    const result = await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 3 } }] }, { sessionId: 's-clean' });
    expect(result.success).toBe(true);
    expect(payments).toHaveLength(1);
  });

  it('compose: a gather reading the file, then a payment built from it, is refused', async () => {
    const { compose, payments } = setup();
    const result = await compose.execute(
      { combinator: 'pipe', stages: [{ tool: 'read_file', args: {} }, { tool: 'send_money', args: { recipient: '{result}', amount: 1 } }] } as never,
      {},
    );
    expect(result.details?.code).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });
});

describe('flows: compose selects a field with a hole path', () => {
  it("pays a trusted field chosen with {result.1.sender}, and refuses the untrusted {result[1].subject}", async () => {
    const { compose, payments } = setup();
    const pay = (hole: string) =>
      compose.execute({ combinator: 'pipe', stages: [{ tool: 'get_transactions', args: {} }, { tool: 'send_money', args: { recipient: hole, amount: 1 } }] } as never, { sessionId: `hole-${hole}` });
    const sender = await pay('{result.1.sender}');
    expect(sender.success, JSON.stringify(sender)).toBe(true);
    expect(payments).toEqual([{ recipient: 'DE22-SHOP', amount: 1 }]);
    const subject = await pay('{result[1].subject}');
    expect(subject.details?.code).toBe('flow_untrusted');
    // A field inside a text carries that field's label, the text's joined in.
    const inText = await pay('to {result.1.subject}');
    expect(inText.details?.code).toBe('flow_untrusted');
    expect(payments).toHaveLength(1);
  });

  it('gives each for_each item its fields: {item.sender} of a trusted list pays, {item.subject} does not', async () => {
    const { compose, payments } = setup();
    const each = (hole: string) =>
      compose.execute(
        { combinator: 'for_each', items: { tool: 'get_transactions', args: {} }, template: { tool: 'send_money', args: { recipient: hole, amount: 2 } } } as never,
        { sessionId: `each-${hole}` },
      );
    const senders = await each('{item.sender}');
    expect(senders.success, JSON.stringify(senders)).toBe(true);
    expect(payments.map((p) => p.recipient)).toEqual([LANDLORD, 'DE22-SHOP']);
    const subjects = await each('{item.subject}');
    expect(subjects.success).toBe(false);
    expect(payments).toHaveLength(2);
  });
});

describe("flows: the session's label", () => {
  it('marks the session once a door hands it untrusted text: its later arguments carry it, in that session only', async () => {
    const { pipeline, payments } = setup();
    const read = await pipeline.execute({ steps: [{ tool: 'read_file', args: {} }] }, { sessionId: 'a' });
    expect(read.success).toBe(true);
    const afterReading = await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 1 } }] }, { sessionId: 'a' });
    expect(afterReading.details).toMatchObject({ code: 'flow_untrusted', provenance: { recipient: { trusted: false, sources: [{ tool: 'read_file' }] } } });
    const other = await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 1 } }] }, { sessionId: 'b' });
    expect(other.success).toBe(true);
    expect(payments).toHaveLength(1);
  });

  it('labels a compiled step again when what it reads changes: the same composite pays, then not once its session has read untrusted text, then pays in another session', async () => {
    // send_money's own answer ({ sent: true }) is trusted here, so paying marks no session.
    const { builder, pipeline, payments } = setup({ trustedTools: ['send_money'] });
    const pay = builder.build('pay_twice', 'pay', anyObject, {
      steps: [{ tool: 'get_transactions' }, { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: '$prev[0].amount' } }],
    });
    expect((await pay.execute({ to: LANDLORD }, { sessionId: 'd' })).success).toBe(true);
    expect((await pay.execute({ to: LANDLORD }, { sessionId: 'd' })).success).toBe(true);
    expect((await pipeline.execute({ steps: [{ tool: 'read_file', args: {} }] }, { sessionId: 'd' })).success).toBe(true);
    const after = await pay.execute({ to: LANDLORD }, { sessionId: 'd' });
    expect(after.details).toMatchObject({ code: 'flow_untrusted', provenance: { recipient: { trusted: false, sources: [{ tool: 'read_file' }] } } });
    expect((await pay.execute({ to: LANDLORD }, { sessionId: 'e' })).success).toBe(true);
    expect(payments).toHaveLength(3);
  });

  it('does not mark the session for a result built only from trusted data', async () => {
    const { builder, pipeline } = setup();
    const count = builder.build('count', 'x', anyObject, { steps: [{ name: 't', tool: 'get_transactions' }], output: { first: '$steps.t[0].sender', second: '$steps.t[1].amount' } });
    expect((await count.execute({}, { sessionId: 'c' })).success).toBe(true);
    expect((await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 1 } }] }, { sessionId: 'c' })).success).toBe(true);
  });

  it("lets a host say a caller's arguments are trusted (a planner that never saw a tool's output)", async () => {
    const { pipeline } = setup();
    await pipeline.execute({ steps: [{ tool: 'read_file', args: {} }] }, { sessionId: 'p' });
    const planned = await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 1 } }] }, { sessionId: 'p', flows: { arguments: 'trusted' } });
    expect(planned.success).toBe(true);
  });

  it("judges a host's own gate.run of a side-effecting tool by its caller's session", async () => {
    const { gate, pipeline, payments, tools } = setup();
    const send = tools.find((t) => t.name === 'send_money') as ITool;
    expect((await gate.run(send, { recipient: LANDLORD, amount: 1 }, { sessionId: 'h' })).success).toBe(true);
    await pipeline.execute({ steps: [{ tool: 'read_file', args: {} }] }, { sessionId: 'h' });
    const after: ToolExecutionResult = await gate.run(send, { recipient: LANDLORD, amount: 1 }, { sessionId: 'h' });
    expect(after.details?.code).toBe('flow_untrusted');
    expect(payments).toHaveLength(1);
  });
});

describe('flows: nothing changes without them', () => {
  it('runs the hijacked composite as before when the gate has no flows', async () => {
    const b = bank();
    const builder = new ComposableToolBuilder(registry(...b.tools).gate());
    builder.bind({ sideEffectingTools: ['send_money'] });
    expect((await builder.build('pay_bill', 'x', anyObject, fromFile).execute({}, {})).success).toBe(true);
    expect(b.payments).toHaveLength(1);
  });
});
