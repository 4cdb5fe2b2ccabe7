import { describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../../src/agent-tools/script/index.js';
import { createGetObservationTool } from '../../../src/agent-tools/observations/get-observation-tool.js';
import { createObservationStore } from '../../../src/agent-tools/observations/memory-store.js';
import { withObservations } from '../../../src/agent-tools/observations/with-observations.js';
import { createStepGate } from '../../../src/gate/step-gate.js';
import { ComposableToolBuilder } from '../../../src/builder.js';
import { createComposeTool } from '../../../src/agent-tools/compose.js';
import { forReader, readerOf } from '../../../src/shaping/result-reader.js';
import { mockTool, numberedLines } from './helpers.js';

const LOG = numberedLines(900, 20);

function setup() {
  const store = createObservationStore();
  const log = withObservations(mockTool(() => ({ success: true, output: LOG }), { name: 'build_log', id: 'build_log' }), store);
  const tiny = withObservations(mockTool(() => ({ success: true, output: '42' }), { name: 'version', id: 'version' }), store);
  const getObservation = createGetObservationTool(store);
  const tools = new Map([log, tiny, getObservation].map((t) => [t.name, t]));
  const gate = createStepGate({ resolve: (name) => tools.get(name) });
  return { store, gate, getObservation };
}

describe('wrapped tools shape their results through every door', () => {
  it('a direct call: a bounded preview with an obs_ id, paged back whole', async () => {
    const { gate, getObservation } = setup();
    const result = await gate.run(gate.resolve('build_log')!, {}, {});
    const text = String(result.output);
    expect(Buffer.byteLength(text)).toBeLessThan(2300);
    const id = /obs_[a-z0-9]+/.exec(text)![0];
    const page = await getObservation.execute({ ids: [id], offset: 880 }, {});
    expect(String(page.output)).toContain('line 900');
  });

  it('a run_pipeline step', async () => {
    const { gate } = setup();
    const pipeline = createRunPipelineTool(gate);
    const result = await pipeline.execute({ steps: [{ tool: 'build_log' }, { tool: 'version' }] }, {});
    const steps = (result.details?.steps as { output: unknown }[]);
    expect(String(steps[0].output)).toMatch(/obs_/);
    expect(String(steps[0].output).length).toBeLessThan(LOG.length / 4);
    expect(steps[1].output).toBe('42'); // small results pass through untouched
  });

  it('a run_js call: the script reads the whole result; only what it returns reaches the model', async () => {
    const { gate } = setup();
    const script = createScriptTool(gate);
    const result = await script.execute({ intention: 'size', code: 'const r = await callTool("build_log", {}); const v = await callTool("version", {}); return { big: r.text.length, hasId: /obs_/.test(r.text), last: r.text.split("\\n").pop(), v: v.text };' }, {});
    const out = JSON.parse(String(result.output)) as { big: number; hasId: boolean; last: string; v: string };
    expect(out.hasId).toBe(false);
    expect(out.big).toBe(LOG.length);
    expect(out.last).toContain('line 900');
    expect(out.v).toBe('42');
  });

  it("a composite's and a compose tree's steps read raw results", async () => {
    const { gate } = setup();
    const builder = new ComposableToolBuilder(gate);
    const composite = builder.build('log_all', 'the whole log', { type: 'object' }, {
      steps: [{ name: 'log', tool: 'build_log' }],
      output: { log: '$steps.log' },
    });
    expect((await composite.execute({}, {})).output).toEqual({ log: LOG });
    const compose = createComposeTool(gate);
    const tree = await compose.execute({ combinator: 'gather', calls: { log: { tool: 'build_log' } } }, {});
    expect((tree.output as { log: string }).log).toBe(LOG);
  });

  it('a host marks its own code-reading calls with forReader', async () => {
    const { gate } = setup();
    const raw = await gate.run(gate.resolve('build_log')!, {}, forReader({ user: 'ann' }, 'code'));
    expect(raw.output).toBe(LOG);
    expect(readerOf(forReader({}, 'code'))).toBe('code');
    expect(readerOf({})).toBe('model');
  });
});


describe('the scope travels through the doors', () => {
  it("a session's pipeline stores in its scope; its script pages it back; another session's script cannot", async () => {
    const { gate } = setup();
    const session = (sessionId: string) => ({ sessionData: { sessionId } });
    const pipeline = createRunPipelineTool(gate);
    const batch = await pipeline.execute({ steps: [{ tool: 'build_log' }] }, session('s1'));
    const id = /obs_[a-z2-7]{20}/.exec(String(batch.output))![0];
    const script = createScriptTool(gate);
    const code = `const r = await callTool("get_observation", { ids: [${JSON.stringify(id)}], offset: 899 }); return r.error ? r.error.innerCode : r.text;`;
    expect((await script.execute({ intention: 'page', code }, session('s1'))).output).toContain('line 900');
    const other = String((await script.execute({ intention: 'page', code }, session('s2'))).output);
    expect(other).not.toContain('line 900');
    expect(other).toContain('observation_unknown');
  });
});
