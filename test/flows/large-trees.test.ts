import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { flatten } from '../../src/flows/label-tree.js';
import { sourceLabel, TRUSTED } from '../../src/flows/label.js';
import { registry, tool } from '../helpers/tools.js';

describe('a tree larger than the walk that flattens it', () => {
  it('is untrusted and readable by no one, whichever part the walk left', () => {
    const many = Array.from({ length: 10_001 }, () => ({ own: TRUSTED, fields: { a: TRUSTED } }));
    const read = sourceLabel('web', 'read', false);
    for (const items of [[read, ...many], [...many, read], many]) {
      const label = flatten({ own: TRUSTED, items });
      expect(label.trusted).toBe(false);
      expect(label.readers).toEqual([]);
    }
  });

  it('a for_each over more items than the walk follows: one untrusted item still steers nothing', async () => {
    const count = 10_002;
    // The list is the bank's own, but its first entry is written by whoever sent the money.
    const list = tool('get_list', () => Array.from({ length: count }, (_, i) => (i === 0 ? 'XX99-ATTACKER' : `DE${i}`)), { hasSideEffects: false, trustedOutput: true, untrustedFields: ['0'] });
    const echo = tool('echo', (args) => args.v, { hasSideEffects: false, trustedOutput: true });
    const paid: unknown[] = [];
    const pay = tool('pay', (args) => (paid.push(args), 'paid'), { hasSideEffects: true });
    const builder = new ComposableToolBuilder(registry(list, echo, pay).gate({ flows: {}, budget: { calls: 20_000 } }));
    builder.bind({ sideEffectingTools: ['pay'] });
    const payAll = builder.build('pay_all', 'x', { type: 'object' }, {
      steps: [
        { tool: 'get_list' },
        { combinator: 'for_each', items: '$prev', maxItems: 20_000, concurrency: 16, template: { tool: 'echo', inputMapping: { v: '$item' } } },
        // A template over the whole list carries every item's label.
        { tool: 'pay', inputMapping: { to: 'first: ${$prev}' } },
      ],
    });
    const result = await payAll.execute({}, { sessionId: 'large' });
    expect(result.details?.code).toBe('flow_untrusted');
    expect(paid).toEqual([]);
  });
});
