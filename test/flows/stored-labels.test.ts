import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { resumeRun } from '../../src/doors/resume.js';
import { flatten, partOf } from '../../src/flows/label-tree.js';
import { joinLabels, MAX_LABEL_SOURCES, sourceLabel } from '../../src/flows/label.js';
import { readStoredLabel, readStoredTree } from '../../src/flows/stored-labels.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { RunJournal } from '../../src/runs/journal.js';
import { createMemoryRunJournal } from '../../src/runs/memory-journal.js';
import { registry } from '../helpers/tools.js';
import { ATTACKER, bank, LANDLORD } from './banking.js';

const fallback = sourceLabel('(test)', 'fallback', false);
const trustedOwn = { trusted: true, sources: [] };

/** Stored labels that a shallow check took for labels, each malformed deeper down. */
const MALFORMED: unknown[] = [
  { own: trustedOwn, fields: 5 },
  { own: trustedOwn, fields: { recipient: 5 } },
  { own: trustedOwn, fields: { recipient: { trusted: false, sources: 'abc' } } },
  { own: trustedOwn, items: [null] },
  { own: trustedOwn, items: 'abc' },
  { own: trustedOwn, each: 'zz' },
  { trusted: true, sources: [null] },
  { trusted: true, sources: [7] },
  { trusted: false, sources: [{ tool: 'read_file' }] },
  { trusted: true, sources: [], moreSources: 'many' },
  { trusted: true, sources: [], readers: 'everyone' },
  { trusted: 'yes', sources: [] },
];

describe('labels read back from a journal or a store', () => {
  it('read anything malformed anywhere in a tree as the fallback', () => {
    for (const stored of MALFORMED) {
      const read = readStoredTree(stored, fallback);
      expect(read, JSON.stringify(stored)).toBe(fallback);
      // What the gate does with a label read back never throws.
      expect(() => joinLabels(flatten(partOf(read, 'recipient')), sourceLabel('x', 'y', true))).not.toThrow();
    }
  });

  it('read a well-formed tree as it was written, in fresh objects, a field named __proto__ too', () => {
    const untrusted = { trusted: false, sources: [{ tool: 'read_file', step: 'bill' }], readers: ['me'] };
    const stored = JSON.parse(`{"own":${JSON.stringify(trustedOwn)},"fields":{"__proto__":${JSON.stringify(untrusted)}},"items":[${JSON.stringify(untrusted)}],"each":${JSON.stringify(trustedOwn)}}`);
    const read = readStoredTree(stored, fallback);
    expect(read).toEqual(stored);
    expect(read).not.toBe(stored);
    expect(flatten(partOf(read, '__proto__'))).toMatchObject({ trusted: false, readers: ['me'] });
    expect(flatten(partOf(read, 'other')).trusted).toBe(true);
  });

  it('read a tree deeper or larger than a stored one may be as the fallback', () => {
    let deep: unknown = trustedOwn;
    for (let i = 0; i < 100; i++) deep = { own: trustedOwn, each: deep };
    expect(readStoredTree(deep, fallback)).toBe(fallback);
    const wide = { own: trustedOwn, items: Array.from({ length: 20_000 }, () => trustedOwn) };
    expect(readStoredTree(wide, fallback)).toBe(fallback);
  });

  it('count the sources listed past the bound rather than keep them', () => {
    const sources = Array.from({ length: MAX_LABEL_SOURCES + 4 }, (_, i) => ({ tool: `t${i}`, step: 's' }));
    const read = readStoredLabel({ trusted: false, sources, moreSources: 1 });
    expect(read?.sources).toHaveLength(MAX_LABEL_SOURCES);
    expect(read?.moreSources).toBe(5);
  });
});

/** `journal`, with every label it reads back replaced by `stored`: a store another process or version wrote, or a broken one. */
function rewriting(journal: RunJournal, stored: unknown): RunJournal {
  return {
    ...journal,
    records: async (runId) => (await journal.records(runId)).map((record) => (record.label !== undefined ? { ...record, label: stored } : record)),
    load: async (runId) => {
      const run = await journal.load(runId);
      return run && { ...run, inputLabel: stored };
    },
  };
}

describe('a resumption whose journal holds malformed labels', () => {
  // Every side effect is asked about; the first question waits (the run pauses), the rest are answered no.
  function setup(stored: unknown) {
    const b = bank();
    const asked: ApprovalAction[] = [];
    const gate = registry(...b.tools).gate({
      flows: { askEveryEffect: true },
      journal: rewriting(createMemoryRunJournal(), stored),
      approvals: { requestApproval: (action) => (asked.push(action), asked.length === 1 ? { pending: true } : { approved: false }) },
    });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send_money'] });
    const tool = builder.build('pay_bill', 'x', { type: 'object' }, {
      steps: [
        { name: 'bill', tool: 'read_file' },
        { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 1 } },
        { tool: 'send_money', inputMapping: { recipient: '$steps.bill', amount: 98 } },
      ],
    });
    return { ...b, asked, tool };
  }

  for (const stored of MALFORMED) {
    it(`ends, and judges what it read as untrusted: ${JSON.stringify(stored)}`, async () => {
      const { tool, asked, payments } = setup(stored);
      const context = { sessionId: 'clean' };
      const paused = await tool.execute({ to: LANDLORD }, context);
      expect(paused.details?.code).toBe('approval_pending');
      expect(asked[0].provenance?.recipient.trusted).toBe(true);
      const resumed = await resumeRun(tool, paused.details!.resume as string, [{ approved: true }], context);
      // The approved call ran; the one the bill steers was asked about with its source unreadable, and refused.
      expect(resumed.details?.code).toBe('approval_rejected');
      expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
      expect(payments.some((p) => p.recipient.includes(ATTACKER))).toBe(false);
      expect(asked[1].provenance?.recipient).toEqual({ trusted: false, sources: [{ tool: '(journal)', step: 'unreadable label' }], readers: [] });
    });
  }

  it('reads an unreadable label of what its caller gave the first run as untrusted, not as the session now', async () => {
    const b = bank();
    const asked: ApprovalAction[] = [];
    const journal = createMemoryRunJournal();
    // Only the label of what the caller gave is rewritten; the calls' records are as written.
    const gate = registry(...b.tools).gate({
      flows: { askEveryEffect: true },
      journal: { ...journal, load: async (runId) => ({ ...(await journal.load(runId))!, inputLabel: { trusted: true, sources: [null] } }) },
      approvals: { requestApproval: (action) => (asked.push(action), asked.length === 1 ? { pending: true } : { approved: false }) },
    });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send_money'] });
    const tool = builder.build('pay_twice', 'x', { type: 'object' }, {
      steps: [
        { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 1 } },
        { tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 2 } },
      ],
    });
    const context = { sessionId: 'clean' };
    const paused = await tool.execute({ to: LANDLORD }, context);
    expect(asked[0].provenance?.recipient.trusted).toBe(true);
    const resumed = await resumeRun(tool, paused.details!.resume as string, [{ approved: true }], context);
    expect(resumed.details?.code).toBe('approval_rejected');
    expect(b.payments.map((p) => p.amount)).toEqual([1]);
    expect(asked[1].provenance?.recipient).toEqual({ trusted: false, sources: [{ tool: '(journal)', step: 'unreadable label' }], readers: [] });
  });
});

describe("a label a host gives in the context's flows", () => {
  function setup() {
    const b = bank();
    const builder = new ComposableToolBuilder(registry(...b.tools).gate({ flows: {} }));
    builder.bind({ sideEffectingTools: ['send_money'] });
    const pay = builder.build('pay', 'x', { type: 'object' }, { steps: [{ tool: 'send_money', inputMapping: { recipient: '$input.to', amount: 1 } }] });
    return { ...b, pay };
  }

  it('is the label of the arguments: a trusted one lets the call run, an untrusted one steers it, with its sources', async () => {
    const { pay, payments } = setup();
    expect((await pay.execute({ to: LANDLORD }, { sessionId: 'h', flows: { arguments: { trusted: true, sources: [] } } })).success).toBe(true);
    const refused = await pay.execute({ to: ATTACKER }, { sessionId: 'h', flows: { arguments: { trusted: false, sources: [{ tool: 'read_mail', step: 'earlier' }] } } });
    expect(refused.details?.code).toBe('flow_untrusted');
    expect((refused.details?.provenance as Record<string, unknown>).recipient).toEqual({ trusted: false, sources: [{ tool: 'read_mail', step: 'earlier' }] });
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
  });

  it('reads as untrusted when it is not well formed, never as the session', async () => {
    const { pay, payments } = setup();
    for (const given of [{ trusted: true, sources: [null] }, { trusted: 'yes', sources: [] }, 'Trusted']) {
      const refused = await pay.execute({ to: LANDLORD }, { sessionId: 'clean', flows: { arguments: given as never } });
      expect(refused.details?.code).toBe('flow_untrusted');
    }
    expect(payments).toEqual([]);
  });
});
