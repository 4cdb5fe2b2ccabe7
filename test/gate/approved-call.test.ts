import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { ToolEvent } from '../../src/tool-events.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { StepGateOptions } from '../../src/gate/options.js';
import type { ITool } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

/** A side-effecting tool that counts how many of its calls run at once, and takes `ms` to answer. */
function slowWrite(ms: number) {
  const stats = { now: 0, most: 0 };
  const write = tool(
    'write_file',
    async (a) => {
      stats.now++;
      stats.most = Math.max(stats.most, stats.now);
      await delay(ms);
      stats.now--;
      return `wrote ${String(a.path)}`;
    },
    { hasSideEffects: true },
  );
  return { write, stats };
}

/** A gate over `tools` whose person approves every call, noting what they were asked (after `onAsk` has run). */
function approvingGate(tools: ITool[], extra: Omit<StepGateOptions, 'resolve'> = {}, onAsk: () => void = () => {}) {
  const asked: ApprovalAction[] = [];
  const reg = registry(...tools);
  const gate = reg.gate({ ...extra, approvals: { requestApproval: (action) => (onAsk(), asked.push(action), { approved: true }) } });
  return { reg, gate, asked };
}

/** An approving gate over a write that takes `ms`, and a compose tool on it. */
function approving(extra: Omit<StepGateOptions, 'resolve'> = {}, ms = 5) {
  const { write, stats } = slowWrite(ms);
  const { gate } = approvingGate([write], extra);
  const compose = createComposeTool(gate, { sideEffectingTools: ['write_file'] });
  return { gate, compose, write, stats };
}

const gatherOf = (paths: string[]) => ({ combinator: 'gather', calls: Object.fromEntries(paths.map((p) => [p, { tool: 'write_file', args: { path: p } }])) });

describe('a call a person approved', () => {
  it('is heard by the listener: its start and its end, with its time', async () => {
    const { gate, write } = approving();
    const events: ToolEvent[] = [];
    const result = await gate.run(write, { path: 'a' }, { onEvent: (e) => events.push(e) });
    expect(result.success).toBe(true);
    expect(events.map((e) => [e.type, e.tool, e.step, e.type === 'call_ended' ? e.ok : null])).toEqual([
      ['call_started', 'write_file', 'write_file', null],
      ['call_ended', 'write_file', 'write_file', true],
    ]);
    expect((events[1] as { ms: number }).ms).toBeGreaterThanOrEqual(4);
  });

  it('is traced: a span of its own, with its tool, ended when the tool answers', async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('approved');
    const { compose } = approving({ tracer });
    const result = await compose.execute(gatherOf(['a']), {});
    expect(result.success).toBe(true);
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool write_file');
    expect(spans.map((s) => [s.name, s.attributes['gen_ai.tool.name'], s.attributes['error.type'] ?? null])).toEqual([['execute_tool write_file', 'write_file', null]]);
  });

  it('holds a place in flight while it runs: with one place, approved calls run one after another, and all run', async () => {
    const { compose, stats, write } = approving({ budget: { inFlight: 1 } }, 10);
    const result = await compose.execute(gatherOf(['a', 'b', 'c']), {});
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ a: 'wrote a', b: 'wrote b', c: 'wrote c' });
    expect(write.calls).toHaveLength(3);
    expect(stats.most).toBe(1);
  });

  it('gives its place back when it ends, so calls after it start', async () => {
    const { compose, write } = approving({ budget: { inFlight: 1 } }, 1);
    for (const path of ['a', 'b', 'c']) {
      const result = await compose.execute(gatherOf([path]), {});
      expect(result.success).toBe(true);
    }
    expect(write.calls.map((a) => a.path)).toEqual(['a', 'b', 'c']);
  });

  it('that waits for a place past its timeout ends with budget_exceeded (inFlight) and never runs', async () => {
    const { gate, write } = approving({ budget: { inFlight: 1 } }, 200);
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['write_file'] });
    const both = builder.build('both', 'both', { type: 'object' }, {
      // `a` holds the only place for 200 ms; its answer is set aside so `b`'s is the composite's.
      steps: [{ combinator: 'gather', calls: { a: { tool: 'write_file', inputMapping: { path: 'a' }, onError: 'continue' }, b: { tool: 'write_file', inputMapping: { path: 'b' }, timeoutMs: 30 } } }],
    });
    const result = await both.execute({}, {});
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'inFlight', call: 'b' });
    expect(write.calls.map((a) => a.path)).toEqual(['a']);
  });

  it('is aborted while it waits for a place: step_aborted, and it never runs', async () => {
    const { compose, write } = approving({ budget: { inFlight: 1 } }, 30);
    const controller = new AbortController();
    const running = compose.execute(gatherOf(['a', 'b']), { signal: controller.signal });
    await delay(15);
    expect(write.calls).toHaveLength(1);
    controller.abort();
    const result = await running;
    expect(result.success).toBe(false);
    expect(JSON.stringify(result)).toContain('step_aborted');
    await delay(40);
    expect(write.calls).toHaveLength(1);
  });

  it('whose run was aborted while the person decided is heard as aborted, and never started', async () => {
    const controller = new AbortController();
    const { write } = slowWrite(1);
    const { gate } = approvingGate([write], {}, () => controller.abort());
    const events: ToolEvent[] = [];
    const result = await gate.run(write, { path: 'a' }, { signal: controller.signal, onEvent: (e) => events.push(e) });
    expect(result.details).toMatchObject({ code: 'step_aborted', tool: 'write_file', step: 'write_file' });
    expect(events.map((e) => [e.type, e.type === 'call_ended' ? e.code : null])).toEqual([['call_ended', 'step_aborted']]);
    expect(write.calls).toEqual([]);
  });
});

describe('a composition called by name under a script', () => {
  it('counts against the run\'s budget like any call', async () => {
    const read = tool('read', () => 'text');
    const reg = registry(read);
    const gate = reg.gate({ budget: { calls: 2 } });
    const builder = new ComposableToolBuilder(gate);
    reg.add(builder.build('read_once', 'read once', { type: 'object' }, { steps: [{ name: 'r', tool: 'read', inputMapping: {} }] }));
    const script = createScriptTool(gate);
    // The script's call of the composition is one, its step a second: a second composition is past the limit.
    const code = "const a = await callTool('read_once', {}); const b = await callTool('read_once', {}); return [a.error ? a.error.code : 'ok', b.error ? b.error.code : 'ok'];";
    const result = await script.execute({ code }, {});
    expect(JSON.parse(String(result.output))).toEqual(['ok', 'budget_exceeded']);
    expect(read.calls).toHaveLength(1);
  });
});

describe('a call asked about when the budget has no room', () => {
  it('is refused before anyone is asked, naming the tool and the limit', async () => {
    const { write } = slowWrite(1);
    const { gate, asked } = approvingGate([write], { budget: { calls: 1 } });
    const script = createScriptTool(gate, { sideEffectingTools: ['write_file'] });
    const code = "await callTool('write_file', { path: 'a' }); const b = await callTool('write_file', { path: 'b' }); return b.error;";
    const result = await script.execute({ code }, {});
    const error = JSON.parse(String(result.output));
    expect(error.code).toBe('budget_exceeded');
    expect(error.message).toMatch(/^Tool "write_file" was not started: the call's budget allows 1 tool calls in all\./);
    expect(asked.map((a) => a.args.path)).toEqual(['a']);
  });

  it('that is interactive, under a script, is refused as such before anyone is asked', async () => {
    const confirm = tool('confirm_send', () => 'sent', { hasSideEffects: true, interactive: true });
    const { reg, gate, asked } = approvingGate([confirm]);
    // A host tool the script calls, which calls confirm_send through the gate with the context it
    // was given: the gate, not the script's own door, finds the script above the call.
    let refusal: unknown;
    reg.add(tool('relay', async (_a, context) => ((refusal = await gate.run(confirm, {}, context, undefined, { step: 'inner' })), 'relayed')));
    const script = createScriptTool(gate);
    const result = await script.execute({ code: "await callTool('relay', {}); return 'done';" }, {});
    expect(result).toMatchObject({ success: true, output: 'done' });
    expect(refusal).toEqual({
      success: false,
      error: 'Tool "confirm_send" needs its own moment with a person or the host, and this call comes from a script; call it directly.',
      details: { code: 'tool_interactive', tool: 'confirm_send', step: 'inner' },
    });
    expect(asked).toEqual([]);
    expect(confirm.calls).toEqual([]);
  });
});

describe('a call with no timeout of its own that waits for a place', () => {
  it('waits as long as it takes, and runs once the place is free', async () => {
    const leaf = tool('leaf', () => 'leaf ran');
    const reg = registry(leaf);
    const gate = reg.gate({ budget: { inFlight: 1 } });
    let child: Promise<unknown> | undefined;
    // The step starts a call through the gate with its own context and no timeout, and holds the only place 80 ms more.
    reg.add(tool('spawn', async (_a, context) => ((child = gate.run(leaf, {}, context)), await delay(80), 'spawned')));
    const composite = new ComposableToolBuilder(gate).build('c', 'c', { type: 'object' }, { steps: [{ name: 's', tool: 'spawn', inputMapping: {} }] });
    expect(await composite.execute({}, {})).toMatchObject({ success: true, output: 'spawned' });
    expect(await child).toMatchObject({ success: true, output: 'leaf ran' });
  });
});
