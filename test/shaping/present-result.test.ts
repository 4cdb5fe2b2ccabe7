import { describe, expect, it } from 'vitest';
import { presentResult } from '../../src/shaping/present-result.js';

describe('presentResult: one way to show a result outside toolweave', () => {
  it('a string output is the text as written; an object is JSON text plus its structured form', () => {
    expect(presentResult({ success: true, output: 'hello' })).toEqual({ text: 'hello', isError: false });
    expect(presentResult({ success: true, output: { a: 1 } })).toEqual({ text: '{"a":1}', structured: { a: 1 }, isError: false });
    expect(presentResult({ success: true, output: [1, 2] })).toEqual({ text: '[1,2]', isError: false });
    expect(presentResult({ success: true })).toEqual({ text: '', isError: false });
  });

  it('a failure reads as a coded message the model can act on', () => {
    expect(presentResult({ success: false, error: 'no such file', details: { code: 'step_missing' } })).toEqual({
      text: 'error step_missing: no such file',
      isError: true,
      code: 'step_missing',
    });
    expect(presentResult({ success: false }).text).toBe('error: The call failed.');
  });

  it('keeps effects and the trace', () => {
    const effects = [{ step: 's', tool: 't', ran: true as const, outcome: 'ran' as const }];
    const trace = [{ step: 's', tool: 't', ok: true }];
    expect(presentResult({ success: true, output: 'x', effects, details: { trace } })).toMatchObject({ effects, trace });
  });

  it('never throws: an output JSON cannot write is named, and has no structured form', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const shown = presentResult({ success: true, output: cyclic });
    expect(shown.text).toMatch(/^\[output not shown: it cannot be written as JSON/);
    expect(shown.structured).toBeUndefined();
    const hostile = Object.defineProperty({}, 'success', { get: () => { throw new Error('boom'); } });
    expect(presentResult(hostile as never)).toMatchObject({ isError: true, text: expect.stringContaining('boom') });
  });
});
