import { describe, expect, it } from 'vitest';
import { PresentedError, presentResult } from '../../src/index.js';

describe('PresentedError: a presented failure, for frameworks that report failures by throwing', () => {
  it('reads as the presented text and keeps the code, effects and trace', () => {
    const effects = [{ step: 'write', tool: 'write_file', ran: true as const, outcome: 'ran' as const }];
    const trace = [{ step: 'write', tool: 'write_file', ok: true }, { step: 'check', tool: 'run_tests', ok: false, code: 'check_failed' }];
    const error = new PresentedError(presentResult({ success: false, error: 'the tests failed', details: { code: 'check_failed', trace }, effects }));
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('error check_failed: the tests failed');
    expect(error.name).toBe('PresentedError');
    expect(error.code).toBe('check_failed');
    expect(error.effects).toEqual(effects);
    expect(error.trace).toEqual(trace);
  });

  it('carries no code, effects or trace a failure did not have', () => {
    const error = new PresentedError(presentResult({ success: false, error: 'broke' }));
    expect(error.message).toBe('error: broke');
    expect('code' in error || 'effects' in error || 'trace' in error).toBe(false);
  });
});
