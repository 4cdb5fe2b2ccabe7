/**
 * `readersInclude` refuses sending data to someone who may not read it. What decided that a
 * message is sent is sent with it: a mail sent only when a secret's digit is 1 tells its
 * recipient that digit, as a body holding it would.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { readersInclude } from '../../src/flows/options.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const sent: unknown[] = [];
  const readPin = tool('read_pin', () => ({ pin: '1234' }), { hasSideEffects: false, trustedOutput: true, readers: ['me@home.example'] });
  const sendEmail = tool('send_email', (args) => (sent.push(args), 'sent'), { hasSideEffects: true });
  const gate = registry(readPin, sendEmail).gate({ flows: { onViolation: 'refuse', policies: { send_email: { trusted: ['to'], check: readersInclude('to') } } } });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['send_email'] });
  return { builder, sent };
}

describe('readersInclude and what decided the call', () => {
  it('refuses a mail to someone the secret may not reach, sent only when the secret says so', async () => {
    const { builder, sent } = setup();
    const leak = builder.build('leak', 'x', { type: 'object' }, {
      steps: [
        { name: 'secret', tool: 'read_pin' },
        { tool: 'send_email', when: { path: '$steps.secret.pin', equals: '1234' }, inputMapping: { to: '$input.to', body: 'hello' } },
      ],
    } as never);
    const result = await leak.execute({ to: 'someone@else.example' }, { sessionId: 'leak' });
    expect(result.details?.code).toBe('flow_untrusted');
    expect(sent).toEqual([]);
    // Its reader may be told.
    expect((await leak.execute({ to: 'me@home.example' }, { sessionId: 'mine' })).success).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it("keeps who may read what decided the call when that is all its label says (a host's label: trusted, no source, some readers)", async () => {
    const { builder, sent } = setup();
    const leak = builder.build('leak_flag', 'x', { type: 'object' }, {
      steps: [{ tool: 'send_email', when: { path: '$input.flag', equals: 1 }, inputMapping: { to: 'someone@else.example', body: 'hello' } }],
    } as never);
    // The host says the caller's input is trusted but only its owner may read it (as a label kept with a durable run can).
    const context = { sessionId: 'flag', flows: { arguments: { trusted: true, sources: [], readers: ['me@home.example'] } } };
    const result = await leak.execute({ flag: 1 }, context);
    expect(result.details?.code).toBe('flow_untrusted');
    expect(sent).toEqual([]);
  });
});
