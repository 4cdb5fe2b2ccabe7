import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const read = tool('read_file', (a) => `text of ${String(a.path)}`);
  const write = tool('write_file', () => 'written', { hasSideEffects: true });
  const reg = registry(read, write);
  const gate = reg.gate();
  const options = { sideEffectingTools: ['write_file'] };
  return { reg, gate, options, read, write };
}

describe('dry runs at every door, asked for by the host in the context', () => {
  it('run_js: each side-effecting call answers with a stub and is listed wouldRun with its arguments', async () => {
    const { gate, options, read, write } = setup();
    const script = createScriptTool(gate, options);
    const code = `
      const text = (await callTool('read_file', { path: 'notes.txt' })).text;
      const a = await callTool('write_file', { path: 'a.txt', content: text });
      const b = await callTool('write_file', { path: 'b.txt' });
      const c = await callTool('write_file', { path: 'c.txt' });
      return [a.text, b.text, c.text].join(' | ');`;
    const result = await script.execute({ code }, { dryRun: { stepOutputs: { 'call 2': 'stub for a', write_file: 'stub by tool' } } });
    expect(result).toMatchObject({ success: true, output: 'stub for a | stub by tool | stub by tool' });
    expect(write.calls).toEqual([]);
    expect(read.calls).toEqual([{ path: 'notes.txt' }]);
    expect(result.effects).toEqual([
      { step: 'call 2', tool: 'write_file', wouldRun: true, args: { path: 'a.txt', content: 'text of notes.txt' } },
      { step: 'call 3', tool: 'write_file', wouldRun: true, args: { path: 'b.txt' } },
      { step: 'call 4', tool: 'write_file', wouldRun: true, args: { path: 'c.txt' } },
    ]);
    // Without a stub, the documented default.
    const plain = await script.execute({ code: "return (await callTool('write_file', {})).text;" }, { dryRun: {} });
    expect(plain.output).toBe('dry run: "write_file" was not run');
    // The rule still decides in a dry run.
    const unlisted = await createScriptTool(gate).execute({ code: "return (await callTool('write_file', {})).error.code;" }, { dryRun: {} });
    expect(unlisted.output).toBe('step_not_chainable');
  });

  it('run_pipeline and compose: the pure steps run, the side-effecting ones are stubbed by step', async () => {
    const { gate, options, write } = setup();
    const pipeline = await createRunPipelineTool(gate, options).execute(
      { steps: [{ id: 'r', tool: 'read_file', args: { path: 'x' } }, { id: 'w', tool: 'write_file', args: { content: '${r.output}' } }] },
      { dryRun: { stepOutputs: { w: 'would write' } } },
    );
    expect(pipeline.success).toBe(true);
    expect(pipeline.effects).toEqual([{ step: 'w', tool: 'write_file', wouldRun: true, args: { content: 'text of x' } }]);
    const compose = await createComposeTool(gate, options).execute(
      { combinator: 'gather', calls: { save: { tool: 'write_file', args: { path: 'y' } } } },
      { dryRun: { stepOutputs: { 'tree.calls.save': 'ok' } } },
    );
    expect(compose).toMatchObject({ success: true, output: { save: 'ok' } });
    const missing = await createComposeTool(gate, options).execute({ tool: 'write_file', args: {} }, { dryRun: {} });
    expect(missing.details?.code).toBe('dry_run_needs_output');
    expect(write.calls).toEqual([]);
  });

  it("asks the host's permission check and checks (not the approval hook): a call they refuse is refused with its code, not listed wouldRun", async () => {
    const read = tool('read_file', (a) => `text of ${String(a.path)}`);
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const asked: string[] = [];
    const reg = registry(read, write);
    const gate = reg.gate({
      permissionManager: { isExecutionAllowed: (t, args) => (args.path === 'secret.txt' ? { isAllowed: false, reason: `no ${t.name} to secret.txt` } : { isAllowed: true }) },
      checks: [({ tool: t, args }) => (t.name === 'write_file' && args.path === '/etc/passwd' ? { isAllowed: false, reason: 'not under /etc' } : { isAllowed: true })],
      approvals: {
        requestApproval: (action) => {
          asked.push(action.toolName);
          return { approved: true };
        },
      },
    });
    const options = { sideEffectingTools: ['write_file'] };

    const refusedByCheck = await createRunPipelineTool(gate, options).execute(
      { steps: [{ id: 'r', tool: 'read_file', args: { path: 'x' } }, { id: 'w', tool: 'write_file', args: { path: '/etc/passwd' } }] },
      { dryRun: { stepOutputs: { w: 'would write' } } },
    );
    expect(refusedByCheck.success).toBe(false);
    expect(refusedByCheck.details).toMatchObject({ code: 'permission_denied', step: 'w', tool: 'write_file' });
    expect(refusedByCheck.error).toContain('not under /etc');
    expect(refusedByCheck.effects ?? []).toEqual([]);

    const refusedByManager = await createComposeTool(gate, options).execute(
      { combinator: 'gather', calls: { save: { tool: 'write_file', args: { path: 'secret.txt' } } } },
      { dryRun: { stepOutputs: { 'tree.calls.save': 'ok' } } },
    );
    expect(refusedByManager.details?.code).toBe('permission_denied');
    expect(refusedByManager.error).toContain('no write_file to secret.txt');

    // A script reads the refusal as the real run would, and the allowed call is listed wouldRun.
    const script = await createScriptTool(gate, options).execute(
      { code: "const a = await callTool('write_file', { path: '/etc/passwd' }); const b = await callTool('write_file', { path: 'ok.txt' }); return [a.error?.code, b.text].join(' | ');" },
      { dryRun: { stepOutputs: { write_file: 'stub' } } },
    );
    expect(script.output).toBe('permission_denied | stub');
    expect(script.effects).toEqual([{ step: 'call 2', tool: 'write_file', wouldRun: true, args: { path: 'ok.txt' } }]);

    // An allowed call is listed as before; the person is never asked about a call that does not run.
    const allowed = await createRunPipelineTool(gate, options).execute({ steps: [{ id: 'w', tool: 'write_file', args: { path: 'ok.txt' } }] }, { dryRun: { stepOutputs: { w: 'would write' } } });
    expect(allowed.success).toBe(true);
    expect(allowed.effects).toEqual([{ step: 'w', tool: 'write_file', wouldRun: true, args: { path: 'ok.txt' } }]);
    expect(asked).toEqual([]);
    expect(write.calls).toEqual([]);
  });

  it('a built composite runs dry when its context says so, and for real otherwise', async () => {
    const { gate, options, write } = setup();
    const builder = new ComposableToolBuilder(gate);
    builder.bind(options);
    const save = builder.build('save', 'save', { type: 'object' }, { steps: [{ name: 'w', tool: 'write_file', inputMapping: { path: '$input.path' } }] });
    const dry = await save.execute({ path: 'z' }, { dryRun: { stepOutputs: { w: 'would' } } });
    expect(dry).toMatchObject({ success: true, output: 'would', effects: [{ step: 'w', tool: 'write_file', wouldRun: true, args: { path: 'z' } }] });
    expect(write.calls).toEqual([]);
    const real = await save.execute({ path: 'z' }, {});
    expect(real).toMatchObject({ success: true, output: 'written' });
    expect(write.calls).toEqual([{ path: 'z' }]);
  });
});
