import { describe, expect, it } from 'vitest';
import { sourceLabel, TRUSTED } from '../../../src/flows/label.js';
import { argsLabels } from '../../../src/flows/run-flow.js';
import { checkFlows } from '../../../src/gate/stages/flows.js';
import type { ITool } from '../../../src/tool.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf } from './record.js';

const read = tool('read', () => 'r', { hasSideEffects: false });
const pay = tool('pay', () => 'paid', { hasSideEffects: true });
const door: ITool = { ...tool('door', () => 'ran'), composition: true };
const web = sourceLabel('fetch_page', 'page', false);
const steered = { own: TRUSTED, fields: { to: web, amount: TRUSTED } };

describe('stage: flows', () => {
  it('judges nothing through a gate without flows', () => {
    const call = callOf({ gate: registry(pay).gate(), tool: pay, args: { to: 'x' } });
    call.argLabels = steered;
    expect(checkFlows(call)).toBeUndefined();
    expect(call.provenance).toBeUndefined();
  });

  it('refuses a side-effecting call that untrusted data steers, naming the argument and where it came from', () => {
    const call = callOf({ gate: registry(pay).gate({ flows: {} }), tool: pay, args: { to: 'x', amount: 5 } });
    call.argLabels = steered;
    const refusal = checkFlows(call);
    expect(refusal).toMatchObject({ success: false, details: { code: 'flow_untrusted', tool: 'pay', provenance: { to: { trusted: false, sources: [{ tool: 'fetch_page', step: 'page' }] }, amount: { trusted: true } } } });
    expect(refusal?.error).toContain('to');
    expect(refusal?.error).not.toContain('amount');
  });

  it('lets the approval stage ask when a person can be asked, and goes on', () => {
    const gate = registry(pay).gate({ flows: {}, approvals: { requestApproval: () => ({ approved: false }) } });
    const call = callOf({ gate, tool: pay, args: { to: 'x', amount: 5 } });
    call.argLabels = steered;
    expect(checkFlows(call)).toBeUndefined();
    expect(call.flowAsk).toBe(true);
    expect(call.provenance?.to.trusted).toBe(false);
  });

  it('refuses a call whose making untrusted data decided, even with trusted arguments', () => {
    const call = callOf({ gate: registry(pay).gate({ flows: {} }), tool: pay, args: { to: 'x' } });
    call.argLabels = TRUSTED;
    call.control = web;
    expect(checkFlows(call)?.details?.code).toBe('flow_untrusted');
  });

  it('lets a call with trusted arguments run, and never refuses a pure call for its inputs', () => {
    const trusted = callOf({ gate: registry(pay).gate({ flows: {} }), tool: pay, args: { to: 'x' } });
    trusted.argLabels = TRUSTED;
    trusted.control = TRUSTED;
    expect(checkFlows(trusted)).toBeUndefined();
    const pure = callOf({ gate: registry(read).gate({ flows: {} }), tool: read, args: { to: 'x' } });
    pure.argLabels = steered;
    expect(checkFlows(pure)).toBeUndefined();
  });

  it('hands a nested door its arguments’ labels, by the arguments object', () => {
    const args = { input: 'x' };
    const call = callOf({ gate: registry(door).gate({ flows: {} }), tool: door, args });
    call.argLabels = steered;
    expect(checkFlows(call)).toBeUndefined();
    expect(argsLabels(args)).toBe(steered);
  });

  it('labels a call from outside any run, whose door said nothing, with its session’s label', () => {
    const call = callOf({ gate: registry(pay).gate({ flows: {} }), tool: pay, args: { to: 'x' }, context: { sessionId: 'fresh' } });
    expect(checkFlows(call)).toBeUndefined();
    expect(call.argLabels).toMatchObject({ trusted: true });
  });
});
