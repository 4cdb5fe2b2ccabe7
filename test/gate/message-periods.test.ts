/**
 * A message that quotes someone else's words (a script's error, a host's advice, a policy's
 * reason) ends each sentence once: words that already end with a period get no second one.
 */
import { describe, expect, it } from 'vitest';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import type { RefusalAdvice } from '../../src/gate/host-hooks.js';
import { registry, tool } from '../helpers/tools.js';

/** A doubled period: two, not three (an ellipsis is written on purpose). */
const DOUBLED = /(?<!\.)\.\.(?!\.)/u;

/** What each script's run_js call answers: its error when it fails, else its output. */
async function scriptAnswers(codes: string[], advice?: RefusalAdvice): Promise<string[]> {
  const reg = registry(
    tool('write_file', () => 'written', { hasSideEffects: true }),
    tool('vague', () => 'ran', {}),
    { ...tool('refuses', () => 'never'), execute: async () => ({ success: false, error: 'The disk is full.', details: { code: 'tool_error' } }) },
  );
  const runJs = createScriptTool(reg.gate(advice ? { advice } : {}));
  const answers: string[] = [];
  for (const code of codes) {
    const result = await runJs.execute({ code }, {});
    answers.push(result.success ? String(result.output) : String(result.error));
  }
  return answers;
}

describe('messages that quote words ending in a period', () => {
  it("a script's own error: said once, with one period", async () => {
    const [thrown, rethrown] = await scriptAnswers([
      "throw new Error('Bad input.')",
      "const r = await callTool('refuses', {}); if (r.error) throw new Error(r.error.message); return r;",
    ]);
    expect(thrown).toContain('Error: Bad input.\n');
    expect(rethrown).toContain('Error: The disk is full.\n');
    for (const message of [thrown, rethrown]) expect(message).not.toMatch(DOUBLED);
  });

  it("a host's advice written as a sentence", async () => {
    const advice: RefusalAdvice = { chain: (name) => `start the host with --chain ${name}.`, declare: (name) => `set ${name}.pure in host.toml.` };
    const [answer] = await scriptAnswers([`return [(await callTool('write_file', {})).error.message, (await callTool('vague', {})).error.message];`], advice);
    const [chain, declare] = JSON.parse(answer) as string[];
    expect(chain).toContain('call it directly, or start the host with --chain write_file.');
    expect(declare).toContain('call it directly, or set vague.pure in host.toml.');
    for (const message of [chain, declare]) expect(message).not.toMatch(DOUBLED);
  });
});
