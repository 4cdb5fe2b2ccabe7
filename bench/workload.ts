/**
 * One chain workload in a process of its own, for bench/instructions.ts to count under callgrind:
 * `WORKLOAD` (hand, inline, engine, engine-versioned) over `STEPS` steps, warmed up by a fixed
 * number of runs and then run `RUNS` times. Two processes that differ only in `RUNS` differ only
 * in those runs, so the difference of their counts is what the runs cost.
 */
import { chainGate, composite, handWritten, viaComposite, viaInline } from './chain.js';

const workload = process.env.WORKLOAD ?? 'engine';
const steps = Number(process.env.STEPS ?? 20);
const runs = Number(process.env.RUNS ?? 1000);
const WARM_UP = 2000;

function pick(): () => Promise<unknown> {
  switch (workload) {
    case 'hand':
      return handWritten(steps);
    case 'inline':
      return viaInline(steps);
    case 'engine':
      return viaComposite(composite(steps, chainGate(false)));
    case 'engine-versioned':
      return viaComposite(composite(steps, chainGate(true)));
    default:
      throw new Error(`unknown WORKLOAD ${workload}`);
  }
}

const run = pick();
for (let i = 0; i < WARM_UP; i++) await run();
for (let i = 0; i < runs; i++) await run();
// The watchdog's interval may still be armed for a tick: the count is taken, so end now.
process.exit(0);
