/**
 * Timing for the benchmarks: warm up, then alternate the candidate and its baseline in rounds so
 * both see the same machine load, and compare medians.
 */
import { performance } from 'node:perf_hooks';

/** One measured pair: the median time per iteration of each, and their ratio. */
export interface Comparison {
  name: string;
  baselineMs: number;
  candidateMs: number;
  ratio: number;
}

/** Time `candidate` against `baseline`, each run `iterations` times per round. */
export async function compare(
  name: string,
  baseline: () => Promise<unknown>,
  candidate: () => Promise<unknown>,
  { iterations = 200, rounds = 15, warmup = 3 } = {},
): Promise<Comparison> {
  const time = async (fn: () => Promise<unknown>) => {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await fn();
    return (performance.now() - start) / iterations;
  };
  for (let i = 0; i < warmup; i++) {
    await time(baseline);
    await time(candidate);
  }
  const base: number[] = [];
  const cand: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate the order each round so neither always runs on a warmer machine.
    if (r % 2) {
      base.push(await time(baseline));
      cand.push(await time(candidate));
    } else {
      cand.push(await time(candidate));
      base.push(await time(baseline));
    }
  }
  const baselineMs = median(base);
  const candidateMs = median(cand);
  return { name, baselineMs, candidateMs, ratio: candidateMs / baselineMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Print comparisons as a table, with the target beside each ratio. Timing on a shared machine is
 * noisy, so the verdict is printed, never turned into a failing exit code; returns whether all met it.
 */
export function printComparisons(title: string, rows: Comparison[], target: number): boolean {
  console.log(`\n${title}`);
  console.log('| case | baseline (ms/iter) | toolweave (ms/iter) | ratio | target |');
  console.log('|---|---|---|---|---|');
  let ok = true;
  for (const row of rows) {
    const pass = row.ratio <= target;
    ok &&= pass;
    console.log(`| ${row.name} | ${row.baselineMs.toFixed(4)} | ${row.candidateMs.toFixed(4)} | ${row.ratio.toFixed(2)}x | <= ${target}x ${pass ? 'ok' : 'OVER'} |`);
  }
  return ok;
}
