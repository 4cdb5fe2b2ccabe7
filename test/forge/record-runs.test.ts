/**
 * recordCalls(...).wrapRun: a door called from outside is recorded as a run, with an id every call
 * inside it carries, through a door nested in it (which is no run of its own); its arguments are
 * bounded; two runs have two ids.
 */
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool, createScriptTool, createStepGate, recordCalls, type CallRecord, type ITool } from '../../src/index.js';

function tool(name: string, run: (args: Record<string, unknown>) => unknown): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => ({ success: true, output: run(args) }) };
}

describe('recording runs', () => {
  it('tags every call inside a run with its id, a nested door included, and records the run once', async () => {
    const records: CallRecord[] = [];
    const recording = recordCalls([tool('echo', (args) => `echo ${String(args.text)}`)], (record) => records.push(record), { maxOutputChars: 200 });
    const registry = new Map<string, ITool>(recording.tools.map((t) => [t.name, t]));
    const gate = createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys() });
    const runJs = recording.wrapRun(createScriptTool(gate));
    const pipeline = recording.wrapRun(createRunPipelineTool(gate));
    registry.set(runJs.name, runJs);
    registry.set(pipeline.name, pipeline);
    const code = 'await callTool("echo", { text: "a" });\nconst p = await callTool("run_pipeline", { steps: [{ tool: "echo", args: { text: "b" } }] });\nreturn p.error === null;';
    const context = { onEvent: recording.onEvent, sessionId: 's1' };
    const first = await runJs.execute({ code }, context);
    expect(first).toMatchObject({ success: true, output: 'true' });
    const second = await pipeline.execute({ steps: [{ tool: 'echo', args: { text: 'c' } }] }, context);
    expect(second.success).toBe(true);
    await registry.get('echo')!.execute({ text: 'direct' }, context);

    expect(records.map((r) => [r.tool, r.door ?? null, r.isRun ?? null])).toEqual([
      ['echo', 'run_js', null],
      ['echo', 'run_pipeline', null],
      ['run_js', null, true],
      ['echo', 'run_pipeline', null],
      ['run_pipeline', null, true],
      ['echo', null, null],
    ]);
    const [a, b, runA, c, runB, direct] = records;
    expect(runA.run).toMatch(/^run-[0-9a-f]{8}-1$/u);
    expect([a.run, b.run]).toEqual([runA.run, runA.run]);
    expect(runB.run).not.toBe(runA.run);
    expect(c.run).toBe(runB.run);
    expect(direct).not.toHaveProperty('run');
    expect(runA).toMatchObject({ args: { code }, ok: true, output: 'true', scope: 'session:s1' });
    // The run's arguments past the bound: their JSON text cut, with its length.
    const long = `return "${'x'.repeat(300)}";`;
    await runJs.execute({ code: long }, context);
    expect(records.at(-1)).toMatchObject({ isRun: true, args: {}, argsCut: JSON.stringify({ code: long }).slice(0, 200), argsChars: JSON.stringify({ code: long }).length });
  });
});
