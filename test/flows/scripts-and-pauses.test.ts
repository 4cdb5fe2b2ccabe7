import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { resumeRun } from '../../src/doors/resume.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import { approvalText } from '../../src/gate/approval-text.js';
import { registry } from '../helpers/tools.js';
import { ATTACKER, bank, LANDLORD } from './banking.js';

describe('flows: run_js labels each call by what it may depend on, or by all the script read', () => {
  function setup(preciseLabels?: boolean) {
    const b = bank();
    const gate = registry(...b.tools).gate({ flows: {} });
    return { ...b, runJs: createScriptTool(gate, { sideEffectingTools: ['send_money'], ...(preciseLabels !== undefined ? { preciseLabels } : {}) }) };
  }

  it('pays from the model\'s words after the script read untrusted text: the payment does not depend on it', async () => {
    const { runJs, payments } = setup();
    const result = await runJs.execute(
      { code: `const bill = await callTool('read_file', {}); const paid = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }); return paid.error && paid.error.code;` },
      { sessionId: 'js1' },
    );
    expect(result.output).toBe('null');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
  });

  it('refuses a payment made after the script read untrusted text, whatever it built the arguments from, when the script is not followed call by call', async () => {
    for (const [preciseLabels, code] of [
      [false, ''],
      // A script the analysis cannot follow runs with one label for all it reads.
      [true, "if (false) eval('');"],
    ] as const) {
      const { runJs, payments } = setup(preciseLabels);
      const result = await runJs.execute(
        { code: `${code} const bill = await callTool('read_file', {}); const paid = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }); return paid.error && paid.error.code;` },
        { sessionId: `js1-${String(preciseLabels)}` },
      );
      expect(result.output).toBe('flow_untrusted');
      expect(payments).toEqual([]);
    }
  });

  it("pays from the model's own words, and a call made before an answer came cannot carry it", async () => {
    const { runJs, payments } = setup();
    const result = await runJs.execute(
      { code: `const [bill, paid] = await Promise.all([callTool('read_file', {}), callTool('send_money', { recipient: '${LANDLORD}', amount: 2 })]); return paid.error;` },
      { sessionId: 'js2' },
    );
    expect(result).toMatchObject({ success: true, output: 'null' });
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 2 }]);
  });

  it('rebuilding untrusted text by character codes launders nothing: the run is untrusted once it read it', async () => {
    const { runJs, payments } = setup();
    const code = `const t = (await callTool('read_file', {})).text; const iban = String.fromCharCode(...[...'${ATTACKER}'].map((c) => c.charCodeAt(0))); const r = await callTool('send_money', { recipient: t.includes('X') ? iban : 'none', amount: 1 }); return r.error.code;`;
    expect((await runJs.execute({ code }, { sessionId: 'js3' })).output).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });

  it("marks the caller's session with what the script returned", async () => {
    const b = bank();
    const gate = registry(...b.tools).gate({ flows: {} });
    const runJs = createScriptTool(gate, { sideEffectingTools: ['send_money'] });
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['send_money'] });
    await runJs.execute({ code: `return (await callTool('read_file', {})).text;` }, { sessionId: 'js4' });
    const next = await pipeline.execute({ steps: [{ tool: 'send_money', args: { recipient: LANDLORD, amount: 1 } }] }, { sessionId: 'js4' });
    expect(next.details?.code).toBe('flow_untrusted');
  });
});

describe('flows: pauses and resumptions keep every label', () => {
  it('asks about the steered call once; resumed, it runs, and a later call is judged by what the first run was given', async () => {
    const b = bank();
    const asked: ApprovalAction[] = [];
    const gate = registry(...b.tools).gate({ flows: {}, approvals: { requestApproval: (action) => (asked.push(action), { pending: true }) } });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send_money'] });
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['send_money'] });
    const payBill = builder.build('pay_bill_then_rent', 'x', { type: 'object' }, {
      steps: [
        { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 1 } },
        { name: 'bill', tool: 'read_file' },
        { tool: 'send_money', inputMapping: { recipient: '$steps.bill', amount: 98 } },
        { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 2 } },
      ],
    });
    const context = { sessionId: 'p1' };
    const paused = await payBill.execute({ to: LANDLORD }, context);
    expect(paused.details?.code).toBe('approval_pending');
    expect(asked).toHaveLength(1);
    expect(asked[0].provenance?.recipient).toMatchObject({ trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] });
    expect((paused.details?.pending as { provenance?: unknown }[])[0].provenance).toEqual(asked[0].provenance);
    // Meanwhile the session sees untrusted text: the resumption still judges by what the first run was given.
    await pipeline.execute({ steps: [{ tool: 'read_file', args: {} }] }, context);
    const resumed = await resumeRun(payBill, paused.details!.resume as string, [{ approved: true }], context);
    expect(resumed.success).toBe(true);
    expect(b.payments.map((p) => p.amount)).toEqual([1, 98, 2]);
    expect(asked).toHaveLength(1);
  });

  it("shows each argument's provenance on the approval screen", () => {
    const text = approvalText({
      toolId: 't',
      toolName: 'send_money',
      step: 'pay',
      args: { recipient: ATTACKER, amount: 98 },
      provenance: { recipient: { trusted: false, sources: [{ tool: 'read_file', step: 'bill' }] }, amount: { trusted: true, sources: [] } },
      untrusted: true,
    });
    expect(text).toContain('Why you are asked: untrusted data (text a tool returned) steers this call');
    expect(text).toContain('  "recipient": from read_file, step "bill": untrusted');
    expect(text).toContain('  "amount": the user or the host: trusted');
  });
});
