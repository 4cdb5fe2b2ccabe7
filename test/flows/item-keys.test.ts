import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry } from '../helpers/tools.js';
import { ATTACKER, bank } from './banking.js';
import { labelAtPath } from '../../src/flows/label-tree.js';
import { sourceLabel, TRUSTED } from '../../src/flows/label.js';

describe('an item read by a dotted digit', () => {
  it('carries the label of the item, as [0] does', async () => {
    const b = bank();
    const builder = new ComposableToolBuilder(registry(...b.tools).gate({ flows: {} }));
    builder.bind({ sideEffectingTools: ['send_money'] });
    for (const ref of ['$prev[0]', '$prev.0', "$prev['0']", '${$prev.0}']) {
      const pay = builder.build(`pay_${ref.length}_${ref.charCodeAt(1)}`, 'x', { type: 'object' }, {
        steps: [
          { combinator: 'for_each', items: '$input.paths', template: { tool: 'read_file', inputMapping: { path: '$item' } } },
          { tool: 'send_money', inputMapping: { recipient: ref, amount: 1 } },
        ],
      });
      const result = await pay.execute({ paths: ['bill.txt'] }, { sessionId: ref });
      expect(result.details?.code, ref).toBe('flow_untrusted');
    }
    expect(b.payments.some((p) => p.recipient.includes(ATTACKER))).toBe(false);
    expect(b.payments).toEqual([]);
  });
});

describe('a field named by digits that name no item, read at a path', () => {
  it('carries its own label, not that of the item its number rounds to', () => {
    const untrusted = sourceLabel('read_mail', 'mail', false);
    for (const key of ['01', '12345678901234567890']) {
      const tree = { own: TRUSTED, fields: { [key]: untrusted } };
      expect(labelAtPath(tree, [key]).trusted, key).toBe(false);
    }
    // An item is still read by its digits.
    expect(labelAtPath({ own: TRUSTED, items: [untrusted] }, ['0']).trusted).toBe(false);
  });
});
