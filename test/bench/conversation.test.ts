/**
 * The conversation simulator counts what a host really sends: every turn the whole request
 * (system text, every tool definition, every message so far), and what the model writes.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../bench/conversation/conversation.js';
import { resultText } from '../../bench/conversation/host-view.js';
import type { ITool } from '../../src/index.js';

const echo: ITool = {
  id: 'echo',
  name: 'echo',
  displayName: 'echo',
  description: 'Echo the text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  hasSideEffects: false,
  execute: async (args) => ({ success: true, output: { said: args.text } }),
};
const definition = { name: 'echo', description: 'Echo the text.', parameters: echo.inputSchema };
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('Conversation', () => {
  it('sends the whole conversation on every turn and counts the model output', async () => {
    const c = new Conversation({ system: 'sys', tools: [echo], task: 'say hi twice' });
    expect(await c.call('echo', { text: 'hi' })).toBe('{"said":"hi"}');
    await c.call('echo', { text: 'hi again' });
    const tally = c.answer('done');

    const user = { role: 'user', content: 'say hi twice' };
    const call1 = { role: 'assistant', tool_calls: [{ id: 'call_1', name: 'echo', arguments: { text: 'hi' } }] };
    const result1 = { role: 'tool', tool_call_id: 'call_1', content: '{"said":"hi"}' };
    const call2 = { role: 'assistant', tool_calls: [{ id: 'call_2', name: 'echo', arguments: { text: 'hi again' } }] };
    const result2 = { role: 'tool', tool_call_id: 'call_2', content: '{"said":"hi again"}' };
    const requests = [[user], [user, call1, result1], [user, call1, result1, call2, result2]].map((messages) =>
      JSON.stringify({ system: 'sys', tools: [definition], messages }),
    );
    const outputs = [JSON.stringify({ name: 'echo', arguments: { text: 'hi' } }), JSON.stringify({ name: 'echo', arguments: { text: 'hi again' } }), 'done'];

    expect(tally.turns).toBe(3);
    expect(tally.toolCalls).toBe(2);
    expect(tally.inputTokens).toBe(requests.reduce((n, r) => n + encode(r).length, 0));
    expect(tally.inputBytes).toBe(requests.reduce((n, r) => n + bytes(r), 0));
    expect(tally.outputTokens).toBe(outputs.reduce((n, o) => n + encode(o).length, 0));
    expect(tally.outputBytes).toBe(outputs.reduce((n, o) => n + bytes(o), 0));
  });

  it('refuses a tool it does not offer, and a call after the answer', async () => {
    const c = new Conversation({ system: 's', tools: [echo], task: 't' });
    await expect(c.call('nope', {})).rejects.toThrow(/not offered/);
    c.answer('x');
    await expect(c.call('echo', {})).rejects.toThrow(/ended/);
  });
});

describe('resultText', () => {
  it('is the output as written, JSON otherwise, the error text on failure', () => {
    expect(resultText({ success: true, output: 'a\nb' })).toBe('a\nb');
    expect(resultText({ success: true, output: [1, 'x'] })).toBe('[1,"x"]');
    expect(resultText({ success: true })).toBe('');
    expect(resultText({ success: false, error: 'boom', details: { code: 'step_failed' } })).toBe('boom');
  });
});
