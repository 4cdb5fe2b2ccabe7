/**
 * The engine's overhead in instructions, which unlike wall time does not move with the machine's
 * load: the 20-step chain of bench/chain.ts (hand-written, the same rules written inline, the
 * engine without and with a registry version, and with argument checks, the builder's default)
 * and the for_each and gather of bench/combinator-cases.ts (hand-written, the same rules written
 * inline, the engine, and with the default options), and the same three workloads with realistic
 * tools (bench/realistic-tools.ts: a payments schema per tool, against hand-written code running
 * the same ajv checks, and without them for reference), each counted by valgrind's callgrind in a process of its own
 * (bench/workload.ts). Each case runs
 * twice, with a low and a high number of runs after the same warm-up; the difference, divided by
 * the difference in runs, is the instructions of one run, without the process's start-up.
 *
 * What would make two identical processes differ is pinned: Node runs `--predictable` (no
 * background threads: compilation and GC threads moved the counts by a third) and
 * `--predictable-gc-schedule` (a fixed heap-growing schedule: without it V8 sizes its heap from
 * how fast the process runs, and two identical processes of the 20-step chain differed by up to 3%
 * of their whole count, which made one run's figure move between 13k and 67k instructions), with
 * fixed hash and random seeds, and without address-space randomisation where `setarch` can turn
 * it off (each moved them by up to 10%). Identical processes then agree within 0.05%. Each
 * process also collects all its garbage after its runs (`--expose-gc`), so the extra runs pay for
 * collecting what they made, however far a collection had gone when they ended.
 *
 * Skipped, with a line saying so, where valgrind is not installed. `STEPS` (default 20) sets the
 * chain's length. `BY_FUNCTION=1` also prints, for each case, the functions that spent the most
 * instructions per run (their own, not their callees'), named by their place in the sources.
 * `CASES` (a comma-separated list of workloads, such as `inline,engine-versioned`) counts only
 * those; each group's first case counted is its baseline.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { selfCostByFunction } from './callgrind.js';
import { CONCURRENCY } from './combinator-cases.js';

const STEPS = Number(process.env.STEPS ?? 20);
/** The for_each's items here: fewer than bench/combinators.ts's 10,000, so callgrind takes minutes, not hours; the cost is per item. */
const ITEMS = 500;
const BY_FUNCTION = process.env.BY_FUNCTION === '1';
/** The workloads to count (`CASES`), or all of them. */
const ONLY = process.env.CASES ? new Set(process.env.CASES.split(',')) : undefined;
/** How many functions a case lists under `BY_FUNCTION`. */
const TOP = Number(process.env.TOP ?? 15);

/** A workload measured against its hand-written baseline (the first case). */
interface Group {
  title: string;
  /** What one run is made of, and how many: the per-unit column divides by it. */
  unit: string;
  units: number;
  /**
   * Runs before counting, then the two counts' runs. The warm-up is long enough that V8 compiles
   * nothing more between the two counts (checked with `--trace-opt`): code a run uses once, such
   * as its set-up, is optimised only after thousands of runs, and a compilation in the window
   * would be counted as the runs' cost.
   */
  warmUp: number;
  low: number;
  high: number;
  /** Each case's label and its `WORKLOAD`; the first is the baseline. */
  cases: readonly (readonly [string, string])[];
  /** The ratio toolweave is held to, against the baseline. */
  target: number;
  /** A second case every row is also compared with, for reference (its `WORKLOAD`). */
  reference?: string;
}

const GROUPS: Group[] = [
  {
    title: `the ${STEPS}-step chain`,
    unit: 'step',
    units: STEPS,
    warmUp: 6000,
    low: 2000,
    high: 6000,
    cases: [
      ['hand-written loop', 'hand'],
      ['hand-written + the same ajv checks', 'hand-ajv'],
      ['the same rules written inline', 'inline'],
      ['toolweave', 'engine'],
      ['toolweave, registry version', 'engine-versioned'],
      ['toolweave, argument checks (the default)', 'engine-args'],
      ['toolweave, following labels (flows)', 'engine-flows'],
    ],
    target: 2.7,
    // The row with argument checks compares with the hand-written loop that runs the same checks.
    reference: 'hand-ajv',
  },
  {
    title: `for_each over ${ITEMS} items at concurrency ${CONCURRENCY}`,
    unit: 'item',
    units: ITEMS,
    warmUp: 2500,
    low: 100,
    high: 300,
    cases: [
      ['hand-written workers', 'foreach-hand'],
      ['the same rules written inline', 'foreach-inline'],
      ['toolweave', 'foreach-engine'],
      ['toolweave, registry version', 'foreach-versioned'],
      ['toolweave, argument checks (the default)', 'foreach-args'],
    ],
    target: 1.5,
  },
  {
    title: 'gather of 100 calls',
    unit: 'call',
    units: 100,
    warmUp: 2000,
    low: 200,
    high: 600,
    cases: [
      ['Promise.all', 'gather-hand'],
      ['the same rules written inline', 'gather-inline'],
      ['toolweave', 'gather-engine'],
      ['toolweave, registry version', 'gather-versioned'],
      ['toolweave, argument checks (the default)', 'gather-args'],
    ],
    target: 2.0,
  },
  // The same workloads with realistic tools (bench/realistic-tools.ts): a payments schema per tool,
  // checked at every call. The baseline runs the same compiled ajv validators by hand; the bare
  // hand-written code is the reference. ajv compiles every schema before the warm-up.
  {
    title: `the ${STEPS}-step chain of payments tools (realistic schemas)`,
    unit: 'step',
    units: STEPS,
    warmUp: 6000,
    low: 2000,
    high: 6000,
    cases: [
      ['hand-written + the same ajv checks', 'real-hand-ajv'],
      ['hand-written, unchecked', 'real-hand'],
      ['toolweave, default options', 'real-engine'],
    ],
    target: 2.7,
    reference: 'real-hand',
  },
  {
    title: `for_each over ${ITEMS} payments at concurrency ${CONCURRENCY} (realistic schemas)`,
    unit: 'item',
    units: ITEMS,
    warmUp: 2500,
    low: 100,
    high: 300,
    cases: [
      ['hand-written workers + the same ajv checks', 'real-foreach-hand-ajv'],
      ['hand-written workers, unchecked', 'real-foreach-hand'],
      ['toolweave, default options', 'real-foreach-engine'],
    ],
    target: 1.5,
    reference: 'real-foreach-hand',
  },
  {
    title: 'gather of 100 payments (realistic schemas)',
    unit: 'call',
    units: 100,
    warmUp: 2000,
    low: 200,
    high: 600,
    cases: [
      ['Promise.all + the same ajv checks', 'real-gather-hand-ajv'],
      ['Promise.all, unchecked', 'real-gather-hand'],
      ['toolweave, default options', 'real-gather-engine'],
    ],
    target: 2.0,
    reference: 'real-gather-hand',
  },
];

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('\nInstructions per run: skipped (valgrind is not installed; on Debian: apt-get install valgrind)');
  process.exit(0);
}

// The bench's TypeScript is bundled to plain JavaScript first: under callgrind, compiling it at
// start-up would cost minutes. The package itself is not bundled but imported from dist, as a user
// imports it: a bundler rewrites a module's top-level `const` as `var`, which V8 compiles differently.
const outDir = join(import.meta.dirname, '.build');
mkdirSync(outDir, { recursive: true });
const script = join(outDir, 'workload.mjs');
const packageEntry = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href;
const packageFromDist: Plugin = {
  name: 'package-from-dist',
  setup: (bundle) => bundle.onResolve({ filter: /\/dist\/index\.js$/ }, () => ({ path: packageEntry, external: true })),
};
await build({
  entryPoints: [join(import.meta.dirname, 'workload.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  plugins: [packageFromDist],
  outfile: script,
  logLevel: 'warning',
  sourcemap: BY_FUNCTION,
});

/** Node's flags that make a count repeatable (see above). */
const NODE_FLAGS = ['--predictable', '--predictable-gc-schedule', '--hash-seed=1', '--random-seed=1', '--expose-gc'];
/**
 * What naming compiled code needs: a perf map of every code object, and code that never moves
 * (callgrind's addresses must stay those the map gave).
 */
const PROFILE_FLAGS = ['--perf-basic-prof', '--no-compact-code-space'];
/**
 * More flags for Node from `NODE_EXTRA` (space-separated), for looking closer: `--no-turbo-inlining`
 * keeps each function's cost its own under `BY_FUNCTION`, at the price of counts that differ from
 * the real ones.
 */
const EXTRA_FLAGS = (process.env.NODE_EXTRA ?? '').split(' ').filter((flag) => flag !== '');
/** `setarch -R` runs a command without address-space randomisation, where it can. */
const noAslr = spawnSync('setarch', ['-R', 'true']).status === 0;

/** What one process counted: its instructions, and under `BY_FUNCTION` each function's own. */
interface Count {
  total: number;
  byFunction: Map<string, number>;
}

/** The instructions callgrind counted in one process of `workload` with `runs` runs after `warmUp`. */
function count(workload: string, runs: number, warmUp: number): Promise<Count> {
  const out = join(outDir, `callgrind.${workload}.${runs}.out`);
  const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, ...(BY_FUNCTION ? ['--dump-instr=yes'] : [])];
  const command = [...valgrind, 'node', ...NODE_FLAGS, ...EXTRA_FLAGS, ...(BY_FUNCTION ? PROFILE_FLAGS : []), script];
  if (noAslr) command.unshift('setarch', '-R');
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, WORKLOAD: workload, STEPS: String(STEPS), ITEMS: String(ITEMS), RUNS: String(runs), WARM_UP: String(warmUp) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const text = code === 0 ? readFileSync(out, 'utf8') : '';
        const totals = /^totals:\s+(\d+)/m.exec(text);
        if (!totals) throw new Error(`callgrind of ${workload} (${runs} runs) failed with code ${code}: ${stderr}`);
        let byFunction = new Map<string, number>();
        if (BY_FUNCTION) {
          const perfMap = `/tmp/perf-${/^pid:\s+(\d+)/m.exec(text)?.[1]}.map`;
          byFunction = selfCostByFunction(out, perfMap);
          rmSync(perfMap, { force: true });
        }
        resolve({ total: Number(totals[1]), byFunction });
      } catch (error) {
        // A missing output or perf map ends the bench with the reason, not an uncaught throw in a callback.
        reject(error);
      } finally {
        rmSync(out, { force: true });
      }
    });
  });
}

/** One case's instructions per run, and under `BY_FUNCTION` its top functions per run. */
async function perRun(group: Group, workload: string): Promise<{ total: number; top: [string, number][] }> {
  // The two processes of a case run side by side: they share nothing but the machine.
  const [low, high] = await Promise.all([count(workload, group.low, group.warmUp), count(workload, group.high, group.warmUp)]);
  const runs = group.high - group.low;
  const functions = [...high.byFunction].map(([name, n]): [string, number] => [name, (n - (low.byFunction.get(name) ?? 0)) / runs]);
  return { total: (high.total - low.total) / runs, top: functions.sort((a, b) => b[1] - a[1]).slice(0, TOP) };
}

for (const group of GROUPS) {
  const measured = [];
  for (const [label, workload] of group.cases) if (!ONLY || ONLY.has(workload)) measured.push({ label, workload, ...(await perRun(group, workload)) });
  if (measured.length === 0) continue;
  const base = measured[0];
  const reference = measured.find((m) => m.workload === group.reference && m !== base);
  console.log(`\nInstructions per run of ${group.title} (callgrind; target: toolweave <= ${group.target}x ${base.label})`);
  console.log(`| case | instructions per run | ratio to ${base.label} |${reference ? ` ratio to ${reference.label} |` : ''} per ${group.unit} over ${base.label} |`);
  console.log(`|---|---|---|${reference ? '---|' : ''}---|`);
  for (const { label, total } of measured) {
    const toReference = reference ? ` ${(total / reference.total).toFixed(2)}x |` : '';
    console.log(`| ${label} | ${Math.round(total)} | ${(total / base.total).toFixed(2)}x |${toReference} ${Math.round((total - base.total) / group.units)} |`);
  }
  if (!BY_FUNCTION) continue;
  for (const { label, top } of measured) {
    console.log(`\nWhere a run of ${group.title}, ${label}, spends its instructions (each function's own, per run; top ${TOP})`);
    console.log('| instructions | function |');
    console.log('|---|---|');
    for (const [name, n] of top) console.log(`| ${Math.round(n)} | ${name.replaceAll('|', '\\|')} |`);
  }
}
rmSync(outDir, { recursive: true, force: true });
