/**
 * run_js at speed and at scale, each figure beside its baseline measured in the same run:
 *
 * - warm `return 1`, against one direct gated call (target: at most 1 ms);
 * - each extra sequential `callTool`, against the same gated call made directly (target: at most
 *   20 µs over it), with the floor any worker pays printed beside it: a bare message round trip
 *   between two threads;
 * - 50 runs at once against 50 runs one after another (target: at least as fast);
 * - a warm run through a gate that may pause (its script's `Math.random` and clock recorded)
 *   against the same run through one that cannot (not a target: the figure says what recording costs);
 * - the resident memory of a process running 50 runs at once, measured in a child process so the
 *   figure is the sandbox's (target: at most 200 MB), and what the first run costs.
 *
 * The machine is shared: the verdicts are printed, never turned into a failing exit code.
 */
import { execFile } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createScriptTool, createStepGate, type ITool } from '../dist/index.js';
import { compare } from './measure.js';

/** The tool every script calls: it answers at once, so what is measured is the call's way there and back. */
const ping: ITool = { id: 'ping', name: 'ping', displayName: 'ping', description: 'answers pong', inputSchema: { type: 'object' },
  hasSideEffects: false, execute: async () => ({ success: true, output: 'pong' }) };
const gate = createStepGate({ resolve: (name) => (name === 'ping' ? ping : undefined) });
const CALLS = 200;
const RUNS = 50;
const tool = createScriptTool(gate, { maxCalls: CALLS });

async function script(code: string): Promise<void> {
  const result = await tool.execute({ code }, {});
  if (!result.success) throw new Error(`${result.error}`);
}
const sequential = (calls: number) => `for (let i = 0; i < ${calls}; i++) await callTool("ping", { i }); return 1`;

const rows: string[] = [];
const row = (name: string, baseline: string, measured: string, target: string, met: boolean) =>
  rows.push(`| ${name} | ${baseline} | ${measured} | ${target} ${met ? 'ok' : 'NOT MET'} |`);
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

// The first run: a worker's start, the module's compile and the instance, measured in a child.
const child = await childFigures();

// Warm return 1 against one direct gated call.
const warm = await compare('return 1', () => gate.run(ping, {}, {}), () => script('return 1'), { iterations: 50, rounds: 15, warmup: 2 });
row('warm `return 1`', `direct gated call ${us(warm.baselineMs)}`, `${warm.candidateMs.toFixed(3)} ms`, '<= 1 ms', warm.candidateMs <= 1);

// Each extra callTool: a script of CALLS sequential calls against one of none, per call,
// against the same call through the gate directly.
const withCalls = await compare('calls', () => script(sequential(0)), () => script(sequential(CALLS)), { iterations: 5, rounds: 15, warmup: 2 });
const perCall = (withCalls.candidateMs - withCalls.baselineMs) / CALLS;
const direct = await compare(
  'direct',
  async () => undefined,
  async () => {
    for (let i = 0; i < CALLS; i++) await gate.run(ping, { i }, {});
  },
  { iterations: 20, rounds: 9, warmup: 2 },
);
const directPerCall = (direct.candidateMs - direct.baselineMs) / CALLS;
const floor = await threadRoundTrip();
row(
  'each extra `callTool`',
  `direct gated call ${us(directPerCall)}; bare thread round trip ${us(floor)}`,
  `${us(perCall)} (${us(perCall - directPerCall)} over direct)`,
  '<= 20 µs over direct',
  perCall - directPerCall <= 0.02,
);

// 50 runs at once against 50 one after another, each waiting on one call.
const burst = await compare(
  '50 runs',
  async () => {
    for (let i = 0; i < RUNS; i++) await script('return (await callTool("ping", {})).text');
  },
  () => Promise.all(Array.from({ length: RUNS }, () => script('return (await callTool("ping", {})).text'))),
  { iterations: 2, rounds: 7, warmup: 1 },
);
row(
  `${RUNS} runs at once`,
  `${RUNS} one after another: ${burst.baselineMs.toFixed(1)} ms`,
  `${burst.candidateMs.toFixed(1)} ms (${burst.ratio.toFixed(2)}x)`,
  '<= 1.00x',
  burst.ratio <= 1,
);
row(
  `RSS at ${RUNS} runs at once (child process)`,
  `after one warm run: ${child.warmRssMb.toFixed(0)} MB`,
  `peak ${child.peakRssMb.toFixed(0)} MB`,
  '<= 200 MB',
  child.peakRssMb <= 200,
);
// A run that may pause (its gate asks for approvals) records the script's Math.random and clock:
// what that costs a warm run drawing both, against the same run through a gate that cannot pause.
const pausing = createScriptTool(createStepGate({ resolve: (name) => (name === 'ping' ? ping : undefined), approvals: { requestApproval: () => ({ approved: true }) } }), { maxCalls: CALLS });
const drawing = 'const r = Math.random(); const t = Date.now(); await callTool("ping", { r, t }); return 1';
const recorded = await compare(
  'recorded',
  async () => void (await tool.execute({ code: drawing }, {})),
  async () => void (await pausing.execute({ code: drawing }, {})),
  { iterations: 50, rounds: 9, warmup: 2 },
);
row('warm run that may pause (values recorded)', `same script, no approvals: ${recorded.baselineMs.toFixed(3)} ms`, `${recorded.candidateMs.toFixed(3)} ms (${recorded.ratio.toFixed(2)}x)`, 'not a target', true);
row('first run (cold, child process)', `process before: ${child.startRssMb.toFixed(0)} MB`, `${child.coldMs.toFixed(1)} ms, +${(child.warmRssMb - child.startRssMb).toFixed(0)} MB`, 'not a target', true);

// The machine is shared: its load says how far to trust the figures.
console.log(`\nrun_js: speed and scale (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')} on ${availableParallelism()} cores)`);
console.log('| figure | baseline (same run) | run_js | target |');
console.log('|---|---|---|---|');
for (const line of rows) console.log(line);

/** The median round trip of a small message to a worker thread and back, in milliseconds. */
async function threadRoundTrip(): Promise<number> {
  const worker = new Worker(`require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));`, { eval: true });
  const once = () => new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.postMessage({ type: 'calls', calls: [{ index: 1, name: 'ping', args: '{"i":1}' }] });
  });
  const timings: number[] = [];
  for (let round = 0; round < 9; round++) {
    const start = performance.now();
    for (let i = 0; i < 2000; i++) await once();
    timings.push((performance.now() - start) / 2000);
  }
  await worker.terminate();
  return timings.sort((a, b) => a - b)[4];
}

/** Figures from a fresh process: the first run's time and memory, and the peak RSS of 50 runs at once. */
async function childFigures(): Promise<{ startRssMb: number; coldMs: number; warmRssMb: number; peakRssMb: number }> {
  const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const program = `
    import { performance } from 'node:perf_hooks';
    import { createScriptTool, createStepGate } from ${JSON.stringify(entry)};
    const mb = () => process.memoryUsage().rss / 1048576;
    const wait = { id: 'wait', name: 'wait', displayName: 'wait', description: '', inputSchema: {}, hasSideEffects: false,
      execute: () => new Promise((resolve) => setTimeout(() => resolve({ success: true, output: 'ok' }), 20)) };
    const tool = createScriptTool(createStepGate({ resolve: () => wait }));
    const startRssMb = mb();
    const start = performance.now();
    await tool.execute({ code: 'return 1' }, {});
    const coldMs = performance.now() - start;
    const warmRssMb = mb();
    let peakRssMb = warmRssMb;
    const sampler = setInterval(() => { peakRssMb = Math.max(peakRssMb, mb()); }, 5);
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({ length: ${RUNS} }, (_, i) =>
        tool.execute({ code: 'const r = await callTool("wait", {}); const a = []; for (let j = 0; j < 2000; j++) a.push({ j, s: "x" + j }); return r.text + a.length' }, {})));
      if (results.some((r) => !r.success)) throw new Error(JSON.stringify(results.find((r) => !r.success)));
    }
    clearInterval(sampler);
    peakRssMb = Math.max(peakRssMb, mb());
    console.log(JSON.stringify({ startRssMb, coldMs, warmRssMb, peakRssMb }));`;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--input-type=module', '-e', program], { timeout: 120_000 }, (error, out) => (error ? reject(error) : resolve(out))),
  );
  return JSON.parse(stdout) as { startRssMb: number; coldMs: number; warmRssMb: number; peakRssMb: number };
}
