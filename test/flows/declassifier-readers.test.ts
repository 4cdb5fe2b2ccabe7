/**
 * A declassifier's output is trusted whatever its arguments: an attacker can only choose among
 * trusted values. Who may read it is another matter: a lookup keyed by a secret tells whoever
 * reads its answer something of the secret, so the answer keeps its arguments' readers.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { readersInclude } from '../../src/flows/options.js';
import { registry, tool } from '../helpers/tools.js';

describe("a declassifier's output", () => {
  it("is trusted, and readable only by those who may read its arguments", async () => {
    const sent: unknown[] = [];
    const readDiary = tool('read_diary', () => 'Dr. Who', { hasSideEffects: false, trustedOutput: true, readers: ['me@home.example'] });
    const lookup = tool('lookup_contact', (args) => `${String(args.name)} <doctor@clinic.example>`, { hasSideEffects: false });
    const sendEmail = tool('send_email', (args) => (sent.push(args), 'sent'), { hasSideEffects: true });
    const gate = registry(readDiary, lookup, sendEmail).gate({
      flows: { onViolation: 'refuse', declassifiers: ['lookup_contact'], policies: { send_email: { trusted: ['to'], check: readersInclude('to') } } },
    });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send_email'] });
    const tell = builder.build('tell', 'x', { type: 'object' }, {
      steps: [{ tool: 'read_diary' }, { name: 'who', tool: 'lookup_contact', inputMapping: { name: '$prev' } }, { tool: 'send_email', inputMapping: { to: '$input.to', body: '$steps.who' } }],
    });
    const result = await tell.execute({ to: 'someone@else.example' }, { sessionId: 'tell' });
    expect(result.details?.code).toBe('flow_untrusted');
    expect(sent).toEqual([]);
    expect((await tell.execute({ to: 'me@home.example' }, { sessionId: 'mine' })).success).toBe(true);
  });
});
