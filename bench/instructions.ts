/**
 * The engine's overhead in instructions, which unlike wall time does not move with the machine's
 * load: the 20-step chain of bench/chain.ts (hand-written, the same rules written inline, the
 * engine without and with a registry version), each counted by valgrind's callgrind in a process
 * of its own (bench/workload.ts). Each case runs twice, with `LOW` and `HIGH` runs after the same
 * warm-up; the difference, divided by `HIGH - LOW`, is the instructions of one run, without the
 * process's start-up. What would make two identical processes differ is pinned: Node runs
 * `--single-threaded` (background compilation and GC threads moved the counts by a third), with
 * fixed hash and random seeds, and without address-space randomisation where `setarch` can turn
 * it off (each moved them by up to 10%); identical processes then agree within about 1%.
 *
 * Skipped, with a line saying so, where valgrind is not installed. `STEPS` (default 20) sets the
 * chain's length. `BY_FUNCTION=1` also prints, for each case, the functions that spent the most
 * instructions per run (their own, not their callees'), named by their place in the sources.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { selfCostByFunction } from './callgrind.js';

const STEPS = Number(process.env.STEPS ?? 20);
const LOW = 2000;
const HIGH = 6000;
const BY_FUNCTION = process.env.BY_FUNCTION === '1';
/** How many functions a case lists under `BY_FUNCTION`. */
const TOP = 15;
const CASES = [
  ['hand-written loop', 'hand'],
  ['the same rules written inline', 'inline'],
  ['toolweave', 'engine'],
  ['toolweave, registry version', 'engine-versioned'],
] as const;

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
const NODE_FLAGS = ['--single-threaded', '--hash-seed=1', '--random-seed=1'];
/**
 * What naming compiled code needs: a perf map of every code object, and code that never moves
 * (callgrind's addresses must stay those the map gave).
 */
const PROFILE_FLAGS = ['--perf-basic-prof', '--no-compact-code-space'];
/** `setarch -R` runs a command without address-space randomisation, where it can. */
const noAslr = spawnSync('setarch', ['-R', 'true']).status === 0;

/** What one process counted: its instructions, and under `BY_FUNCTION` each function's own. */
interface Count {
  total: number;
  byFunction: Map<string, number>;
}

/** The instructions callgrind counted in one process of `workload` with `runs` runs. */
function count(workload: string, runs: number): Promise<Count> {
  const out = join(outDir, `callgrind.${workload}.${runs}.out`);
  const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, ...(BY_FUNCTION ? ['--dump-instr=yes'] : [])];
  const command = [...valgrind, 'node', ...NODE_FLAGS, ...(BY_FUNCTION ? PROFILE_FLAGS : []), script];
  if (noAslr) command.unshift('setarch', '-R');
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, WORKLOAD: workload, STEPS: String(STEPS), RUNS: String(runs) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const text = code === 0 ? readFileSync(out, 'utf8') : '';
      const totals = /^totals:\s+(\d+)/m.exec(text);
      let byFunction = new Map<string, number>();
      if (totals && BY_FUNCTION) {
        const perfMap = `/tmp/perf-${/^pid:\s+(\d+)/m.exec(text)?.[1]}.map`;
        byFunction = selfCostByFunction(out, perfMap);
        rmSync(perfMap, { force: true });
      }
      rmSync(out, { force: true });
      if (totals) resolve({ total: Number(totals[1]), byFunction });
      else reject(new Error(`callgrind of ${workload} (${runs} runs) failed with code ${code}: ${stderr}`));
    });
  });
}

const perRun = new Map<string, number>();
const perRunByFunction = new Map<string, [string, number][]>();
for (const [, workload] of CASES) {
  // The two processes of a case run side by side: they share nothing but the machine.
  const [low, high] = await Promise.all([count(workload, LOW), count(workload, HIGH)]);
  perRun.set(workload, (high.total - low.total) / (HIGH - LOW));
  const functions = [...high.byFunction].map(([name, n]): [string, number] => [name, (n - (low.byFunction.get(name) ?? 0)) / (HIGH - LOW)]);
  perRunByFunction.set(workload, functions.sort((a, b) => b[1] - a[1]).slice(0, TOP));
}
rmSync(outDir, { recursive: true, force: true });

const hand = perRun.get('hand')!;
console.log(`\nInstructions per run of the ${STEPS}-step chain (callgrind; target: toolweave <= 1.5x the hand-written loop)`);
console.log('| case | instructions per run | ratio to the hand-written loop | per step over it |');
console.log('|---|---|---|---|');
for (const [label, workload] of CASES) {
  const n = perRun.get(workload)!;
  console.log(`| ${label} | ${Math.round(n)} | ${(n / hand).toFixed(2)}x | ${Math.round((n - hand) / STEPS)} |`);
}

if (BY_FUNCTION) {
  for (const [label, workload] of CASES) {
    console.log(`\nWhere a run of ${label} spends its instructions (each function's own, per run; top ${TOP})`);
    console.log('| instructions | function |');
    console.log('|---|---|');
    for (const [name, n] of perRunByFunction.get(workload)!) console.log(`| ${Math.round(n)} | ${name.replaceAll('|', '\\|')} |`);
  }
}
