/**
 * Forging composites from recorded traffic: what mining finds, and what it costs.
 *
 * - Found: on sessions of recurring task shapes with varied arguments and noise calls between
 *   them, every shape seen in 3 sessions or more is forged (target: all), and none seen in fewer
 *   (target: 0 false specs); every forged spec builds against the tools.
 * - Time: mining 10,000 recorded calls (flow, chains, generalization), target <= 2 s, printed
 *   beside the time to read and parse the same recordings from disk (the least any miner must
 *   do), measured in the same run.
 *
 * Timing on a shared machine is noisy, so verdicts are printed, never turned into an exit code.
 *
 * Run: npm run bench:forge
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ComposableToolBuilder, createStepGate, generalizeChain, mineChains, readRecordings, type ITool, type RecordedSession } from '../dist/index.js';
import { forgeWorkload } from './forge-sessions.js';

const CALLS = 10_000;
const ROUNDS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const workload = forgeWorkload(CALLS);
const dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-bench-forge-'));
try {
  for (const session of workload.sessions) await writeFile(path.join(dir, session.file), `${session.calls.map((call) => JSON.stringify(call)).join('\n')}\n`);

  const mine = (sessions: RecordedSession[]) => {
    const taken = new Set<string>();
    return mineChains(sessions).map((shape) => ({ shape, forged: generalizeChain(shape, { takenNames: taken }) }));
  };
  const parseMs: number[] = [];
  const mineMs: number[] = [];
  let sessions: RecordedSession[] = [];
  let forged: ReturnType<typeof mine> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const read = await readRecordings(dir);
    parseMs.push(performance.now() - started);
    sessions = read.output!.sessions;
    const mined = performance.now();
    forged = mine(sessions);
    mineMs.push(performance.now() - mined);
  }

  const found = forged.map(({ shape }) => shape.steps.map((step) => step.tool).join('>'));
  const hits = [...workload.expected].filter((tools) => found.includes(tools));
  const falseSpecs = found.filter((tools) => !workload.expected.has(tools));
  const tools = new Map<string, ITool>();
  for (const session of sessions) {
    for (const call of session.calls) tools.set(call.tool, { id: call.tool, name: call.tool, displayName: call.tool, description: call.tool, inputSchema: { type: 'object' }, hasSideEffects: call.hasSideEffects, execute: async () => ({ success: true, output: null }) });
  }
  const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => tools.get(name) }));
  builder.bind({ sideEffectingTools: [...tools.values()].filter((tool) => tool.hasSideEffects).map((tool) => tool.name) });
  let builds = 0;
  for (const { forged: spec } of forged) {
    try {
      builder.build(spec.name, spec.description, spec.inputSchema, spec.spec);
      builds++;
    } catch {
      // Counted as not building.
    }
  }

  console.log(`\nForging from ${workload.calls} recorded calls in ${workload.sessions.length} sessions (min sessions 3)`);
  console.log('| figure | value | target |');
  console.log('|---|---|---|');
  console.log(`| shapes found / expected | ${hits.length} / ${workload.expected.size} | all ${hits.length === workload.expected.size ? 'ok' : 'MISSED'} |`);
  console.log(`| false specs (shapes seen in < 3 sessions, or none) | ${falseSpecs.length}${falseSpecs.length ? ` (${falseSpecs.join(', ')})` : ''} | 0 ${falseSpecs.length === 0 ? 'ok' : 'OVER'} |`);
  console.log(`| forged specs that build | ${builds} / ${forged.length} | all ${builds === forged.length ? 'ok' : 'FAILED'} |`);
  const parse = median(parseMs);
  const mined = median(mineMs);
  console.log(`\nTime (median of ${ROUNDS})`);
  console.log('| case | read and parse (ms) | mine and generalize (ms) | ratio | target |');
  console.log('|---|---|---|---|---|');
  console.log(`| ${workload.calls} calls | ${parse.toFixed(1)} | ${mined.toFixed(1)} | ${(mined / parse).toFixed(2)}x | mining <= 2000 ms ${mined <= 2000 ? 'ok' : 'OVER'} |`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
