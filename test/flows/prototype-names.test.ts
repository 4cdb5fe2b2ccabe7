import { describe, expect, it } from 'vitest';
import { registry, tool } from '../helpers/tools.js';

describe('a tool named as a member of Object.prototype', () => {
  it('is answered when the host lists readers and untrusted fields by tool (none for it)', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const t = tool(name, () => 'ok', { hasSideEffects: false, trustedOutput: true });
      const gate = registry(t).gate({ flows: { readers: {}, untrustedFields: {} } });
      const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled'), 2000));
      const result = await Promise.race([gate.run(t, {}, { sessionId: 's' }), stalled]);
      expect(result, name).toMatchObject({ success: true, output: 'ok' });
    }
  });
});
