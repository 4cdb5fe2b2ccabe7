/**
 * The mining target on the bench's workload (recurring task shapes with varied arguments and noise
 * between them): every shape seen in 3 sessions or more is forged, none seen in fewer, and every
 * forged spec builds.
 */
import { describe, expect, it } from 'vitest';
import { forgeWorkload } from '../../bench/forge-sessions.js';
import { ComposableToolBuilder, createStepGate, generalizeChain, mineChains, type ITool } from '../../src/index.js';

describe('mining recurring shapes among noise', () => {
  it('forges every shape seen in 3 sessions, none seen in 2, and each forged spec builds', () => {
    const workload = forgeWorkload(2000);
    const shapes = mineChains(workload.sessions);
    const found = shapes.map((shape) => shape.steps.map((step) => step.tool).join('>'));
    expect(new Set(found)).toEqual(workload.expected);
    expect(found).toHaveLength(workload.expected.size);
    // The rare shapes are in 2 sessions: found only when 2 are enough.
    const atTwo = new Set(mineChains(workload.sessions, { minSessions: 2 }).map((shape) => shape.steps.map((step) => step.tool).join('>')));
    for (const rare of workload.rare) expect(atTwo.has(rare)).toBe(true);

    const tools = new Map<string, ITool>();
    for (const session of workload.sessions) {
      for (const call of session.calls) {
        tools.set(call.tool, { id: call.tool, name: call.tool, displayName: call.tool, description: call.tool, inputSchema: { type: 'object' }, hasSideEffects: call.hasSideEffects, execute: async () => ({ success: true, output: null }) });
      }
    }
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => tools.get(name) }));
    builder.bind({ sideEffectingTools: ['write_file', 'send_mail'] });
    const taken = new Set<string>();
    for (const shape of shapes) {
      const forged = generalizeChain(shape, { takenNames: taken });
      expect(() => builder.build(forged.name, forged.description, forged.inputSchema, forged.spec)).not.toThrow();
    }
    const byName = new Map(shapes.map((shape) => { const forged = generalizeChain(shape); return [forged.name, forged]; }));
    expect(byName.get('find_user_then_list_orders_then_send_mail')!.spec.steps).toEqual([
      { name: 'find_user', tool: 'find_user', inputMapping: { email: '$input.email' } },
      { name: 'list_orders', tool: 'list_orders', inputMapping: { status: 'open', user_id: '$steps.find_user.user.id' } },
      { name: 'send_mail', tool: 'send_mail', inputMapping: { body: '$steps.list_orders', subject: 'Your open orders', to: '$input.email' } },
    ]);
    expect(byName.get('list_dir_then_each_stat_path')!.spec.steps[1]).toMatchObject({ combinator: 'for_each', items: '$steps.list_dir.entries' });
  });
});
