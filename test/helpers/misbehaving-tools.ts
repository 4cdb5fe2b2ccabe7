/** Tools that go wrong in each way a step can, and the code each gives: shared by the fast-path tests. */
import { expect } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { gateSettings } from '../../src/gate/settings.js';
import type { StepGate } from '../../src/gate/options.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from './tools.js';

export const inc = tool('inc', (a) => ({ n: Number(a.n ?? 0) + 1 }));
export const send = tool('send', (a) => ({ sent: a.n }), { hasSideEffects: true });
export const unlisted = tool('unlisted', () => ({}), { hasSideEffects: true });
export const undeclared = tool('undeclared', () => ({}), {});
export const fails = tool('fails', () => ({ success: false, error: 'nope', details: { code: 'boom' } }));
export const throws = tool('throws', () => {
  throw new Error('kaput');
});
export const hangs = tool('hangs', () => new Promise(() => {}));
export const bad: ITool = { ...inc, id: 'test:bad', name: 'bad', execute: () => Promise.resolve(42 as unknown as ToolExecutionResult) };

/** [what, tool name, code] for each way a step can be refused or fail. */
export const FAILURE_CASES: [string, string, string][] = [
  ['a tool failure (innerCode)', 'fails', 'step_failed'],
  ['a missing tool', 'absent', 'step_missing'],
  ['an unlisted side-effecting tool', 'unlisted', 'step_not_chainable'],
  ['a tool that declares nothing', 'undeclared', 'side_effects_undeclared'],
  ['a tool that throws', 'throws', 'step_threw'],
  ['a tool that returns a non-result', 'bad', 'step_bad_result'],
  ['a tool that never settles', 'hangs', 'step_timeout'],
];

/**
 * Two builders over one registry of `tools`: the fast path (a gate `createStepGate` made), and the
 * general path (a host's own gate object, driven through its `run`). Both with a 40 ms step timeout.
 *
 * The names the chainability rule refuses (`absent`, `unlisted`, `undeclared`) stand for a pure
 * tool while a spec is built and checked, and turn into what they are named for when the tool
 * `sabotage` runs: a tool replaced by name in the middle of a run, which only the check made
 * before each step can catch. `repair` puts the stand-ins back (before each run).
 */
export function fastAndGeneral(tools: ITool[], sideEffectingTools: string[]) {
  const reg = registry(...tools);
  const standIn = tool('stand_in', (a) => ({ n: Number(a.n ?? 0) + 1 }));
  const repair = () => {
    for (const name of ['absent', 'unlisted', 'undeclared']) reg.map.set(name, standIn);
  };
  reg.add(
    tool('sabotage', (a) => {
      reg.map.delete('absent');
      reg.map.set('unlisted', unlisted);
      reg.map.set('undeclared', undeclared);
      return { n: Number(a.n ?? 0) + 1 };
    }),
  );
  repair();
  const fastGate = reg.gate();
  // A host's own gate object (here a plain wrapper around another) is driven through its `run`:
  // the general path, which every other path must agree with.
  const inner = reg.gate();
  const generalGate: StepGate = { resolve: (name) => inner.resolve(name), names: () => inner.names!(), run: (...args) => inner.run(...args) };
  expect(gateSettings(fastGate)).toBeDefined();
  expect(gateSettings(generalGate)).toBeUndefined();
  const fast = new ComposableToolBuilder(fastGate, { stepTimeoutMs: 40 });
  const general = new ComposableToolBuilder(generalGate, { stepTimeoutMs: 40 });
  for (const b of [fast, general]) b.bind({ sideEffectingTools });
  return { reg, fast, general, repair };
}
