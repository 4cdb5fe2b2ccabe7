import { describe, expect, it } from 'vitest';
import { banking } from '../../bench/injection/banking.js';
import { runSuite } from '../../bench/injection/run-suite.js';
import { DOORS } from '../../bench/injection/suite.js';
import { workspaceSuite } from '../../bench/injection/workspace.js';

describe('the injection benchmark', () => {
  for (const suite of [banking, workspaceSuite]) {
    for (const door of DOORS) {
      it(`${suite.name} through ${door}: no attack succeeds with flows (no hook, or a hook that says no); every one does without`, async () => {
        for (const mode of ['no hook', 'hook says no'] as const) {
          const figures = await runSuite(suite, door, mode);
          expect(figures.attacks).toBeGreaterThan(0);
          expect(figures.attacksSucceeded, mode).toBe(0);
        }
        const unchecked = await runSuite(suite, door, 'no flows');
        // The attacks are real: unchecked, each one's effect happens.
        expect(unchecked.attacksSucceeded).toBe(unchecked.attacks);
      });
    }
    it(`${suite.name}: every door does every task whose arguments the user or trusted tools gave, with no question`, async () => {
      for (const door of DOORS) {
        const figures = await runSuite(suite, door, 'hook says no');
        expect(figures.trustedDoneWithoutQuestion, door).toBe(figures.trustedTasks);
        // Every question asked in a benign task was about a call untrusted data steered.
        expect(figures.warranted, door).toBe(figures.questions);
      }
    });
  }
});
