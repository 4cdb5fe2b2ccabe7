import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { endSpan } from '../../src/gate/tracing.js';
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
    // The call to a tool that does not exist is refused before the gate runs anything: a span all the same.
    expect(children.map((s) => s.name)).toEqual(['execute_tool read_file', 'execute_tool fail', 'execute_tool missing_tool']);
    expect(children[2].attributes).toMatchObject({ 'error.type': 'step_missing', 'toolweave.step': 'call 3' });
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

  it('a span carries codes and names, not the values in failure messages, unless the host opts in with traceMessages', async () => {
    const greet = tool('greet', (a) => `Hello, ${String(a.name)}`, { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const leaky = tool('leaky', () => ({ success: false, error: 'cannot read /home/alice/secret.txt', details: { code: 'E_READ' } }));
    const boom = tool('boom', () => {
      throw new Error('token=abc123');
    });
    const reg = registry(greet, leaky, boom);
    const steps = { steps: [{ id: 'g', tool: 'greet', args: { name: 4242 } }, { tool: 'leaky' }, { tool: 'boom' }], stop_on_error: false };
    await createRunPipelineTool(reg.gate({ tracer })).execute(steps, {});
    const texts = (list: ReadableSpan[]) => JSON.stringify(list.map((s) => [s.name, s.attributes, s.status, s.events]));
    const quiet = spans();
    expect(quiet.map((s) => [s.name, s.attributes['error.type'], s.status.message])).toEqual([
      ['execute_tool run_pipeline', 'args_invalid', 'args_invalid'],
      ['execute_tool greet', 'args_invalid', 'args_invalid'],
      ['execute_tool leaky', 'step_failed', 'step_failed'],
      ['execute_tool boom', 'step_threw', 'step_threw'],
    ]);
    for (const value of ['4242', 'alice', 'token=abc123']) expect(texts(quiet)).not.toContain(value);

    exporter.reset();
    await createRunPipelineTool(reg.gate({ tracer, traceMessages: true })).execute(steps, {});
    const told = spans();
    expect(told.find((s) => s.name === 'execute_tool greet')!.status.message).toContain('name must be string (got 4242)');
    expect(told.find((s) => s.name === 'execute_tool leaky')!.status.message).toBe('cannot read /home/alice/secret.txt');
    expect(told.find((s) => s.name === 'execute_tool boom')!.status.message).toContain('token=abc123');
  });

  it.each([
    [true, 'cannot read /home/alice/secret.txt'],
    [false, 'step_failed'],
  ])('a door whose own gate has no tracer traces under its caller, with the caller\'s traceMessages (%s)', async (traceMessages, message) => {
    const leaky = tool('leaky', () => ({ success: false, error: 'cannot read /home/alice/secret.txt', details: { code: 'E_READ' } }));
    const reg = registry(leaky);
    reg.add(new ComposableToolBuilder(reg.gate()).build('inner', 'inner', { type: 'object' }, { steps: [{ name: 'l', tool: 'leaky', inputMapping: {} }] }));
    await createRunPipelineTool(reg.gate({ tracer, traceMessages })).execute({ steps: [{ tool: 'inner' }] }, {});
    const all = spans();
    const inner = all.find((s) => s.name === 'execute_tool inner' && s.attributes['toolweave.door'] === 'composite')!;
    const call = all.find((s) => s.name === 'execute_tool leaky')!;
    expect(parentOf(call)).toBe(idOf(inner));
    expect(call.status.message).toBe(message);
  });

  it('bounds a model-chosen step id or tool name in attributes and span names: capped, control characters escaped', async () => {
    const { gate } = setup();
    const id = `evil\n\u0000\u202e${'y'.repeat(500)}`;
    await createRunPipelineTool(gate).execute({ steps: [{ id, tool: 'read_file', args: { path: 'a' } }] }, {});
    const step = String(spans().find((s) => s.name === 'execute_tool read_file')!.attributes['toolweave.step']);
    expect(step.startsWith('evil\\u000a\\u0000\\u202e')).toBe(true);
    expect(step.length).toBeLessThanOrEqual(129);
    expect(step.endsWith('…')).toBe(true);

    exporter.reset();
    const name = `no_such\r${'z'.repeat(400)}`;
    await createScriptTool(gate).execute({ code: `await callTool(${JSON.stringify(name)}, {}); return 1;` }, {});
    const refused = spans().find((s) => s.attributes['error.type'] === 'step_missing')!;
    for (const text of [refused.name, String(refused.attributes['gen_ai.tool.name'])]) {
      expect(text).not.toMatch(/[\u0000-\u001f]/u);
      expect(text.length).toBeLessThanOrEqual(129 + 'execute_tool '.length);
    }
    expect(refused.attributes['gen_ai.tool.name']).toMatch(/^no_such\\u000dzzz/u);
  });

  it('a call the gate refuses before it runs is a span of its own under its door, through every door', async () => {
    const read = tool('read_file', () => 'text');
    const write = tool('write_file', () => 'written', { hasSideEffects: true });
    const ask = tool('ask_user', () => 'yes', { hasSideEffects: false, interactive: true });
    const greet = tool('greet', () => 'hi', { hasSideEffects: false, inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    const reg = registry(read, write, ask, greet);
    const gate = reg.gate({ tracer });
    /** The refused calls under the door span named `door`: [tool, step, error.type]. */
    const refusedUnder = (door: string) => {
      const all = spans();
      const doorSpan = all.find((s) => s.name === `execute_tool ${door}`)!;
      expect(doorSpan).toBeDefined();
      return all.filter((s) => parentOf(s) === idOf(doorSpan) && s.attributes['error.type'] !== undefined).map((s) => [s.attributes['gen_ai.tool.name'], s.attributes['toolweave.step'], s.attributes['error.type']]);
    };

    await createScriptTool(gate).execute({
      code: "for (const n of ['write_file', 'run_js', 'ask_user', 'greet']) await callTool(n, n === 'greet' ? {} : { x: 1 }); await callTool('read_file', 'not an object'); return 1;",
    }, {});
    expect(refusedUnder('run_js')).toEqual([
      ['write_file', 'call 1', 'step_not_chainable'],
      ['run_js', 'call 2', 'pipeline_self_call'],
      ['ask_user', 'call 3', 'tool_interactive'],
      ['greet', 'call 4', 'args_invalid'],
      ['read_file', 'call 5', 'input_invalid'],
    ]);

    exporter.reset();
    await createRunPipelineTool(gate).execute({ steps: [{ id: 'r', tool: 'read_file' }, { id: 'w', tool: 'write_file' }] }, {});
    expect(refusedUnder('run_pipeline')).toEqual([['write_file', 'w', 'step_not_chainable']]);
    exporter.reset();
    await createRunPipelineTool(gate).execute({ steps: [{ id: 'hi', tool: 'greet', args: {} }] }, {});
    expect(refusedUnder('run_pipeline')).toEqual([['greet', 'hi', 'args_invalid']]);

    exporter.reset();
    await createComposeTool(gate).execute({ combinator: 'gather', calls: { a: { tool: 'read_file', args: {} }, b: { tool: 'write_file', args: {} } } }, {});
    expect(refusedUnder('compose')).toEqual([['write_file', 'tree.calls.b', 'step_not_chainable']]);

    exporter.reset();
    const builder = new ComposableToolBuilder(gate, { validateArgs: true });
    reg.add(tool('later', () => 'stand-in'));
    const composite = builder.build('comp', 'comp', { type: 'object' }, { steps: [{ name: 'first', tool: 'read_file', inputMapping: {} }, { name: 'then', tool: 'later', inputMapping: {} }] });
    reg.add(write, 'later');
    await composite.execute({}, {});
    expect(refusedUnder('comp')).toEqual([['later', 'then', 'step_not_chainable']]);
    exporter.reset();
    const greeter = builder.build('greeter', 'greeter', { type: 'object' }, { steps: [{ name: 'say', tool: 'greet', inputMapping: { name: '$input.who' } }] });
    await greeter.execute({}, {});
    expect(refusedUnder('greeter')).toEqual([['greet', 'say', 'args_invalid']]);
  });
});

describe('what a span records of a call', () => {
  /** The span of the one call a pipeline of one step makes to `t`. */
  async function traced(t: ReturnType<typeof tool>): Promise<ReadableSpan> {
    exporter.reset();
    await createRunPipelineTool(registry(t).gate({ tracer })).execute({ steps: [{ tool: t.name }] }, {});
    return spans().find((s) => s.name === `execute_tool ${t.name}`)!;
  }

  it('whether the tool declares side effects: true, false, or undeclared', async () => {
    expect((await traced(tool('reads', () => 'r', { hasSideEffects: false }))).attributes['toolweave.side_effects']).toBe('false');
    expect((await traced(tool('writes', () => 'w', { hasSideEffects: true }))).attributes['toolweave.side_effects']).toBe('true');
    expect((await traced(tool('unsaid', () => 'u', {}))).attributes['toolweave.side_effects']).toBe('undeclared');
  });

  it('a success has no error type and its status unset; a gate refusal has its code as both, and no inner code', async () => {
    const ok = await traced(tool('reads', () => 'r'));
    expect(ok.attributes['error.type']).toBeUndefined();
    expect(ok.status).toEqual({ code: 0 });
    const refused = await traced(tool('writes', () => 'w', { hasSideEffects: true }));
    expect(refused.attributes['error.type']).toBe('step_not_chainable');
    expect(Object.keys(refused.attributes)).not.toContain('toolweave.inner_code');
    expect(refused.status).toEqual({ code: 2, message: 'step_not_chainable' });
  });
});

describe('a name as a span records it', () => {
  /** The step attribute recorded for a pipeline step with the id `id`. */
  async function recorded(id: string): Promise<string> {
    exporter.reset();
    const reg = registry(tool('reads', () => 'r'));
    await createRunPipelineTool(reg.gate({ tracer })).execute({ steps: [{ id, tool: 'reads' }] }, {});
    return String(spans().find((s) => s.name === 'execute_tool reads')!.attributes['toolweave.step']);
  }

  it('keeps a name of exactly 128 characters whole, and cuts one of 129 to 128 and an ellipsis', async () => {
    const at = 'a'.repeat(127) + 'b';
    expect(await recorded(at)).toBe(at);
    expect(await recorded(at + 'c')).toBe(`${at}…`);
  });

  it('escapes every control, separator and bidirectional character as \\u and four hex digits, and keeps the characters beside them', async () => {
    const escaped = ['\\u0001', '\\u001f', '\\u007f', '\\u009f', '\\u2028', '\\u2029', '\\u202a', '\\u202e', '\\u2066', '\\u2069'];
    for (const text of escaped) {
      const char = JSON.parse(`"${text}"`) as string;
      expect(await recorded(`x${char}y`)).toBe(`x${text}y`);
    }
    // Just outside each range: recorded as they are.
    for (const char of [' ', '~', '\u00a0', '\u2027', '\u202f', '\u2065', '\u206a']) {
      expect(await recorded(`x${char}y`)).toBe(`x${char}y`);
    }
  });
});

describe('endSpan on failures without a code or a text', () => {
  // The gate gives every failure both; a span still ends sensibly on a result that has neither.
  it('names a failure without a code step_failed, and never records a missing text as the message', () => {
    const noCode = tracer.startSpan('no code');
    endSpan(noCode, { success: false, error: 'it broke' }, false);
    const noText = tracer.startSpan('no text');
    endSpan(noText, { success: false, details: { code: 'E_QUIET' } } as never, true);
    const [first, second] = exporter.getFinishedSpans();
    expect(first.attributes['error.type']).toBe('step_failed');
    expect(first.status).toEqual({ code: 2, message: 'step_failed' });
    expect(second.attributes['error.type']).toBe('E_QUIET');
    expect(second.status).toEqual({ code: 2, message: 'E_QUIET' });
  });
});
