import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { StepGate } from '../../src/gate/options.js';
import { registry, tool } from '../helpers/tools.js';

/** A built composite makes its run settings once: they must still follow every change to the gate. */
describe('a composite run after run', () => {
  it('runs through a gate whose methods cannot be replaced after the first run', async () => {
    const echo = tool('echo', (a) => a);
    const gate = registry(echo).gate();
    const builder = new ComposableToolBuilder(gate);
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'echo', inputMapping: { n: '$input.n' } }] });
    expect((await composite.execute({ n: 1 }, {})).success).toBe(true);
    // A gate createStepGate made is frozen: settings made once can never go stale behind it.
    expect(() => {
      (gate as { run: StepGate['run'] }).run = async () => ({ success: false, error: 'replaced' });
    }).toThrow(TypeError);
    expect(await composite.execute({ n: 2 }, {})).toMatchObject({ success: true, output: { n: 2 } });
  });

  it('follows a newly bound gate and chainable list', async () => {
    const send = tool('send', (a) => a, { hasSideEffects: true });
    const builder = new ComposableToolBuilder(registry(send).gate());
    builder.bind({ sideEffectingTools: ['send'] });
    const composite = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'send', inputMapping: { n: 1 } }] });
    expect((await composite.execute({}, {})).success).toBe(true);
    builder.bind({ sideEffectingTools: [] });
    expect((await composite.execute({}, {})).details?.code).toBe('step_not_chainable');
    builder.bind({ sideEffectingTools: ['send'] });
    expect((await composite.execute({}, {})).success).toBe(true);
    const other = tool('send', () => 'other', { hasSideEffects: true });
    builder.bind({ gate: registry(other).gate() });
    expect(await composite.execute({}, {})).toMatchObject({ success: true, output: 'other' });
  });

  it('keeps named outputs apart from run to run, and runs an unnamed spec again and again', async () => {
    const echo = tool('echo', (a) => a);
    const builder = new ComposableToolBuilder(registry(echo).gate());
    const named = builder.build('n', 'n', { type: 'object' }, {
      steps: [
        { name: 'first', tool: 'echo', inputMapping: { v: '$input.v' } },
        { tool: 'echo', inputMapping: { v: '$steps.first.v' } },
      ],
    });
    expect((await named.execute({ v: 1 }, {})).output).toEqual({ v: 1 });
    expect((await named.execute({ v: 2 }, {})).output).toEqual({ v: 2 });
    const unnamed = builder.build('u', 'u', { type: 'object' }, { steps: [{ tool: 'echo', inputMapping: { v: '$input.v' } }, { tool: 'echo', inputMapping: { w: '$prev.v' } }] });
    expect((await unnamed.execute({ v: 3 }, {})).output).toEqual({ w: 3 });
    expect((await unnamed.execute({ v: 4 }, {})).output).toEqual({ w: 4 });
  });
});
