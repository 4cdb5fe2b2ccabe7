/**
 * run_js as a multi-tenant service: hostile and honest sessions side by side on one pool, with
 * default options, each figure printed with the machine's core count.
 *
 * - Beside each hostile shape (a script that allocates without end, one inside long built-in calls
 *   sent again and again, one computing without awaiting), honest runs of ten other sessions keep
 *   coming, each waiting on a slow tool: how many answer right, sustained for `--seconds` (60).
 * - Beside four runs of one session computing 400 ms at a stretch between fast calls, `return n`
 *   runs of six other sessions: their latency (target: 99th percentile within 250 ms).
 * - Forty, then fifteen, runs of one session each holding 28 MB: the pool's memory budget, the
 *   resident memory at the peak, and after the runs end (target: within 20% of idle within 5 s).
 *
 * The machine is shared: the verdicts are printed, never turned into a failing exit code.
 *
 * Run it: npm run build && node --import tsx bench/script-tenants.ts [--seconds 60]
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSandboxPool, createScriptTool, createStepGate, type ITool, type ToolExecutionResult } from '../dist/index.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' } } });
const seconds = Math.max(1, Number(values.seconds));
const cores = availableParallelism();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rows: string[] = [];
const row = (figure: string, measured: string, target: string, met: boolean) => rows.push(`| ${figure} | ${measured} | ${target} ${met ? 'ok' : 'NOT MET'} |`);

function tool(name: string, waitMs: number): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects: false, execute: async () => (await sleep(waitMs), { success: true, output: 'ok' }) };
}
const slow = tool('slow', 300);
const fast = tool('fast', 0);
const byName = new Map([slow, fast].map((t) => [t.name, t]));
/** A run_js tool over the bench's tools, on a pool of its own with default options. */
function scriptTool(): { runJs: ITool; pool: ReturnType<typeof createSandboxPool> } {
  const gate = createStepGate({ resolve: (name) => byName.get(name), budget: { calls: 1e9, inFlight: 1e5, sandboxes: 1e5 } });
  const pool = createSandboxPool();
  return { runJs: createScriptTool(gate, { pool, maxCalls: 100_000 }), pool };
}
const right = (result: ToolExecutionResult, i: number) => result.success && String(result.output) === String(i);

const HOSTILE: [string, string][] = [
  ['allocates without end', "const a = []; for (;;) a.push('x'.repeat(1e5) + a.length);"],
  ['long built-in calls, again and again', "for (;;) 'x'.repeat(4e6).length"],
  ['computes without awaiting', 'for (;;) {}'],
];

// 1. Honest runs beside each hostile shape, sustained.
for (const [name, code] of HOSTILE) {
  const { runJs } = scriptTool();
  const end = Date.now() + seconds * 1000;
  let hostileRuns = 0;
  // The hostile session sends its script again as soon as the last one ended, two at a time.
  const hostile = Promise.all(
    [0, 1].map(async () => {
      while (Date.now() < end) {
        await runJs.execute({ code }, { sessionId: 'hostile' });
        hostileRuns++;
      }
    }),
  );
  let honest = 0;
  let answered = 0;
  const failures = new Map<string, number>();
  const sessions = Array.from({ length: 10 }, async (_, s) => {
    for (let i = 0; Date.now() < end; i++) {
      const runs = await Promise.all(
        Array.from({ length: 6 }, (_, k) => runJs.execute({ code: `await callTool('slow', {}); return ${i * 6 + k};` }, { sessionId: `honest-${s}` })),
      );
      runs.forEach((result, k) => {
        honest++;
        if (right(result, i * 6 + k)) answered++;
        else failures.set(String(result.details?.code), (failures.get(String(result.details?.code)) ?? 0) + 1);
      });
    }
  });
  await Promise.all([hostile, ...sessions]);
  const why = [...failures].map(([code, n]) => `${n} ${code}`).join(', ');
  row(`honest runs of 10 sessions beside one that ${name}, ${seconds} s`, `${answered}/${honest} right (${((100 * answered) / honest).toFixed(2)}%)${why ? `; ${why}` : ''}; ${hostileRuns} hostile runs`, '100%', answered === honest);
}

// 2. Latency of short runs beside another session's long stretches.
{
  const { runJs } = scriptTool();
  const measureSeconds = Math.min(seconds, 20);
  // Within the runs' own 30 s limit: they compute through the whole measurement.
  const stretches = `for (let k = 0; k < ${Math.ceil((measureSeconds * 1000) / 400)}; k++) { const t = Date.now(); while (Date.now() - t < 400) {} await callTool('fast', {}); } return 'done';`;
  const heavy = Array.from({ length: 4 }, () => runJs.execute({ code: stretches }, { sessionId: 'heavy' }));
  await sleep(300);
  const latencies: number[] = [];
  let wrong = 0;
  const end = Date.now() + measureSeconds * 1000;
  while (Date.now() < end) {
    const batch = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const start = performance.now();
        const result = await runJs.execute({ code: `return ${i};` }, { sessionId: `light-${i}` });
        if (!right(result, i)) wrong++;
        return performance.now() - start;
      }),
    );
    latencies.push(...batch);
    await sleep(50);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const heavyDone = (await Promise.all(heavy)).filter((r) => r.output === 'done').length;
  row(
    '`return n` of 6 sessions beside 4 runs of one session computing 400 ms at a stretch',
    `p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms (${latencies.length} runs, ${wrong} wrong); heavy runs done ${heavyDone}/4`,
    'p99 <= 250 ms',
    at(0.99) <= 250 && wrong === 0,
  );
}

// 3. Memory: runs of one session each holding 28 MB (forty: past the 1 GB under which instances are kept warm; fifteen: under it).
for (const count of [40, 15]) {
  const { runJs, pool } = scriptTool();
  await runJs.execute({ code: 'return 1' }, {});
  await sleep(1000);
  const mb = () => process.memoryUsage.rss() / 1048576;
  const idle = mb();
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, mb())), 25);
  const holding = "const a = []; for (let i = 0; i < 56; i++) a.push('x'.repeat(512 * 1024) + i); await callTool('slow', {}); return a.length;";
  const results = await Promise.all(Array.from({ length: count }, () => runJs.execute({ code: holding }, { sessionId: 'holder' })));
  const ok = results.filter((r) => r.output === '56').length;
  const after: string[] = [];
  let back = Number.POSITIVE_INFINITY;
  for (let s = 1; s <= 5; s++) {
    await sleep(1000);
    const now = mb();
    after.push(now.toFixed(0));
    if (back === Number.POSITIVE_INFINITY && now <= idle * 1.2) back = s;
  }
  clearInterval(sampler);
  const budget = pool.maxMemoryBytes / 1048576;
  row(
    `${count} runs of one session holding 28 MB each`,
    `${ok}/${count} answered; budget ${budget.toFixed(0)} MB (one session ${(pool.maxMemoryBytesPerScope / 1048576).toFixed(0)} MB); resident idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, then each second ${after.join(', ')} MB`,
    'peak within the budget; back within 20% of idle in 5 s',
    peak <= budget + idle && back <= 5,
  );
}

console.log(`\nrun_js tenants (${cores} cores, default pool options)\n`);
console.log('| figure | measured | target |');
console.log('|---|---|---|');
for (const line of rows) console.log(line);
process.exit(0);
