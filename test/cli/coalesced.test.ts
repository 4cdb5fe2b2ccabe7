/** A task behind a trigger: never two runs at once, and demands made during a run share one more run. */
import { describe, expect, it } from 'vitest';
import { coalesced } from '../../src/cli/coalesced.js';

describe('coalesced', () => {
  it('runs once for a first demand, once more for any number of demands made meanwhile, and again for a later one', async () => {
    let runs = 0;
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const trigger = coalesced(async () => {
      runs++;
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
    });
    trigger();
    for (let n = 0; n < 2000; n++) trigger();
    expect(runs).toBe(1);
    release.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    release.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(2);
    trigger();
    expect(runs).toBe(3);
    release.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect({ runs, most }).toEqual({ runs: 3, most: 1 });
  });
});
