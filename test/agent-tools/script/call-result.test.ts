import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { capUtf8 } from '../../../src/agent-tools/script/call-result.js';
import { toScriptCallResult } from '../../../src/agent-tools/script/call-result.js';

describe('capUtf8', () => {
  it('leaves text within the cap alone', () => {
    expect(capUtf8('héllo', 6)).toBe('héllo');
    expect(capUtf8('', 0)).toBe('');
  });

  it('never exceeds the cap, never splits a character, and keeps a prefix of the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 40, max: 400 }), (text, cap) => {
        const out = capUtf8(text, cap);
        expect(Buffer.byteLength(out)).toBeLessThanOrEqual(Math.max(cap, Buffer.byteLength(text) <= cap ? 0 : cap));
        if (Buffer.byteLength(text) <= cap) {
          expect(out).toBe(text);
        } else {
          const match = /\n\[truncated: (\d+) bytes total\]$/.exec(out);
          expect(match?.[1]).toBe(String(Buffer.byteLength(text)));
          const kept = out.slice(0, match!.index);
          expect(text.startsWith(kept)).toBe(true);
          expect(kept).not.toContain('\uFFFD');
        }
      }),
    );
  });
});

describe('toScriptCallResult', () => {
  it('keeps the code, the message and the inner code of a failure', () => {
    expect(
      toScriptCallResult({ success: false, error: 'gone', details: { code: 'step_failed', innerCode: 'ENOENT' } }, 100),
    ).toEqual({ text: '', error: { code: 'step_failed', message: 'gone', innerCode: 'ENOENT' } });
  });

  it('writes output that is not a string as JSON, and refuses output JSON cannot write', () => {
    expect(toScriptCallResult({ success: true, output: { a: 1 } }, 100)).toEqual({ text: '{"a":1}', error: null });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toScriptCallResult({ success: true, output: cyclic }, 100).error?.code).toBe('step_bad_result');
  });
});
