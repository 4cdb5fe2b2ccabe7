import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const askUser = tool('ask_user', () => 'yes');
  const confirm = tool('confirm', () => 'confirmed', { hasSideEffects: false, interactive: true });
  const reg = registry(askUser, confirm);
  const gate = reg.gate();
  reg.add(createComposeTool(gate));
  reg.add(createRunPipelineTool(gate));
  reg.add(createScriptTool(gate));
  const builder = new ComposableToolBuilder(gate);
  reg.add(builder.build('ask_twice', 'ask twice', { type: 'object' }, { steps: [{ tool: 'ask_user', inputMapping: {} }] }));
  return { reg, askUser, confirm, script: reg.map.get('run_js')! };
}

describe('no interactive tool runs anywhere under a script', () => {
  it.each([
    ['compose', "callTool('compose', { tool: 'ask_user', args: {} })"],
    ['run_pipeline', "callTool('run_pipeline', { steps: [{ tool: 'ask_user', args: {} }] })"],
    ['a composite', "callTool('ask_twice', {})"],
    ['compose, for a tool that declares interactive: true', "callTool('compose', { tool: 'confirm', args: {} })"],
  ])('through %s', async (_, call) => {
    const { script, askUser, confirm } = setup();
    const result = await script.execute({ intention: 'ask', code: `const r = await ${call}; return r.error;` }, {});
    expect(result.success).toBe(true);
    expect(String(result.output)).toContain('tool_interactive');
    expect(askUser.calls).toEqual([]);
    expect(confirm.calls).toEqual([]);
  });

  it('while the same doors called directly still reach it', async () => {
    const { reg, askUser } = setup();
    const result = await reg.map.get('compose')!.execute({ tool: 'ask_user', args: {} }, {});
    expect(result).toMatchObject({ success: true, output: 'yes' });
    expect(askUser.calls).toHaveLength(1);
  });
});
