import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main as agentos } from '../../examples/adapters/agentos.js';
import { main as aiSdk } from '../../examples/adapters/ai-sdk.js';
import { main as langchain } from '../../examples/adapters/langchain.js';
import { main as openAIAgents } from '../../examples/adapters/openai-agents.js';

const quiet = () => {};

describe('the adapter examples keep working', () => {
  it('AI SDK', async () => {
    const { recorded, counted } = await aiSdk(quiet);
    expect(recorded.toolName).toBe('uses_of');
    expect((recorded.output as { text: string }).text).toContain('src/app/report.js:7:   const key = cacheKey(region, user);');
    expect(counted.output).toBe(`file: ok\n${(counted.details?.steps as { output: string }[])[0].output}\nstep_2: ok\n13`);
  });

  it('LangChain', async () => {
    const { messages, counted } = await langchain(quiet);
    expect(messages.map((m) => m.status)).toEqual(['success', 'error']);
    expect(JSON.parse(String(messages[0].content)).failures).toEqual(['test/cache.test.json: src/app/report.js does not contain "cacheKey(user, region)"']);
    expect(messages[1].content).toMatch(/^error args_invalid: .*test must be string/u);
    // A LangChain tool's answer is its ToolMessage's content: text.
    expect(counted.output).toBe('2');
  });

  it('OpenAI Agents', async () => {
    const { outputs, finalOutput, shouted } = await openAIAgents(quiet);
    expect(String(outputs[0].output)).toContain("import { cacheKey, recall, remember } from './cache.js';");
    expect(outputs[0].customData).toMatchObject({ isError: false, trace: [{ tool: 'read_file', ok: true }] });
    expect(finalOutput).toBe('report.js calls cacheKey(region, user).');
    expect(String(shouted.output)).toMatch(/step_2: ok\n.*SERVER\.JS/su);
  });

  describe('agentos', () => {
    beforeEach(() => {
      for (const level of ['log', 'info', 'warn', 'error'] as const) vi.spyOn(console, level).mockImplementation(() => {});
    });
    afterEach(() => vi.restoreAllMocks());
    it('runs the composite in its orchestrator', async () => {
      const result = await agentos(quiet);
      expect(result).toMatchObject({ toolCallId: 'c1', toolName: 'test_failures', isError: false, output: ['test/cache.test.json: src/app/report.js does not contain "cacheKey(user, region)"'] });
    });
  });
});
