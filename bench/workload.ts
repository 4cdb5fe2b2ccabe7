/**
 * One workload in a process of its own, for bench/instructions.ts to count under callgrind:
 * `WORKLOAD` is a chain over `STEPS` steps (hand, hand-ajv with the same argument checks, inline, engine, engine-versioned, and engine-args
 * with argument checks, engine-flows following labels), a for_each over `ITEMS` items (foreach-hand, foreach-inline,
 * foreach-engine, foreach-versioned, foreach-args with the default options) or a gather of 100
 * calls (gather-hand, gather-inline, gather-engine, gather-versioned, gather-args); each also with realistic tools (bench/realistic-tools.ts), whose
 * calls are checked against a payments schema: the hand-written code with the same checks
 * (real-hand-ajv, real-foreach-hand-ajv, real-gather-hand-ajv), without them (real-hand,
 * real-foreach-hand, real-gather-hand) and the engine with default options (real-engine,
 * real-foreach-engine, real-gather-engine); warmed up by `WARM_UP` runs and then run `RUNS` times. Two
 * processes that differ only in `RUNS` differ only in those runs, so the difference of their counts
 * is what the runs cost.
 */
import { chainGate, composite, handWritten, viaComposite, viaInline } from './chain.js';
import { forEachCase, gatherCase } from './combinator-cases.js';
import { realisticChain, realisticForEach, realisticGather } from './realistic-tools.js';

const workload = process.env.WORKLOAD ?? 'engine';
const steps = Number(process.env.STEPS ?? 20);
const items = Number(process.env.ITEMS ?? 1000);
const runs = Number(process.env.RUNS ?? 1000);
const warmUp = Number(process.env.WARM_UP ?? 2000);

function pick(): () => Promise<unknown> {
  switch (workload) {
    case 'hand':
      return handWritten(steps);
    case 'hand-ajv':
      return handWritten(steps, true);
    case 'inline':
      return viaInline(steps);
    case 'engine':
      return viaComposite(composite(steps, chainGate(false)));
    case 'engine-versioned':
      return viaComposite(composite(steps, chainGate(true)));
    case 'engine-args':
      return viaComposite(composite(steps, chainGate(false), true));
    case 'engine-flows':
      return viaComposite(composite(steps, chainGate(false, { flows: {} })));
    case 'foreach-hand':
      return forEachCase(items).hand;
    case 'foreach-engine':
      return forEachCase(items).engine;
    case 'foreach-versioned':
      return forEachCase(items).versioned;
    case 'foreach-args':
      return forEachCase(items).defaults;
    case 'foreach-inline':
      return forEachCase(items).inline;
    case 'gather-hand':
      return gatherCase().hand;
    case 'gather-engine':
      return gatherCase().engine;
    case 'gather-versioned':
      return gatherCase().versioned;
    case 'gather-args':
      return gatherCase().defaults;
    case 'gather-inline':
      return gatherCase().inline;
    case 'real-hand-ajv':
      return realisticChain(steps).checked;
    case 'real-hand':
      return realisticChain(steps).bare;
    case 'real-engine':
      return realisticChain(steps).engine;
    case 'real-foreach-hand-ajv':
      return realisticForEach(items).checked;
    case 'real-foreach-hand':
      return realisticForEach(items).bare;
    case 'real-foreach-engine':
      return realisticForEach(items).engine;
    case 'real-gather-hand-ajv':
      return realisticGather().checked;
    case 'real-gather-hand':
      return realisticGather().bare;
    case 'real-gather-engine':
      return realisticGather().engine;
    default:
      throw new Error(`unknown WORKLOAD ${workload}`);
  }
}

const run = pick();
for (let i = 0; i < warmUp; i++) await run();
for (let i = 0; i < runs; i++) await run();
// A full collection after the runs (Node runs with --expose-gc): both processes of a case end
// with all their garbage collected, so the difference of their counts holds the collection of
// exactly the garbage the extra runs made, wherever the collector was when they ended. (Without
// it a for_each's figure moved by 3.6x with where an incremental marking fell. A collection after
// the warm-up too would not do: the chain's figure then rose from 46.8k to 68.6k, with the
// optimising compiler at work again inside the counted runs.) It narrows the swing, and does not
// end it: a window of a few hundred runs may still hold one more major collection in one process
// than in the other (a gather of realistic tools once counted a negative figure).
(globalThis as { gc?: () => void }).gc?.();
// The watchdog's interval may still be armed for a tick: the count is taken, so end now.
process.exit(0);
