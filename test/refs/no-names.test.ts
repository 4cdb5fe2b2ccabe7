import { describe, expect, it } from 'vitest';
import { labelScopeOf } from '../../src/flows/label-scope.js';
import { TRUSTED } from '../../src/flows/label.js';
import { NO_NAMES } from '../../src/refs/no-names.js';

describe('the shared empty named maps', () => {
  it('refuse writes, for values and for labels, so no run can leave anything in them for another', () => {
    expect(() => NO_NAMES.set('a', 1)).toThrow(/names no node/);
    const labels = labelScopeOf(TRUSTED, TRUSTED, NO_NAMES);
    expect(() => labels.named.set('a', TRUSTED)).toThrow(/names no node/);
    expect(labels.named.size).toBe(0);
    // Every such run shares the one map, which stays empty.
    expect(labelScopeOf(TRUSTED, TRUSTED, NO_NAMES).named).toBe(labels.named);
  });

  it('are not used where a run can record names: each run has its own map of labels', () => {
    const one = labelScopeOf(TRUSTED, TRUSTED, new Map());
    const other = labelScopeOf(TRUSTED, TRUSTED, new Map());
    expect(one.named).not.toBe(other.named);
    one.named.set('a', TRUSTED);
    expect(other.named.has('a')).toBe(false);
    expect(labelScopeOf(TRUSTED).named.size).toBe(0);
  });
});
