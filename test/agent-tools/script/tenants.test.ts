/**
 * Many scopes on one pool: a scope whose run must be stopped with its thread, or that computes long
 * stretches, is held back to a thread of its own; the runs of other scopes lost with a stopped
 * thread that changed nothing run again; a new run does not wait behind other scopes' long
 * stretches.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSandboxPool, createScriptTool } from '../../../src/agent-tools/script/index.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../../src/tool.js';
import { delay, mockTool, registry } from './helpers.js';

const run = (tool: ITool, code: string, context: ToolExecutionContext = {}) => tool.execute({ code }, context);

/** A loop QuickJS's own checks cannot stop in time: each turn is one long built-in call. */
const UNSTOPPABLE = "for (;;) 'x'.repeat(4e6).length";

beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

/** `count` honest runs of other scopes, each waiting on a slow read, then answering its number. */
function honest(tool: ITool, count: number, code = (i: number) => `await callTool('slow', {}); return ${i};`): Promise<ToolExecutionResult[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => run(tool, code(i), { sessionId: `honest-${i % 5}` })));
}

const answeredRight = (results: ToolExecutionResult[]) => results.map((r, i) => (r.success && String(r.output) === String(i) ? 'ok' : r.details?.code));

describe('a scope whose run must be stopped with its thread', () => {
  it("takes no other scope's answer with it: the runs beside it that changed nothing run again", async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 100 });
    const slow = mockTool('slow', async () => (await delay(400), 'ok'), { hasSideEffects: false });
    const tool = createScriptTool(registry(slow).gate(), { pool, timeoutMs: 5000 });
    const beside = honest(tool, 12);
    await delay(50);
    const hostile = await run(tool, UNSTOPPABLE, { sessionId: 'hostile' });
    expect(hostile.details?.code).toBe('script_timeout');
    expect(answeredRight(await beside)).toEqual(Array(12).fill('ok'));
  });

  it('is held back: its next runs compute on a thread of their own, so they stop no run that changed something', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 100 });
    const writes: number[] = [];
    const slow = mockTool('slow', async () => (await delay(400), 'ok'), { hasSideEffects: false });
    const write = mockTool('write', (args) => (writes.push(Number(args.n)), 'written'), { hasSideEffects: true });
    const tool = createScriptTool(registry(slow, write).gate(), { pool, timeoutMs: 2000, sideEffectingTools: ['write'] });
    // The first stop: what ran beside it and changed nothing runs again.
    const first = run(tool, UNSTOPPABLE, { sessionId: 'hostile' });
    expect((await first).details?.code).toBe('script_timeout');
    // Runs that wrote cannot run again; the hostile scope's next runs no longer share their thread.
    const beside = honest(tool, 6, (i) => `await callTool('write', { n: ${i} }); await callTool('slow', {}); return ${i};`);
    await delay(50);
    const again = await Promise.all([run(tool, UNSTOPPABLE, { sessionId: 'hostile' }), run(tool, UNSTOPPABLE, { sessionId: 'hostile' })]);
    expect(again.map((r) => r.details?.code)).toEqual(['script_timeout', 'script_timeout']);
    expect(answeredRight(await beside)).toEqual(Array(6).fill('ok'));
    expect(writes.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('gets fewer places while held back: its runs past two wait for one of its own to end', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 100 });
    const slow = mockTool('slow', async () => (await delay(300), 'ok'), { hasSideEffects: false });
    const tool = createScriptTool(registry(slow).gate(), { pool, timeoutMs: 5000 });
    const loop = run(tool, "await callTool('slow', {}); " + UNSTOPPABLE, { sessionId: 'hostile' });
    // A run of another scope waits for the thread while the loop computes: the loop's thread is stopped.
    await delay(350);
    await run(tool, 'return 1', { sessionId: 'other' });
    expect((await loop).details?.code).toBe('script_timeout');
    const three = [1, 2, 3].map(() => run(tool, "await callTool('slow', {}); return 1", { sessionId: 'hostile' }));
    await delay(100);
    expect(pool.stats().runs).toBe(2);
    expect(pool.stats().queued).toBe(1);
    expect((await Promise.all(three)).map((r) => r.output)).toEqual(['1', '1', '1']);
  });
});

describe('runs that name no session or user', () => {
  it('are never held back: with no tenant to tell apart, a stop leaves their places and threads as they were', async () => {
    const pool = createSandboxPool({ threads: 1, sliceMs: 100 });
    const slow = mockTool('slow', async () => (await delay(300), 'ok'), { hasSideEffects: false });
    const tool = createScriptTool(registry(slow).gate(), { pool, timeoutMs: 2000 });
    const loop = run(tool, "await callTool('slow', {}); " + UNSTOPPABLE);
    await delay(350);
    await run(tool, 'return 1');
    expect((await loop).details?.code).toBe('script_timeout');
    const three = [1, 2, 3].map(() => run(tool, "await callTool('slow', {}); return 1"));
    await delay(100);
    expect(pool.stats()).toMatchObject({ runs: 3, queued: 0 });
    expect((await Promise.all(three)).map((r) => r.output)).toEqual(['1', '1', '1']);
  });
});

describe('a scope that computes long stretches', () => {
  it("does not keep other scopes' new runs waiting: they answer while its runs still compute", async () => {
    const pool = createSandboxPool({ threads: 2 });
    const fast = mockTool('fast', () => 'ok', { hasSideEffects: false });
    const tool = createScriptTool(registry(fast).gate(), { pool, timeoutMs: 20_000, maxCalls: 1000 });
    let heavyDone = 0;
    const heavy = `for (let k = 0; k < 8; k++) { const t = Date.now(); while (Date.now() - t < 250) {} await callTool('fast', {}); } return 'done';`;
    const heavies = Array.from({ length: 4 }, () => run(tool, heavy, { sessionId: 'heavy' }).then((r) => (heavyDone++, r)));
    await delay(400);
    const answers: string[] = [];
    for (let round = 0; round < 3; round++) {
      const light = await Promise.all(Array.from({ length: 6 }, (_, i) => run(tool, `return ${i};`, { sessionId: `light-${i}` })));
      answers.push(...light.map((r) => String(r.output)));
    }
    // Every light run answered before any heavy run was done (each computes 2 s in all).
    expect(heavyDone).toBe(0);
    expect(answers).toEqual(Array.from({ length: 3 }, () => ['0', '1', '2', '3', '4', '5']).flat());
    expect((await Promise.all(heavies)).map((r) => r.output)).toEqual(['done', 'done', 'done', 'done']);
  });
});

describe('memory as a budget', () => {
  /** What a run with an 8 MB heap counts: its heap, its reserve for answers (256 KB at least) and 4 MB of working memory. */
  const RUN_BYTES = 8 * 1024 * 1024 + 288 * 1024 + 4 * 1024 * 1024;

  it('admits runs while what they may hold fits the budget, per scope and in all; the rest wait their turn', async () => {
    const pool = createSandboxPool({ threads: 1, maxMemoryBytes: 3 * RUN_BYTES, maxMemoryBytesPerScope: 2 * RUN_BYTES });
    const slow = mockTool('slow', async () => (await delay(300), 'ok'), { hasSideEffects: false });
    const tool = createScriptTool(registry(slow).gate(), { pool, memoryLimitBytes: 8 * 1024 * 1024, timeoutMs: 10_000 });
    const code = "await callTool('slow', {}); return 'done'";
    const a = [1, 2, 3].map(() => run(tool, code, { sessionId: 'a' }));
    await delay(100);
    // Scope a holds its share (two runs); its third waits, though the pool has room for one more.
    expect(pool.stats()).toMatchObject({ runs: 2, queued: 1, memoryBytes: 2 * RUN_BYTES });
    const b = [1, 2].map(() => run(tool, code, { sessionId: 'b' }));
    await delay(50);
    // Scope b takes the last run's worth of the pool; its second waits for memory to come free.
    expect(pool.stats()).toMatchObject({ runs: 3, queued: 2, memoryBytes: 3 * RUN_BYTES });
    expect((await Promise.all([...a, ...b])).map((r) => r.output)).toEqual(Array(5).fill('done'));
    expect(pool.stats()).toMatchObject({ runs: 0, queued: 0, memoryBytes: 0 });
  });

  it('lets runs that name no session or user (one tenant) take the whole budget, not a scope\'s share', async () => {
    const pool = createSandboxPool({ threads: 1, maxMemoryBytes: 3 * RUN_BYTES, maxMemoryBytesPerScope: RUN_BYTES });
    const slow = mockTool('slow', async () => (await delay(300), 'ok'), { hasSideEffects: false });
    const tool = createScriptTool(registry(slow).gate(), { pool, memoryLimitBytes: 8 * 1024 * 1024, timeoutMs: 10_000 });
    const runs = [1, 2, 3, 4].map(() => run(tool, "await callTool('slow', {}); return 'done'"));
    await delay(100);
    expect(pool.stats()).toMatchObject({ runs: 3, queued: 1 });
    expect((await Promise.all(runs)).map((r) => r.output)).toEqual(Array(4).fill('done'));
  });

  it('refuses at once a run that may hold more than the pool ever gives, saying how to fix it', async () => {
    const pool = createSandboxPool({ threads: 1, maxMemoryBytes: 64 * 1024 * 1024 });
    const tool = createScriptTool(registry().gate(), { pool, memoryLimitBytes: 128 * 1024 * 1024 });
    const result = await run(tool, 'return 1');
    expect(result.details).toMatchObject({ code: 'budget_exceeded', limit: 'memory', reason: 'too_large', maxMemoryBytes: 64 * 1024 * 1024 });
    expect(result.error).toMatch(/smaller memoryLimitBytes/);
  });
});

