import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('a pending step keeps a one-shot program alive until its timeout', () => {
  it('ends with step_timeout, not an exit with nothing printed', () => {
    // A program whose only work is a composite with a tool that never settles.
    const program = `
      import { ComposableToolBuilder, createStepGate } from './src/index.ts';
      const never = { id: 'never', name: 'never', displayName: 'never', description: 'never', inputSchema: {}, hasSideEffects: false, execute: () => new Promise(() => {}) };
      const builder = new ComposableToolBuilder(createStepGate({ resolve: () => never }), { stepTimeoutMs: 300 });
      const tool = builder.build('c', 'c', { type: 'object' }, { steps: [{ tool: 'never', inputMapping: {} }] });
      const result = await tool.execute({}, {});
      console.log(result.details.code);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    expect(run.stdout.trim()).toBe('step_timeout');
    expect(run.status).toBe(0);
  });
});
