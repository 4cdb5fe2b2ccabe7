/**
 * A paused run holds memory only: once 1,000 runs of a door have paused, nothing of theirs is
 * pending on the event loop (no timer, such as a step's timeout watch; no handle; no request),
 * and each of them still resumes. Counts, not timings: bench/pause.ts measures the memory.
 */
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import type { StepGate } from '../../src/gate/options.js';
import { resumeRun } from '../../src/doors/resume.js';
import { createMemoryRunJournal } from '../../src/runs/memory-journal.js';
import type { ITool, ToolExecutionContext } from '../../src/tool.js';
import { delay, registry, tool } from '../helpers/tools.js';

const ctx: ToolExecutionContext = { sessionId: 's1' };
const RUNS = 1000;

/**
 * What is pending on the event loop once nothing more is to end: the steps' timeout watch stops
 * its shared timer a tick (10 ms) after its last deadline is taken off, so this waits, a bounded
 * number of ticks, for no timer to be left; one that stays is then seen by the caller's check.
 */
async function settledLoop(): Promise<Record<string, number>> {
  for (let ticks = 0; ticks < 50 && pendingOnTheLoop().Timeout !== undefined; ticks++) await delay(10);
  return pendingOnTheLoop();
}

/** What is pending on the event loop, by kind. */
function pendingOnTheLoop(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

function setup() {
  // A read that waits until released, its step's timeout watch armed meanwhile.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const read = tool('read', async (a) => (await released, { text: `note ${String(a.id)}` }));
  const send = tool('send', (a) => ({ sent: a.text }), { hasSideEffects: true });
  // All 1,000 are of one session: its journal keeps that many paused runs of one scope.
  const journal = createMemoryRunJournal({ maxRunsPerScope: RUNS });
  const gate = registry(read, send).gate({ journal, approvals: { requestApproval: () => ({ pending: true }) }, budget: { inFlight: 10_000 } });
  return { gate, read, send, release };
}

const DOORS: Record<string, (gate: StepGate) => { door: ITool; input: (i: number) => Record<string, unknown> }> = {
  composite: (gate) => {
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: ['send'] });
    const spec = {
      steps: [
        { name: 'read', tool: 'read', inputMapping: { id: '$input.id' }, timeoutMs: 60_000 },
        { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' }, timeoutMs: 60_000 },
      ],
    };
    return { door: builder.build('notify', 'read a note and send it', { type: 'object' }, spec as never) as ITool, input: (i) => ({ id: i }) };
  },
  run_pipeline: (gate) => ({
    door: createRunPipelineTool(gate, { sideEffectingTools: ['send'], stepTimeoutMs: 60_000 }),
    input: (i) => ({ steps: [{ id: 'r', tool: 'read', args: { id: i } }, { id: 's', tool: 'send', args: { text: '${r.output.text}' } }] }),
  }),
  compose: (gate) => ({
    door: createComposeTool(gate, { sideEffectingTools: ['send'], stepTimeoutMs: 60_000 }),
    input: (i) => ({ combinator: 'gather', calls: { r: { tool: 'read', args: { id: i } }, s: { tool: 'send', args: { text: `note ${i}` } } } }),
  }),
};

describe('1,000 runs paused at once hold nothing on the event loop', () => {
  for (const [kind, make] of Object.entries(DOORS)) {
    it(`${kind}: no timer, handle or request more than before while they wait; each resumes`, async () => {
      const { gate, read, send, release } = setup();
      const { door, input } = make(gate);
      const before = await settledLoop();
      const running = Promise.all(Array.from({ length: RUNS }, (_, i) => door.execute(input(i), ctx)));
      // While their reads run, the timeout watch's timer is pending: the count can tell.
      for (let turns = 0; read.calls.length < RUNS && turns < 1000; turns++) await new Promise((resolve) => setImmediate(resolve));
      expect(read.calls.length).toBe(RUNS);
      expect(pendingOnTheLoop().Timeout ?? 0).toBeGreaterThan(before.Timeout ?? 0);
      release();
      const paused = await running;
      expect(paused.every((r) => r.details?.code === 'approval_pending')).toBe(true);
      expect(await settledLoop()).toEqual(before);
      expect(send.calls.length).toBe(0);
      const resumed = await Promise.all(paused.map((r) => resumeRun(door, String(r.details?.resume), [{ approved: true }], ctx)));
      expect(resumed.every((r) => r.success)).toBe(true);
      expect(send.calls.length).toBe(RUNS);
    });
  }
});
