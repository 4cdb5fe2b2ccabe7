/**
 * Runs that wait for a person, each figure beside its baseline measured in the same run:
 *
 * - 1,000 runs paused at once in one process hold memory only: the bytes each adds (heap and
 *   external after a full collection, less the same before), with the default in-memory journal,
 *   for a composite, run_pipeline, compose and run_js (whose sandbox pool must hold no run while
 *   they wait: its threads serve other runs; the workers' own heaps are not in the figure, and
 *   hold nothing of a paused run); and what is pending on the event loop (timers,
 *   handles, requests) before they started and once they all paused, which must be the same. The
 *   1,000 are then resumed, to show they were live runs, and the memory is measured again.
 * - Replay: resuming a run paused after 100 calls (the 100 answered from the journal, then the
 *   person's refusal of the paused call, which ends the run) against the first run that made the
 *   100 calls and paused (target: at most 10%). With tools of a small real cost (a 1 ms timer, a
 *   small file read) and, to show the floor honestly, with tools that cost nothing, where both
 *   sides are the gate's own per-call work.
 *
 * The machine is shared: the verdicts are printed, never turned into a failing exit code.
 */
import { stat } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  ComposableToolBuilder,
  createComposeTool,
  createRunPipelineTool,
  createSandboxPool,
  createScriptTool,
  createStepGate,
  resumeRun,
  type ITool,
  type StepGate,
  type ToolExecutionResult,
} from '../dist/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:pause)');

const rows: string[] = [];
const row = (figure: string, baseline: string, measured: string, target: string, met: boolean | undefined) =>
  rows.push(`| ${figure} | ${baseline} | ${measured} | ${target}${met === undefined ? '' : met ? ' ok' : ' NOT MET'} |`);

function tool(name: string, execute: ITool['execute'], hasSideEffects = false): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects, execute };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ctx = { sessionId: 'bench' };
const SIDE_EFFECTING = ['send'];

/** A gate over `tools` whose approvals wait for a person on every side-effecting call. */
function pausingGate(tools: ITool[]): StepGate {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return createStepGate({ resolve: (name) => byName.get(name), approvals: { requestApproval: () => ({ pending: true }) } });
}

/** Heap and external memory after a full collection (twice: weak references and finalizers settle). */
async function settledMemory(): Promise<number> {
  await sleep(20);
  gc!();
  gc!();
  // `external` already includes `arrayBuffers`.
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/** What is pending on the event loop, by kind (timers, handles, requests). */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}
const showResources = (counts: Map<string, number>) =>
  [...counts].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
const sameResources = (a: Map<string, number>, b: Map<string, number>) => a.size === b.size && [...a].every(([kind, n]) => b.get(kind) === n);

// ---------------------------------------------------------------------------------------------
// 1. 1,000 runs paused at once.

/** A small realistic output: a note of about 100 bytes. */
const read = tool('read', async (args) => ({ success: true, output: { id: args.id, text: `note ${String(args.id)}: ${'lorem ipsum '.repeat(8)}` } }));
const send = tool('send', async (args) => ({ success: true, output: { sent: args.text } }), true);
const after = tool('after', async (args) => ({ success: true, output: { done: args.sent } }));

/** Each door as a factory of one run's input; each run reads three notes, then waits at `send`. */
const DOORS: { name: string; make: (gate: StepGate) => { door: ITool; input: (i: number) => Record<string, unknown> } }[] = [
  {
    name: 'composite (3 reads, then the paused send)',
    make: (gate) => {
      const builder = new ComposableToolBuilder(gate);
      builder.bind({ sideEffectingTools: SIDE_EFFECTING });
      const door = builder.build('notify', 'read notes and send one', { type: 'object' }, {
        steps: [
          { name: 'a', tool: 'read', inputMapping: { id: '$input.id' } },
          { name: 'b', tool: 'read', inputMapping: { id: '$input.id' } },
          { name: 'c', tool: 'read', inputMapping: { id: '$input.id' } },
          { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
          { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
        ],
      } as never) as ITool;
      return { door, input: (i) => ({ id: i }) };
    },
  },
  {
    name: 'run_pipeline (3 reads, then the paused send)',
    make: (gate) => ({
      door: createRunPipelineTool(gate, { sideEffectingTools: SIDE_EFFECTING }),
      input: (i) => ({
        steps: [
          { id: 'a', tool: 'read', args: { id: i } },
          { id: 'b', tool: 'read', args: { id: i } },
          { id: 'c', tool: 'read', args: { id: i } },
          { id: 's', tool: 'send', args: { text: '${c.output.text}' } },
          { id: 'd', tool: 'after', args: { sent: '${s.output.sent}' } },
        ],
      }),
    }),
  },
  {
    name: 'compose (gather of 3 reads, then the paused send)',
    make: (gate) => ({
      door: createComposeTool(gate, { sideEffectingTools: SIDE_EFFECTING }),
      input: (i) => ({
        combinator: 'pipe',
        stages: [
          { combinator: 'gather', calls: { a: { tool: 'read', args: { id: i } }, b: { tool: 'read', args: { id: i } }, c: { tool: 'read', args: { id: i } } } },
          { tool: 'send', args: { text: `note ${i}` } },
          { tool: 'after', args: { sent: 'x' } },
        ],
      }),
    }),
  },
];

// run_js: every run holds a sandbox while it runs; paused, it must hold none (the pool's runs: 0).
// Its pool admits 200 runs at a time, so the 1,000 start in waves and pause one by one.
const scriptPool = createSandboxPool({ maxRuns: 200, maxRunsPerScope: 200, maxQueuedRuns: 1000 });
DOORS.push({
  name: 'run_js (3 reads, then the paused send; sandbox pool of 200)',
  make: (gate) => ({
    door: createScriptTool(gate, { pool: scriptPool, sideEffectingTools: SIDE_EFFECTING }),
    input: (i) => ({
      code: `const a = await callTool("read", { id: ${i} }); await callTool("read", { id: ${i} }); await callTool("read", { id: ${i} });
const s = await callTool("send", { text: JSON.parse(a.text).text }); return (await callTool("after", { sent: JSON.parse(s.text).sent })).text;`,
    }),
  }),
});

const PAUSED = 1000;
for (const { name, make } of DOORS) {
  // Warm the code paths on a gate of their own, so the measured gate's journal starts empty.
  {
    const warm = make(pausingGate([read, send, after]));
    for (let i = 0; i < 200; i++) {
      const paused = await warm.door.execute(warm.input(i), ctx);
      await resumeRun(warm.door, String(paused.details?.resume), [{ approved: true }], ctx);
    }
  }
  const { door, input } = make(pausingGate([read, send, after]));
  const inputs = Array.from({ length: PAUSED }, (_, i) => input(i));
  const before = await settledMemory();
  const resourcesBefore = activeResources();
  const results = await Promise.all(inputs.map((args) => door.execute(args, ctx)));
  // The host keeps each token; nothing else of the runs is held outside the journal.
  const tokens = results.map((r) => (r.details?.code === 'approval_pending' ? String(r.details.resume) : ''));
  results.length = 0;
  const paused = await settledMemory();
  const resourcesPaused = activeResources();
  const sandboxes = name.startsWith('run_js') ? `; sandbox pool while paused: ${JSON.stringify(scriptPool.stats())}` : '';
  const perRun = (paused - before) / PAUSED;
  const allPaused = tokens.every((t) => t !== '');
  // Resumed, every one of them ends as a run that never paused would.
  const resumed = await Promise.all(tokens.map((token) => resumeRun(door, token, [{ approved: true }], ctx)));
  const allDone = resumed.every((r) => r.success);
  resumed.length = 0;
  const end = await settledMemory();
  row(
    `1,000 runs paused at once: ${name}`,
    `process before: ${(before / 1048576).toFixed(1)} MB; event loop: ${showResources(resourcesBefore)}`,
    `${allPaused ? 'all 1,000 paused' : 'NOT all paused'}, +${(perRun / 1024).toFixed(1)} KB each (heap + external); event loop while paused: ${showResources(resourcesPaused)}${sandboxes}; all resumed and done: ${allDone}, memory after: ${((end - before) / 1024).toFixed(0)} KB over before`,
    'memory only: event loop unchanged',
    allPaused && allDone && sameResources(resourcesBefore, resourcesPaused) && (sandboxes === '' || scriptPool.stats().runs === 0),
  );
}

// ---------------------------------------------------------------------------------------------
// 2. Replay: resuming a run paused after 100 calls, against the first run.

const CALLS = 100;
const smallFile = fileURLToPath(import.meta.url);
// `floor`: the tools cost nothing, so both sides are the gate's own work per call; no target holds there.
const COSTS: { name: string; run: () => Promise<unknown>; runs: number; rounds: number; floor?: true }[] = [
  { name: 'tools awaiting a 1 ms timer', run: () => sleep(1), runs: 3, rounds: 7 },
  { name: 'tools doing a small file read (fs.stat)', run: () => stat(smallFile), runs: 8, rounds: 7 },
  { name: 'tools that cost nothing (the floor: the gate per call)', run: () => Promise.resolve(), runs: 60, rounds: 9, floor: true },
];

/** A composite of `CALLS` reads, each through `cost`, then a send that waits for a person. */
function hundredCalls(cost: () => Promise<unknown>, approvals: boolean): ITool {
  const work = tool('read', async (args) => {
    await cost();
    return { success: true, output: { id: args.i, text: `note ${String(args.i)}` } };
  });
  const tools = [work, send];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const gate = approvals ? pausingGate(tools) : createStepGate({ resolve: (name) => byName.get(name) });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: SIDE_EFFECTING });
  const steps = [
    ...Array.from({ length: CALLS }, (_, i) => ({ name: `r${i}`, tool: 'read', inputMapping: { i } })),
    { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
  ];
  return builder.build('hundred', 'a hundred reads, then a send', { type: 'object' }, { steps } as never) as ITool;
}

// The same 1,000 paused runs, each after 100 calls: what each recorded call adds.
{
  const door = hundredCalls(() => Promise.resolve(), true);
  for (let i = 0; i < 50; i++) await resumeRun(door, String((await door.execute({}, ctx)).details?.resume), [{ approved: false }], ctx);
  const before = await settledMemory();
  const resourcesBefore = activeResources();
  const tokens: string[] = [];
  for (let i = 0; i < PAUSED; i++) tokens.push(String((await door.execute({}, ctx)).details?.resume));
  const paused = await settledMemory();
  const resourcesPaused = activeResources();
  const perRun = (paused - before) / PAUSED;
  const resumed = await Promise.all(tokens.map((token) => resumeRun(door, token, [{ approved: false }], ctx)));
  const allRefused = resumed.every((r) => r.details?.code === 'approval_rejected');
  row(
    '1,000 runs paused at once, each after 100 calls (composite)',
    `process before: ${(before / 1048576).toFixed(1)} MB; event loop: ${showResources(resourcesBefore)}`,
    `+${(perRun / 1024).toFixed(1)} KB each, ${(perRun / CALLS).toFixed(0)} bytes per recorded call; event loop while paused: ${showResources(resourcesPaused)}; all resumed: ${allRefused}`,
    'memory only: event loop unchanged',
    allRefused && sameResources(resourcesBefore, resourcesPaused),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const cost of COSTS) {
  const door = hundredCalls(cost.run, true);
  // The same 100 calls through a gate that does not ask for approvals: it records nothing.
  const plain = hundredCalls(cost.run, false);
  const firstMs: number[] = [];
  const resumeMs: number[] = [];
  const plainMs: number[] = [];
  let ok = true;
  for (let round = -1; round < cost.rounds; round++) {
    let start = performance.now();
    const tokens: string[] = [];
    for (let i = 0; i < cost.runs; i++) {
      const result = await door.execute({}, ctx);
      ok &&= result.details?.code === 'approval_pending';
      tokens.push(String(result.details?.resume));
    }
    const first = (performance.now() - start) / cost.runs;
    start = performance.now();
    for (const token of tokens) {
      const result: ToolExecutionResult = await resumeRun(door, token, [{ approved: false, reason: 'not now' }], ctx);
      ok &&= result.details?.code === 'approval_rejected';
    }
    const resume = (performance.now() - start) / cost.runs;
    start = performance.now();
    for (let i = 0; i < cost.runs; i++) await plain.execute({}, ctx);
    const plainRun = (performance.now() - start) / cost.runs;
    // Round -1 warms up.
    if (round >= 0) {
      firstMs.push(first);
      resumeMs.push(resume);
      plainMs.push(plainRun);
    }
  }
  const [first, resume, plainRun] = [median(firstMs), median(resumeMs), median(plainMs)];
  const ratio = resume / first;
  row(
    `resume a run paused after 100 calls: ${cost.name}`,
    `first run (100 calls, then the pause): ${first.toFixed(2)} ms; the 100 calls without approvals: ${plainRun.toFixed(2)} ms`,
    `${resume.toFixed(3)} ms = ${(ratio * 100).toFixed(1)}% of the first run (${((resume / plainRun) * 100).toFixed(1)}% of the calls without approvals); ${((resume / CALLS) * 1000).toFixed(1)} us per replayed call`,
    cost.floor ? 'none (the floor); <= 10% with tools of a real cost' : '<= 10%',
    cost.floor ? (ok ? undefined : false) : ok && ratio <= 0.1,
  );
}

console.log(`\nRuns that wait for a person (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')} on ${availableParallelism()} cores)`);
console.log('| figure | baseline (same run) | measured | target |');
console.log('|---|---|---|---|');
for (const line of rows) console.log(line);
process.exit(0);
