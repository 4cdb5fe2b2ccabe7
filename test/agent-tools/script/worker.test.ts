import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createScriptTool } from '../../../src/agent-tools/script/index.js';
import { availableParallelism } from 'node:os';
import { createSandboxPool, DEFAULT_MAX_QUEUED_RUNS, DEFAULT_MAX_RUNS, DEFAULT_SLICE_MS, MAX_THREADS } from '../../../src/agent-tools/script/index.js';
import { delay, json, latch, mockTool, registry } from './helpers.js';

const run = (tool: ReturnType<typeof createScriptTool>, code: string, context = {}) =>
  tool.execute({ code }, context);

/** Scripts that hold QuickJS inside one built-in call far longer than its interrupt checks allow. */
const SPINNERS = [
  ['"x".repeat(1e6) in a loop', 'while (true) "x".repeat(1e6);'],
  [
    'large JSON.stringify calls in a loop',
    'const o = Array.from({ length: 2000 }, (_, i) => ({ i, s: "abc".repeat(20) }));\nwhile (true) JSON.stringify(o);',
  ],
] as const;

/**
 * Ticks on the host's event loop every 10 ms while `work` runs, and reports the longest gap
 * between two ticks: a blocked event loop shows as one long gap.
 */
async function probeEventLoop<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; longestGapMs: number }> {
  let ticks = 0;
  let last = Date.now();
  let longestGapMs = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = (): void => {
    const now = Date.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    ticks++;
    timer = setTimeout(tick, 10);
  };
  timer = setTimeout(tick, 10);
  try {
    const value = await work();
    longestGapMs = Math.max(longestGapMs, Date.now() - last);
    return { value, ticks, longestGapMs };
  } finally {
    clearTimeout(timer);
  }
}

// Start a worker and compile QuickJS once, so the timing tests measure runs, not start-up.
beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('run_js on a worker thread', () => {
  it.each(SPINNERS)('ends %s within the limit plus a small margin, and the host event loop keeps ticking', async (_name, code) => {
    const tool = createScriptTool(registry().gate(), { timeoutMs: 300 });
    const start = Date.now();
    const { value: result, ticks, longestGapMs } = await probeEventLoop(() => run(tool, code));
    const elapsed = Date.now() - start;
    expect(result.details).toMatchObject({ code: 'script_timeout', timeoutMs: 300 });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    // On the main thread these ran for many seconds in one piece; now the host is never held.
    expect(ticks).toBeGreaterThanOrEqual(5);
    expect(longestGapMs).toBeLessThan(250);
  });

  it('ends a spinning script promptly when the signal fires', async () => {
    const controller = new AbortController();
    const tool = createScriptTool(registry().gate(), { timeoutMs: 10_000 });
    setTimeout(() => controller.abort(), 200);
    const start = Date.now();
    const result = await run(tool, SPINNERS[0][1], { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(Date.now() - start).toBeLessThan(700);
  });

  it('runs the next script after a run whose worker had to be stopped', async () => {
    const echo = mockTool('echo', (args) => args);
    const tool = createScriptTool(registry(echo).gate(), { timeoutMs: 200 });
    expect((await run(tool, SPINNERS[0][1])).details?.code).toBe('script_timeout');
    const after = await run(tool, 'return (await callTool("echo", { n: 1 })).text');
    expect(after).toMatchObject({ success: true, output: '{"n":1}' });
  });

  // A thread computing a run that must stop is stopped, with every run on it, unless the run stops
  // itself within a moment: a new run waits for another thread rather than go down with it.
  it.each([
    ['aborted by the host', 10_000, true],
    ['past its time limit', 200, false],
  ] as const)('puts no new run on a thread whose run is %s but still computes', async (_name, timeoutMs, abort) => {
    const echo = mockTool('echo', (args) => args);
    const pool = createSandboxPool({ threads: 1 });
    const spinning = createScriptTool(registry().gate(), { timeoutMs, pool });
    const quick = createScriptTool(registry(echo).gate(), { pool });
    expect(await run(quick, 'return 1')).toMatchObject({ success: true });
    const controller = new AbortController();
    const spinner = run(spinning, SPINNERS[0][1], { signal: controller.signal });
    // Past the time limit (200 ms), before the watchdog's grace (100 ms more) is over.
    await delay(250);
    if (abort) controller.abort();
    const after = await run(quick, 'return (await callTool("echo", { n: 1 })).text');
    expect(after).toMatchObject({ success: true, output: '{"n":1}' });
    expect((await spinner).details?.code).toBe(abort ? 'step_aborted' : 'script_timeout');
  });

  it('puts a new run beside a spinning one, not behind it: a spinning run does not hold up another', async () => {
    const echo = mockTool('echo', async (args) => {
      await delay(100);
      return args;
    });
    const pool = createSandboxPool({ threads: 2 });
    const spinning = createScriptTool(registry().gate(), { timeoutMs: 1000, pool });
    const quick = createScriptTool(registry(echo).gate(), { pool });
    // Two runs that overlap start both threads, so neither run below waits for a thread to start.
    await Promise.all([run(quick, 'return (await callTool("echo", {})).text'), run(quick, 'return (await callTool("echo", {})).text')]);
    await vi.waitFor(() => expect(pool.stats().threads).toBe(2), { timeout: 10_000 });
    let spinnerEnded = false;
    const slow = run(spinning, SPINNERS[0][1]).finally(() => {
      spinnerEnded = true;
    });
    await delay(50);
    const start = Date.now();
    const answer = await run(quick, 'return (await callTool("echo", { ok: true })).text');
    expect(answer).toMatchObject({ success: true, output: '{"ok":true}' });
    expect(Date.now() - start).toBeLessThan(900);
    expect(spinnerEnded).toBe(false);
    expect((await slow).details?.code).toBe('script_timeout');
  });

  it('keeps the concurrency of calls: under Promise.all, all three calls are in flight at once', async () => {
    // Overlap is shown by order, not by time: no call ends before every call has started.
    const events: string[] = [];
    const sleepy = mockTool('sleepy', async (args) => {
      events.push(`start ${String(args.n)}`);
      await delay(50);
      events.push(`end ${String(args.n)}`);
      return args.n;
    });
    const tool = createScriptTool(registry(sleepy).gate());
    const result = await run(tool, 'return (await Promise.all([1, 2, 3].map((n) => callTool("sleepy", { n })))).map((r) => r.text)');
    expect(json(result.output)).toEqual(['1', '2', '3']);
    expect(events.slice(0, 3).sort()).toEqual(['start 1', 'start 2', 'start 3']);
  });

  it('stretches the limit inside the worker too when a slow tool is called', async () => {
    const build = mockTool('build', async () => {
      await delay(400);
      return 'built';
    });
    const tool = createScriptTool(registry(build).gate(), { timeoutMs: 150, slowTimeoutMs: 2000, slowTools: ['build'] });
    const result = await run(tool, 'const r = await callTool("build", {}); let i = 0; while (i < 1e5) i++; return r.text;');
    expect(result).toMatchObject({ success: true, output: 'built' });
  });
});

describe('the sandbox pool', () => {
  it('hosts many waiting runs on a few threads: 50 runs wait on their calls at once on 2 threads', async () => {
    const pool = createSandboxPool({ threads: 2 });
    let inFlight = 0;
    let most = 0;
    const gateOpen = latch<void>();
    const work = mockTool('work', async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      if (inFlight === 50) gateOpen.open(undefined);
      await gateOpen.opened;
      inFlight--;
      return 'done';
    });
    const tool = createScriptTool(registry(work).gate(), { pool });
    const results = await Promise.all(Array.from({ length: 50 }, () => run(tool, 'return (await callTool("work", {})).text')));
    expect(results.map((r) => r.output)).toEqual(Array(50).fill('done'));
    // Every run waited on its call at the same time: none held a thread while it waited.
    expect(most).toBe(50);
    // The second thread may still be starting on a loaded machine: the runs never needed it.
    const stats = pool.stats();
    expect(stats.threads).toBeLessThanOrEqual(2);
    expect({ runs: stats.runs, queued: stats.queued }).toEqual({ runs: 0, queued: 0 });
  });

  it('never has more runs alive than its bound: the others wait their turn', async () => {
    const pool = createSandboxPool({ maxRuns: 2, maxRunsPerScope: 2 });
    let running = 0;
    let most = 0;
    const work = mockTool('work', async () => {
      running++;
      most = Math.max(most, running, pool.stats().runs);
      await delay(60);
      running--;
      return 'done';
    });
    const tool = createScriptTool(registry(work).gate(), { pool });
    const results = await Promise.all(Array.from({ length: 6 }, () => run(tool, 'return (await callTool("work", {})).text')));
    expect(results.map((r) => r.output)).toEqual(Array(6).fill('done'));
    expect(most).toBe(2);
    expect(pool.stats()).toMatchObject({ runs: 0, queued: 0 });
  });

  it('refuses a run past its queue with budget_exceeded, and never starts it', async () => {
    const pool = createSandboxPool({ maxRuns: 1, maxQueuedRuns: 1 });
    const work = mockTool('work', async () => {
      await delay(100);
      return 'done';
    });
    const tool = createScriptTool(registry(work).gate(), { pool });
    const results = await Promise.all([1, 2, 3].map((n) => run(tool, `return (await callTool("work", { n: ${n} })).text`)));
    expect(results.filter((r) => r.success)).toHaveLength(2);
    const refused = results.find((r) => !r.success);
    expect(refused?.details).toMatchObject({ code: 'budget_exceeded', limit: 'sandboxes', reason: 'queue_full', maxRuns: 1, maxQueuedRuns: 1 });
    expect(refused?.error).toMatch(/was not started/);
    expect(work.calls).toHaveLength(2);
  });

  it('refuses a run that waited its whole time limit for a place', async () => {
    const pool = createSandboxPool({ maxRuns: 1 });
    const work = mockTool('work', async () => {
      await delay(400);
      return 'done';
    });
    const holder = createScriptTool(registry(work).gate(), { pool });
    const waiter = createScriptTool(registry(work).gate(), { pool, timeoutMs: 150 });
    await run(holder, 'return 1'); // a thread is started: the wait below is for a place, not a start
    const held = run(holder, 'return (await callTool("work", {})).text');
    await delay(20);
    const start = Date.now();
    const late = await run(waiter, 'return (await callTool("work", {})).text');
    expect(late.details).toMatchObject({ code: 'budget_exceeded', limit: 'sandboxes', reason: 'wait_timeout' });
    expect(Date.now() - start).toBeLessThan(400);
    expect((await held).output).toBe('done');
    expect(work.calls).toHaveLength(1);
  });

  it('gives each scope its share: one session filling its places does not hold up another', async () => {
    const pool = createSandboxPool({ maxRuns: 4, maxRunsPerScope: 2 });
    const release = latch();
    const hold = mockTool('hold', () => release.opened);
    const quick = mockTool('quick', () => 'quick');
    const tool = createScriptTool(registry(hold, quick).gate(), { pool });
    const busy = { sessionId: 'busy' };
    // The busy session asks for 5 runs: 2 run, 3 wait for its own places to come free.
    const held = Array.from({ length: 5 }, () => run(tool, 'return (await callTool("hold", {})).text', busy));
    while (hold.calls.length < 2) await delay(5);
    await delay(20);
    expect(hold.calls).toHaveLength(2);
    expect(pool.stats()).toMatchObject({ runs: 2, queued: 3 });
    // Another session is served at once, though the busy one has runs waiting before it.
    const other = await run(tool, 'return (await callTool("quick", {})).text', { sessionId: 'other' });
    expect(other).toMatchObject({ success: true, output: 'quick' });
    release.open('released');
    expect((await Promise.all(held)).map((r) => r.output)).toEqual(Array(5).fill('released'));
  });

  it('refuses a pool it did not make', async () => {
    const fake = { threads: 1, maxRuns: 1, maxQueuedRuns: 1, maxRunsPerScope: 1, sliceMs: 500, maxMemoryBytes: 1, maxMemoryBytesPerScope: 1, stats: () => ({ threads: 0, runs: 0, queued: 0, memoryBytes: 0 }) };
    const result = await run(createScriptTool(registry().gate(), { pool: fake }), 'return 1');
    expect(result.details).toMatchObject({ code: 'script_error' });
    expect(result.error).toMatch(/createSandboxPool/);
  });

  it('sizes itself to the machine by default, and holds any size to its hard cap', () => {
    expect(createSandboxPool().threads).toBe(Math.min(8, Math.max(2, availableParallelism())));
    expect(createSandboxPool({ threads: 10_000 }).threads).toBe(MAX_THREADS);
    expect(createSandboxPool({ threads: 0 }).threads).toBe(1);
    const defaults = createSandboxPool({});
    expect(defaults).toMatchObject({ maxRuns: DEFAULT_MAX_RUNS, maxQueuedRuns: DEFAULT_MAX_QUEUED_RUNS, maxRunsPerScope: DEFAULT_MAX_RUNS / 2, sliceMs: DEFAULT_SLICE_MS });
    expect(createSandboxPool({ maxRuns: 10, maxRunsPerScope: 50 }).maxRunsPerScope).toBe(10);
  });

  it("keeps the sandbox's noise off the host's streams", async () => {
    // Scripts that made QuickJS fail an assertion, which it printed as "Aborted(...)" on stderr.
    const source = fileURLToPath(new URL('../../../src/agent-tools/script/index.ts', import.meta.url));
    const program = `
      import { createScriptTool } from ${JSON.stringify(source)};
      const ping = { id: 'ping', name: 'ping', displayName: 'ping', description: '', inputSchema: {}, hasSideEffects: false,
        execute: async () => ({ success: true, output: 'pong' }) };
      const gate = { resolve: () => ping, run: (tool, args, context) => tool.execute(args, context) };
      const tool = createScriptTool(gate);
      const codes = [
        'for (let i = 0; i < 100000; i++) callTool("ping", { i }); return "fired"',
        'await callTool("ping", {}); const a = []; for (let i = 0; i < 30; i++) a.push("x".repeat(1e6) + i); return a.length',
      ];
      for (const code of codes) console.log(JSON.stringify((await tool.execute({ code }, {})).output));`;
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { timeout: 30_000 }, (error, out, err) =>
        error ? reject(error) : resolve({ stdout: out, stderr: err }),
      );
    });
    // Each answer's first line (the first also says how many calls past the limit were not made).
    expect(stdout.trim().split('\n').map((line) => String(JSON.parse(line)).split('\n')[0])).toEqual(['fired', '30']);
    expect(stderr).toBe('');
  }, 40_000);

  it('does not keep the process alive once a run has ended', async () => {
    // A child process runs one script from the sources and must then exit on its own.
    const source = fileURLToPath(new URL('../../../src/agent-tools/script/index.ts', import.meta.url));
    const program = `
      import { createScriptTool } from ${JSON.stringify(source)};
      const tool = createScriptTool({ resolve: () => undefined, run: async () => ({ success: false }) });
      const result = await tool.execute({ code: 'return 6 * 7' }, {});
      console.log(result.output);`;
    const start = Date.now();
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { timeout: 10_000 }, (error, out) =>
        error ? reject(error) : resolve(out),
      );
    });
    expect(stdout.trim()).toBe('42');
    expect(Date.now() - start).toBeLessThan(10_000);
  });
});
