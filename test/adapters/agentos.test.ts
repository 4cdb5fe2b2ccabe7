/**
 * agentos needs no adapter: a toolweave tool already is an agentos `ITool`. The type check below
 * holds that (`npm run typecheck` compiles the tests), and agentos's own tool orchestrator, built
 * without any model service, runs a built composite it was given.
 */
import { ToolExecutor, ToolOrchestrator, ToolPermissionManager, type ITool as AgentosTool } from '@framers/agentos/core/tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { ITool } from '../../src/index.js';
import { hostSetup } from './helpers.js';

describe('agentos', () => {
  // agentos's orchestrator logs every step to the console.
  beforeEach(() => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'info').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => vi.restoreAllMocks());

  it("a toolweave ITool, a composite and a model-facing tool are agentos ITools (a type test)", () => {
    const setup = hostSetup();
    expectTypeOf<ITool>().toExtend<AgentosTool>();
    expectTypeOf(setup.greetUser).toExtend<AgentosTool>();
    expectTypeOf(setup.runPipeline).toExtend<AgentosTool>();
    const asAgentos: AgentosTool[] = [setup.greetUser, setup.runPipeline, setup.compose, setup.runJs, setup.getObservation];
    expect(asAgentos.map((t) => t.name)).toEqual(['greet_user', 'run_pipeline', 'compose', 'run_js', 'get_observation']);
  });

  it("agentos's tool orchestrator runs a built composite registered into it; toolweave's own refusals come back as its errors", async () => {
    const setup = hostSetup();
    const permissions = new ToolPermissionManager();
    await permissions.initialize({ strictCapabilityChecking: false, logToolCalls: false });
    const orchestrator = new ToolOrchestrator();
    await orchestrator.initialize({ logToolCalls: false }, permissions, new ToolExecutor(), [setup.greetUser]);
    await orchestrator.registerTool(setup.runPipeline);
    const call = (id: string, name: string, args: Record<string, unknown>) => orchestrator.processToolCall({
      toolCallRequest: { id, name, arguments: args },
      gmiId: 'gmi-1',
      personaId: 'persona-1',
      personaCapabilities: [],
      userContext: { userId: 'user-1' },
    });

    expect(await call('c1', 'greet_user', { id: 7 })).toMatchObject({ toolCallId: 'c1', toolName: 'greet_user', output: 'Hello, user-7!', isError: false });
    // The steps ran with agentos's context, unchanged.
    expect(setup.lookup.contexts.at(-1)).toMatchObject({ gmiId: 'gmi-1', personaId: 'persona-1', userContext: { userId: 'user-1' } });
    const pipeline = await call('c2', 'run_pipeline', { steps: [{ tool: 'write_note', args: { text: 'x' } }] });
    expect(pipeline).toMatchObject({ toolCallId: 'c2', isError: true });
    expect(JSON.stringify(pipeline)).toContain('step_not_chainable');
    expect(setup.notes).toEqual([]);
    expect((await orchestrator.listAvailableTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['greet_user', 'run_pipeline']));
    await orchestrator.shutdown();
  });
});
