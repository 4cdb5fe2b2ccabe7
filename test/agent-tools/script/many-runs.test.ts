/**
 * Many runs on one sandbox thread: a run waiting on its calls holds no thread, a run that
 * computes too long while others wait is the one stopped, a run is not charged the time it waited
 * for the thread, and a thread that must be stopped tells every run on it what happened.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createComposeTool } from '../../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../../src/agent-tools/run-pipeline.js';
import { createSandboxPool, createScriptTool } from '../../../src/agent-tools/script/index.js';
import type { ITool, ToolExecutionContext } from '../../../src/tool.js';
import { delay, latch, mockTool, registry } from './helpers.js';

const run = (tool: ITool, code: string, context: ToolExecutionContext = {}) => tool.execute({ code }, context);

beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('runs sharing one thread', () => {
  it('stops a run computing past its slice while another waits for the thread, and the other answers', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 150 });
    const echo = mockTool('echo', async (args) => {
      await delay(30);
      return args;
    });
    const tool = createScriptTool(registry(echo).gate(), { pool, timeoutMs: 10_000 });
    await run(tool, 'return 1');
    const loop = run(tool, 'await callTool("echo", {}); for (;;) {}');
    await delay(100);
    const honest = await run(tool, 'const r = await callTool("echo", { n: 1 }); return r.text');
    expect(honest).toMatchObject({ success: true, output: '{"n":1}' });
    const stopped = await loop;
    expect(stopped.details).toMatchObject({ code: 'script_timeout', sliceMs: 150 });
    expect(stopped.details?.computedMs).toBeGreaterThanOrEqual(150);
    expect(stopped.error).toMatch(/without awaiting while other scripts waited/);
  });

  it('lets a run alone on its thread compute past the slice, up to its own limit', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 50 });
    const tool = createScriptTool(registry().gate(), { pool, timeoutMs: 5000 });
    const result = await run(tool, 'const end = Date.now() + 300; let n = 0; while (Date.now() < end) n++; return n > 0');
    expect(result).toMatchObject({ success: true, output: 'true' });
  });

  it('does not charge a run the time it waited for the thread while another computed', async () => {
    // One thread, a slice longer than the work: the long computation is allowed to finish, and
    // the short run behind it waits about 700 ms for the thread, past its own 400 ms limit.
    const pool = createSandboxPool({ threads: 1, sliceMs: 5000 });
    const quick = mockTool('quick', () => 'ready');
    const long = createScriptTool(registry().gate(), { pool, timeoutMs: 5000 });
    const short = createScriptTool(registry(quick).gate(), { pool, timeoutMs: 400 });
    await run(short, 'return 1');
    const waiting = run(short, 'const r = await callTool("quick", {}); const end = Date.now() + 50; while (Date.now() < end); return r.text');
    await delay(5);
    const busy = run(long, 'const end = Date.now() + 700; while (Date.now() < end); return "computed"');
    expect(await busy).toMatchObject({ success: true, output: 'computed' });
    expect(await waiting).toMatchObject({ success: true, output: 'ready' });
  });

  it('lets other runs go between the turns of a script that awaits in a loop', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 10_000 });
    const echo = mockTool('echo', (args) => args);
    const tool = createScriptTool(registry(echo).gate(), { pool, timeoutMs: 3000 });
    await run(tool, 'return 1'); // the thread is started: what follows measures turns, not a start
    const spinner = run(tool, 'for (;;) await null;');
    await delay(100);
    const start = Date.now();
    const other = await run(tool, 'return (await callTool("echo", { ok: 1 })).text');
    expect(other).toMatchObject({ success: true, output: '{"ok":1}' });
    expect(Date.now() - start).toBeLessThan(1500);
    expect((await spinner).details?.code).toBe('script_timeout');
  });

  it('ends the other runs of a thread it had to stop with script_sandbox_lost, listing the calls each made', async () => {
    const pool = createSandboxPool({ threads: 1 });
    const write = mockTool('write', async () => {
      await delay(20);
      return 'written';
    }, { hasSideEffects: true });
    const slow = mockTool('slow', () => delay(3000).then(() => 'late'));
    const tool = createScriptTool(registry(write, slow).gate(), { pool, sideEffectingTools: ['write'], timeoutMs: 10_000 });
    const stuckTool = createScriptTool(registry().gate(), { pool, timeoutMs: 300 });
    const neighbour = run(tool, 'await callTool("write", { n: 1 }); await callTool("slow", {}); return "done"');
    while (slow.calls.length === 0) await delay(5);
    // One built-in call at a time, each far longer than QuickJS's interrupt checks reach: only
    // stopping the thread ends it.
    const stuck = await run(stuckTool, 'while (true) "x".repeat(1e6);');
    expect(stuck.details?.code).toBe('script_timeout');
    const lost = await neighbour;
    expect(lost.details).toMatchObject({ code: 'script_sandbox_lost', abandoned: [{ step: 'call 2', tool: 'slow' }] });
    expect(lost.effects).toEqual([expect.objectContaining({ step: 'call 1', tool: 'write', outcome: 'ran' })]);
    // The pool goes on with a new thread.
    expect(await run(tool, 'return (await callTool("write", { n: 2 })).text')).toMatchObject({ success: true, output: 'written' });
  });

  it('ends an aborted run at once, and its neighbours carry on', async () => {
    const pool = createSandboxPool({ threads: 1 });
    const gateOpen = latch();
    const hold = mockTool('hold', () => gateOpen.opened);
    const tool = createScriptTool(registry(hold).gate(), { pool });
    const controller = new AbortController();
    const aborted = run(tool, 'await callTool("hold", {}); return "never"', { signal: controller.signal });
    const neighbour = run(tool, 'return (await callTool("hold", {})).text');
    while (hold.calls.length < 2) await delay(5);
    const start = Date.now();
    controller.abort();
    expect((await aborted).details?.code).toBe('step_aborted');
    expect(Date.now() - start).toBeLessThan(200);
    gateOpen.open('held');
    expect(await neighbour).toMatchObject({ success: true, output: 'held' });
    expect(pool.stats()).toMatchObject({ threads: 1, runs: 0 });
  });
});

describe('nested scripts', () => {
  it('run_js > compose > run_js > compose > run_js finishes in about the time of its calls, on a pool of one thread', async () => {
    const pool = createSandboxPool({ threads: 1 });
    const sleepy = mockTool('sleepy', async () => {
      await delay(50);
      return 'slept';
    });
    const reg = registry(sleepy);
    const gate = reg.gate();
    reg.add(createComposeTool(gate));
    reg.add(createRunPipelineTool(gate));
    reg.add(createScriptTool(gate, { pool }));
    const inner = 'return (await callTool("sleepy", {})).text';
    const middle = `const r = await callTool("compose", { tool: "run_js", args: { code: ${JSON.stringify(inner)} } }); return r.text`;
    const outer = `const r = await callTool("compose", { tool: "run_js", args: { code: ${JSON.stringify(middle)} } }); return r.text`;
    const start = Date.now();
    const result = await run(reg.map.get('run_js')!, outer);
    expect(result).toMatchObject({ success: true, output: 'slept' });
    expect(Date.now() - start).toBeLessThan(5000);
    expect(sleepy.calls).toHaveLength(1);
  });

  it('through run_pipeline too, three runs deep at once, each waiting on the next', async () => {
    const pool = createSandboxPool({ threads: 1, maxRuns: 3, maxRunsPerScope: 3 });
    const reg = registry(mockTool('ping', () => 'pong'));
    const gate = reg.gate();
    reg.add(createRunPipelineTool(gate));
    reg.add(createScriptTool(gate, { pool }));
    const inner = 'return (await callTool("ping", {})).text';
    const middle = `const r = await callTool("run_pipeline", { steps: [{ tool: "run_js", args: { code: ${JSON.stringify(inner)} } }] }); return r.text`;
    const outer = `const r = await callTool("run_pipeline", { steps: [{ tool: "run_js", args: { code: ${JSON.stringify(middle)} } }] }); return r.text`;
    const result = await run(reg.map.get('run_js')!, outer);
    expect(result.success).toBe(true);
    expect(String(result.output)).toContain('pong');
  });
});

describe('fair shares', () => {
  it('serves waiting scopes in turn when places come free', async () => {
    const pool = createSandboxPool({ maxRuns: 2, maxRunsPerScope: 2, maxQueuedRuns: 20 });
    const order: string[] = [];
    const step = mockTool('step', async (args) => {
      order.push(String(args.who));
      await delay(20);
      return 'ok';
    });
    const tool = createScriptTool(registry(step).gate(), { pool });
    const a = Array.from({ length: 6 }, () => run(tool, 'return (await callTool("step", { who: "a" })).text', { sessionId: 'a' }));
    await delay(10);
    const b = Array.from({ length: 2 }, () => run(tool, 'return (await callTool("step", { who: "b" })).text', { sessionId: 'b' }));
    const results = await Promise.all([...a, ...b]);
    expect(results.every((r) => r.success)).toBe(true);
    // b's two runs came after a's six were queued, yet both ran before a's last ones.
    expect(order.lastIndexOf('b')).toBeLessThan(order.lastIndexOf('a'));
    expect(order.indexOf('b')).toBeLessThan(5);
    expect(order).toHaveLength(8);
  });
});
