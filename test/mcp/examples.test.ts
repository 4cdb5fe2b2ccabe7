/** The MCP examples keep working: the library example, and the example config under toolweave check. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as mcpSteps } from '../../examples/mcp/mcp-steps.js';
import { runBin } from '../cli/proxy-process.js';
import { REPO } from './helpers.js';

describe('examples/mcp', () => {
  it('mcp-steps.ts: a composite and a script over the filesystem server; write_file only once listed', async () => {
    const result = await mcpSteps(() => {});
    expect(result.composite.output).toMatchObject({ test: expect.stringContaining('"file": "src/app/report.js"') });
    expect(result.script.output).toBe('src/app/cache.js: 25\nsrc/app/orders.js: 13\nsrc/app/profile.js: 10\nsrc/app/report.js: 13');
    expect(result.unlisted.output).toBe('step_not_chainable');
    expect(result.listed.output).toBe('written');
  });

  it('toolweave.yaml passes toolweave check, its composite example included', async () => {
    const run = await runBin(['check', '--config', 'toolweave.yaml'], path.join(REPO, 'examples/mcp'));
    expect(run.stdout.trim().split('\n')).toEqual(['ok   server fs: 14 tools', 'ok   composite module_and_test: 1 examples']);
    expect(run.code).toBe(0);
  });
});
