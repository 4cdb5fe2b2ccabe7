import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createGetObservationTool, createObservationStore } from '../../src/agent-tools/observations/index.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { MAX_COMPOSITION_DEPTH } from '../../src/gate/depth.js';
import { registry, tool } from '../helpers/tools.js';

function setup(sideEffectingTools: string[] = []) {
  const tools = {
    list: tool('list_dir', (a) => `a.ts\nb.ts (in ${String(a.path)})`),
    grep: tool('grep_files', (a) => [`${String(a.path)}/a.ts:1: ${String(a.pattern)}`]),
    read: tool('read_file', (a) => `text of ${String(a.path)}`),
    calc: tool('calculator', (a) => Number(String(a.expression).split('+').reduce((s, x) => s + Number(x), 0))),
    echo: tool('echo', (a) => a),
    write: tool('write_file', (a) => `wrote ${String(a.path)}`, { hasSideEffects: true }),
    fail: tool('fail', () => ({ success: false, error: 'no such file', details: { code: 'ENOENT' } })),
  };
  const reg = registry(...Object.values(tools));
  const pipeline = createRunPipelineTool(reg.gate(), { sideEffectingTools });
  reg.map.set('run_pipeline', pipeline);
  return { tools, reg, pipeline };
}

describe('run_pipeline', () => {
  it('runs the 4-step investigation in one call and lists every step', async () => {
    const { pipeline } = setup();
    const result = await pipeline.execute({
      steps: [
        { id: 'list-src', tool: 'list_dir', args: { path: 'src' } },
        { id: 'find', tool: 'grep_files', args: { pattern: 'class.*Adapter', path: 'src/adapters' } },
        { id: 'read', tool: 'read_file', args: { path: 'src/adapters/Loop.ts' } },
        { id: 'count', tool: 'calculator', args: { expression: '1+1' } },
      ],
    }, {});
    expect(result.success).toBe(true);
    expect(result.details?.steps).toEqual([
      { id: 'list-src', ok: true, output: 'a.ts\nb.ts (in src)' },
      { id: 'find', ok: true, output: ['src/adapters/a.ts:1: class.*Adapter'] },
      { id: 'read', ok: true, output: 'text of src/adapters/Loop.ts' },
      { id: 'count', ok: true, output: 2 },
    ]);
    // The model reads text: each output under its step's line, text as written, the rest as JSON.
    expect(result.output).toBe(
      'list-src: ok\na.ts\nb.ts (in src)\nfind: ok\n["src/adapters/a.ts:1: class.*Adapter"]\nread: ok\ntext of src/adapters/Loop.ts\ncount: ok\n2',
    );
  });

  it('threads ${step_N.output} (1-based) and ${id.output}; later and unknown references stay verbatim', async () => {
    const { pipeline } = setup();
    const result = await pipeline.execute({
      steps: [
        { id: 'first', tool: 'echo', args: { v: 'one' } },
        { tool: 'echo', args: { whole: '${step_1.output}', text: 'got ${first.output}!', later: '${step_3.output}', unknown: '${nobody.output}', dollar: '$input.secret' } },
        { tool: 'echo', args: { prev: '${step_2.output}' } },
      ],
    }, {});
    const steps = (result.details?.steps as { output: Record<string, unknown> }[]);
    expect(steps[1].output).toEqual({ whole: { v: 'one' }, text: 'got {"v":"one"}!', later: '${step_3.output}', unknown: '${nobody.output}', dollar: '$input.secret' });
    expect(steps[2].output.prev).toEqual(steps[1].output);
  });

  it('data is never code: an output containing a reference is not resolved again', async () => {
    const { pipeline } = setup();
    const result = await pipeline.execute({
      steps: [
        { tool: 'echo', args: { text: '${step_1.output}' } },
        { tool: 'echo', args: { from: '${step_1.output}' } },
      ],
    }, {});
    const steps = (result.details?.steps as { output: unknown }[]);
    expect(steps[1].output).toEqual({ from: { text: '${step_1.output}' } });
  });

  it('stops on error by default and reports the unrun steps', async () => {
    const { pipeline, tools } = setup();
    const result = await pipeline.execute({ steps: [{ tool: 'fail' }, { tool: 'read_file', args: { path: 'x' } }] }, {});
    expect(result.success).toBe(false);
    expect(result.details?.steps).toEqual([
      { id: 'step_1', ok: false, error: 'no such file', code: 'ENOENT' },
      { id: 'step_2', ok: false, error: 'not run: an earlier step failed' },
    ]);
    expect(result.output).toBe('step_1: error ENOENT: no such file\nstep_2: error: not run: an earlier step failed');
    expect(result.details?.code).toBe('step_failed');
    expect(tools.read.calls).toHaveLength(0);
  });

  it('with stop_on_error false, goes on after a failure', async () => {
    const { pipeline } = setup();
    const result = await pipeline.execute({ steps: [{ tool: 'fail' }, { tool: 'echo', args: { after: '${step_1.output}' } }], stop_on_error: false }, {});
    expect(result.success).toBe(false);
    const steps = (result.details?.steps as unknown[]);
    expect(steps[1]).toEqual({ id: 'step_2', ok: true, output: { after: null } });
  });

  it("applies the host's chainability rule before anything runs", async () => {
    const { pipeline, tools } = setup();
    const result = await pipeline.execute({ steps: [{ tool: 'read_file', args: { path: 'a' } }, { tool: 'write_file', args: { path: 'x' } }] }, {});
    expect(result.details).toMatchObject({ code: 'step_not_chainable', step: 'step_2' });
    expect(tools.read.calls).toHaveLength(0);
    expect(tools.write.calls).toHaveLength(0);
    const listed = setup(['write_file']);
    const ok = await listed.pipeline.execute({ steps: [{ tool: 'write_file', args: { path: 'x' } }] }, {});
    expect(ok.success).toBe(true);
    expect(ok.effects).toEqual([{ step: 'step_1', tool: 'write_file', ran: true, outcome: 'ran' }]);
    expect(listed.pipeline.hasSideEffects).toBe(true);
    expect(pipeline.hasSideEffects).toBe(false);
  });

  it('refuses unknown tools, itself, too many steps, and bad input', async () => {
    const { pipeline } = setup();
    expect((await pipeline.execute({ steps: [{ tool: 'ghost' }] }, {})).details?.code).toBe('step_missing');
    expect((await pipeline.execute({ steps: [{ tool: 'run_pipeline', args: { steps: [] } }] }, {})).details?.code).toBe('pipeline_self_call');
    const many = Array.from({ length: 21 }, () => ({ tool: 'echo' }));
    expect((await pipeline.execute({ steps: many }, {})).details).toMatchObject({ code: 'pipeline_too_long', maxSteps: 20 });
    const bad = await pipeline.execute({ steps: [{ tool: 3 }, { id: 'a', tool: 'echo' }, { id: 'a', tool: 'echo' }] } as never, {});
    expect(bad.details?.code).toBe('input_invalid');
    expect((await pipeline.execute({} as never, {})).details?.code).toBe('input_invalid');
    expect((await pipeline.execute({ steps: [{ id: 'a', tool: 'echo' }, { id: 'a', tool: 'echo' }] }, {})).error).toMatch(/used by an earlier step/);
  });

  it('the step bound is configurable, and depth holds', async () => {
    const reg = registry(tool('echo', (a) => a));
    const small = createRunPipelineTool(reg.gate(), { maxSteps: 2 });
    expect((await small.execute({ steps: [{ tool: 'echo' }, { tool: 'echo' }, { tool: 'echo' }] }, {})).details?.code).toBe('pipeline_too_long');
    expect((await small.execute({ steps: [{ tool: 'echo' }] }, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH } })).details?.code).toBe('nesting_too_deep');
  });

  it('its definition, with run_js and get_observation, stays within 250 tokens (o200k_base over name, description, inputSchema)', () => {
    const { pipeline, reg } = setup();
    const gate = reg.gate();
    const tools = [pipeline, createScriptTool(gate), createGetObservationTool(createObservationStore())];
    const tokens = tools.map((t) => encode(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })).length);
    expect(tokens.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(250);
  });

  it('still checks what its small schema leaves out: an unknown field, an empty list', async () => {
    const { pipeline } = setup();
    expect((await pipeline.execute({ steps: [] }, {})).details?.code).toBe('input_invalid');
    expect((await pipeline.execute({ steps: [{ tool: 'echo', argz: {} }] }, {})).error).toContain('unknown field "argz"');
  });
});
