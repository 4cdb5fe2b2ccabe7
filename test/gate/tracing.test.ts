import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('toolweave-test');

afterEach(() => exporter.reset());

/** The finished spans, oldest first by start time. */
function spans(): ReadableSpan[] {
  return [...exporter.getFinishedSpans()].sort((a, b) => (a.startTime[0] - b.startTime[0]) * 1e9 + (a.startTime[1] - b.startTime[1]));
}
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

function setup() {
  const read = tool('read_file', (a) => `text of ${String(a.path)}`);
  const fail = tool('fail', () => ({ success: false, error: 'disk full', details: { code: 'E_DISK' } }));
  const write = tool('write_file', () => 'written', { hasSideEffects: true });
  const reg = registry(read, fail, write);
  return { reg, gate: reg.gate({ tracer }) };
}

describe('OpenTelemetry traces', () => {
  it('a run_js making three calls is one script span with three children, in order, with their codes', async () => {
    const { gate } = setup();
    const script = createScriptTool(gate);
    const result = await script.execute(
      { code: "await callTool('read_file', { path: 'a' }); await callTool('fail', {}); await callTool('missing_tool', {}); return 'done';" },
      {},
    );
    expect(result.success).toBe(true);
    const all = spans();
    const scriptSpan = all.find((s) => s.name === 'execute_tool run_js')!;
    expect(scriptSpan).toBeDefined();
    expect(scriptSpan.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'run_js', 'toolweave.door': 'run_js' });
    const children = all.filter((s) => parentOf(s) === idOf(scriptSpan));
    expect(children.map((s) => s.name)).toEqual(['execute_tool read_file', 'execute_tool fail']);
    expect(children[0].attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'toolweave.step': 'call 1', 'toolweave.side_effects': 'false', 'toolweave.dry_run': false });
    expect(children[0].status.code).toBe(0);
    expect(children[1].attributes).toMatchObject({ 'error.type': 'step_failed', 'toolweave.inner_code': 'E_DISK' });
    expect(children[1].status.code).toBe(2);
  });

  it('a composite is a span, its steps and a nested composite nest under it, a refusal has its code', async () => {
    const { reg, gate } = setup();
    const builder = new ComposableToolBuilder(gate);
    reg.add(builder.build('inner', 'inner', { type: 'object' }, { steps: [{ name: 'r', tool: 'read_file', inputMapping: { path: 'x' } }] }));
    const outer = builder.build('outer', 'outer', { type: 'object' }, {
      steps: [{ name: 'first', tool: 'read_file', inputMapping: { path: 'y' } }, { name: 'nested', tool: 'inner', inputMapping: {} }],
    });
    expect((await outer.execute({}, {})).success).toBe(true);
    const all = spans();
    const outerSpan = all.find((s) => s.name === 'execute_tool outer')!;
    const innerSpan = all.find((s) => s.name === 'execute_tool inner')!;
    expect(parentOf(outerSpan)).toBeUndefined();
    expect(parentOf(innerSpan)).toBe(idOf(outerSpan));
    expect(all.filter((s) => parentOf(s) === idOf(outerSpan)).map((s) => s.name)).toEqual(['execute_tool read_file', 'execute_tool inner']);
    expect(all.filter((s) => parentOf(s) === idOf(innerSpan)).map((s) => [s.name, s.attributes['toolweave.step']])).toEqual([['execute_tool read_file', 'r']]);

    exporter.reset();
    const denied = createRunPipelineTool(reg.gate({ tracer, permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'no' }) } }));
    await denied.execute({ steps: [{ id: 'try', tool: 'read_file', args: {} }] }, {});
    const refusal = spans().find((s) => s.name === 'execute_tool read_file')!;
    expect(refusal.attributes).toMatchObject({ 'error.type': 'permission_denied', 'toolweave.step': 'try' });
    expect(spans().find((s) => s.name === 'execute_tool run_pipeline')!.attributes['error.type']).toBe('permission_denied');
  });

  it('marks a dry run on the door span', async () => {
    const { gate } = setup();
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['write_file'] });
    await builder.runPipeline({ steps: [{ name: 'w', tool: 'write_file', inputMapping: {} }] }, {}, {}, { dry: { stepOutputs: { w: 'would write' } } });
    expect(spans().map((s) => [s.name, s.attributes['toolweave.dry_run']])).toEqual([['execute_tool composite', true]]);
  });

  it('traces nothing without a tracer', async () => {
    const { reg } = setup();
    await createScriptTool(reg.gate()).execute({ code: "await callTool('read_file', {}); return 1;" }, {});
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
