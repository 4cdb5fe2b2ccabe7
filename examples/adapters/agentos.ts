/**
 * toolweave in agentos: no adapter, no glue. A composite is already an agentos ITool, so it is
 * registered into agentos's own tool orchestrator as it is, and runs there with agentos's context.
 * Run: npx tsx examples/adapters/agentos.ts
 */
import { ToolExecutor, ToolOrchestrator, ToolPermissionManager } from '@framers/agentos/core/tools';
import { ComposableToolBuilder } from '../../src/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

/** Run the example; returns the orchestrator's result for the call. */
export async function main(log: (line: string) => void = console.log) {
  return withWorkspace(async ({ gate }) => {
    const builder = new ComposableToolBuilder(gate);
    const failures = builder.build('test_failures', 'Run the tests and list the failures.',
      { type: 'object', properties: {} },
      { steps: [{ name: 'status', tool: 'run_tests', inputMapping: {} }], output: '$steps.status.failures' });

    const permissions = new ToolPermissionManager();
    await permissions.initialize({ strictCapabilityChecking: false, logToolCalls: false });
    const orchestrator = new ToolOrchestrator();
    // The one line: the composite, registered as it is.
    await orchestrator.initialize({ logToolCalls: false }, permissions, new ToolExecutor(), [failures]);

    const result = await orchestrator.processToolCall({
      toolCallRequest: { id: 'c1', name: 'test_failures', arguments: {} },
      gmiId: 'gmi-1', personaId: 'reviewer', personaCapabilities: [], userContext: { userId: 'user-1' },
    });
    log(`agentos ran test_failures: ${show(result.output, 120)}`);
    await orchestrator.shutdown();
    return result;
  });
}

if (isMain(import.meta.url)) await main();
