/**
 * A for_each worker runs its items one after another and reuses one item scope for them. What
 * outlives an item (an undo logged for a rollback) must still see that item, not a later one.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { delay, registry, tool } from '../helpers/tools.js';

describe('for_each items', () => {
  it('undo each item with its own $item and $index when the scope rolls back', async () => {
    const undone: string[] = [];
    const edit = tool('edit', async (a) => {
      await delay(Number(a.ms));
      return { edited: a.id };
    }, { hasSideEffects: true });
    const unedit = tool('unedit', (a) => {
      undone.push(`${String(a.id)}@${String(a.at)}`);
      return 'undone';
    }, { hasSideEffects: true });
    const boom = tool('boom', () => ({ success: false, error: 'boom', details: { code: 'E_BOOM' } }));
    const reg = registry(edit, unedit, boom);
    const builder = new ComposableToolBuilder(reg.gate());
    builder.bind({ sideEffectingTools: ['edit', 'unedit'] });
    const items = ['a', 'b', 'c', 'd', 'e', 'f'];
    const result = await builder.runPipeline(
      {
        steps: [
          {
            combinator: 'scope',
            do: {
              combinator: 'pipe',
              stages: [
                {
                  combinator: 'for_each',
                  items: '$input.items',
                  concurrency: 2,
                  template: {
                    tool: 'edit',
                    // Uneven delays, so the two workers interleave their items.
                    inputMapping: { id: '$item', ms: '${$index}' },
                    compensate: { tool: 'unedit', args: { id: '$item', at: '$index' } },
                  },
                },
                { tool: 'boom' },
              ],
            },
          },
        ],
      },
      { items },
      {},
    );
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'E_BOOM', rollback: { complete: true } });
    expect([...undone].sort()).toEqual(items.map((id, i) => `${id}@${i}`).sort());
  });

  it('give every item its own $item and $index, in order, at any concurrency', async () => {
    const seen = tool('seen', async (a) => {
      await delay(Number(a.index) % 3);
      return `${String(a.item)}:${String(a.index)}`;
    });
    const builder = new ComposableToolBuilder(registry(seen).gate());
    const items = Array.from({ length: 25 }, (_, i) => `x${i}`);
    const result = await builder.runPipeline(
      { steps: [{ combinator: 'for_each', items: '$input.items', concurrency: 4, template: { tool: 'seen', inputMapping: { item: '$item', index: '$index' } } }] },
      { items },
      {},
    );
    expect(result.output).toEqual(items.map((x, i) => `${x}:${i}`));
  });
});
