import { describe, expect, it } from 'vitest';
import { checkChain } from '../../../src/gate/stages/chainable.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf, frameOf } from './record.js';

describe('stage: chainable', () => {
  const pure = tool('read', () => 'r');
  const write = tool('write', () => 'w', { hasSideEffects: true });
  const undeclared = tool('odd', () => 'o', {});
  const gate = registry(pure, write, undeclared).gate();

  it('lets a pure tool through', () => {
    expect(checkChain(callOf({ gate, tool: pure }))).toBeUndefined();
  });

  it('lets a side-effecting tool through only where the host listed it', () => {
    expect(checkChain(callOf({ gate, tool: write }))?.details).toMatchObject({ code: 'step_not_chainable', tool: 'write' });
    expect(checkChain(callOf({ gate, tool: write, door: { sideEffectingTools: new Set(['write']) } }))).toBeUndefined();
  });

  it('never lets through a tool that declares nothing, listed or not', () => {
    expect(checkChain(callOf({ gate, tool: undeclared, door: { sideEffectingTools: new Set(['odd']) } }))?.details?.code).toBe('side_effects_undeclared');
  });

  it('refuses a name that resolved to nothing, suggesting the closest', () => {
    const refusal = checkChain(callOf({ gate, name: 'reed' }));
    expect(refusal?.details?.code).toBe('step_missing');
    expect(refusal?.error).toContain('read');
  });

  it('refuses a composition already running on the call path', () => {
    const composite = tool('outer', () => 'x', { hasSideEffects: false, composition: true });
    expect(checkChain(callOf({ gate, tool: composite, frame: frameOf({}, undefined, ['test:other']) }))).toBeUndefined();
    const refusal = checkChain(callOf({ gate, tool: composite, frame: frameOf({}, undefined, ['test:outer']) }));
    expect(refusal?.details).toMatchObject({ code: 'composition_cycle', path: ['test:outer', 'test:outer'] });
  });
});
