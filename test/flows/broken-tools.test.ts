import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

/** `base` with the getter `field` throwing: a host's tool object that cannot say how to label its output. */
function throwing(base: ITool, field: 'untrustedFields' | 'readers'): ITool {
  Object.defineProperty(base, field, {
    get() {
      throw new Error(`${field} cannot be read`);
    },
  });
  return base;
}

describe('a tool whose output cannot be labelled', () => {
  function setup() {
    const paid: unknown[] = [];
    const tools = [
      throwing(tool('fetch_async', async () => 'DE11-LANDLORD', { hasSideEffects: false, trustedOutput: true }), 'untrustedFields'),
      throwing(tool('fetch_sync', () => 'DE11-LANDLORD', { hasSideEffects: false, trustedOutput: true }), 'readers'),
      tool('pay', (args) => (paid.push(args), 'paid'), { hasSideEffects: true }),
    ];
    const gate = registry(...tools).gate({ flows: {} });
    return { gate, paid };
  }

  for (const name of ['fetch_async', 'fetch_sync']) {
    it(`answers its call (${name}), with an output untrusted and readable by no one`, async () => {
      const { gate, paid } = setup();
      const builder = new ComposableToolBuilder(gate);
      builder.bind({ sideEffectingTools: ['pay'] });
      const read = builder.build('read', 'x', { type: 'object' }, { steps: [{ tool: name }] });
      // Before, the gate threw inside the tool's callback and the run never ended.
      expect(await read.execute({}, { sessionId: name })).toMatchObject({ success: true, output: 'DE11-LANDLORD' });
      const readThenPay = builder.build('read_then_pay', 'x', { type: 'object' }, { steps: [{ tool: name }, { tool: 'pay', inputMapping: { to: '$prev' } }] });
      const refused = await readThenPay.execute({}, { sessionId: `${name}-pay` });
      expect(refused.details?.code).toBe('flow_untrusted');
      expect((refused.details?.provenance as Record<string, unknown>).to).toEqual({ trusted: false, sources: [{ tool: name, step: 'steps[0]' }], readers: [] });
      expect(paid).toEqual([]);
    });
  }

  it('answers its call through run_pipeline too', async () => {
    const { gate } = setup();
    const pipeline = createRunPipelineTool(gate, { sideEffectingTools: ['pay'] });
    const result = await pipeline.execute({ steps: [{ tool: 'fetch_async', args: {} }, { tool: 'pay', args: { to: '${step_1.output}' } }] }, { sessionId: 'p' });
    expect(result.details?.code).toBe('flow_untrusted');
  });
});
