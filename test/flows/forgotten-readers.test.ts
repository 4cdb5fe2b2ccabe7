/**
 * A session the gate no longer keeps reads as untrusted: it must also read as readable by no one,
 * or a session that read a secret would, once forgotten (other sessions pushed it out), send it
 * to whoever a policy that only asks about readers lets through.
 */
import { describe, expect, it } from 'vitest';
import { readersInclude } from '../../src/flows/options.js';
import { registry, tool } from '../helpers/tools.js';

describe('a forgotten session', () => {
  it('keeps what it read from reaching someone who may not read it', async () => {
    const sent: unknown[] = [];
    const readPin = tool('read_pin', () => '1234', { hasSideEffects: false, trustedOutput: true, readers: ['me@home.example'] });
    const readNews = tool('read_news', () => 'news', { hasSideEffects: false });
    // A notice may say anything; it goes only to whoever may read what it says.
    const notify = tool('notify', (args) => (sent.push(args), 'sent'), { hasSideEffects: true });
    const gate = registry(readPin, readNews, notify).gate({ flows: { onViolation: 'refuse', maxSessions: 1, policies: { notify: { trusted: [], control: false, check: readersInclude('to') } } } });
    await gate.run(readPin, {}, { sessionId: 'secret' });
    const before = await gate.run(notify, { to: 'someone@else.example', text: '1234' }, { sessionId: 'secret' });
    expect(before.details?.code).toBe('flow_untrusted');
    // Another session pushes it out of the gate's memory.
    await gate.run(readNews, {}, { sessionId: 'other' });
    const after = await gate.run(notify, { to: 'someone@else.example', text: '1234' }, { sessionId: 'secret' });
    expect(after.details?.code).toBe('flow_untrusted');
    expect(sent).toEqual([]);
  });
});
