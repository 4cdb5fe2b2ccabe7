/**
 * A host killed mid-run and started again: DBOS recovers the door's workflow in the new process
 * and the run carries on where it stopped. Three processes on one real Postgres: the first is
 * killed while the second call is running, the second (recovering) is killed while the run waits
 * for a person, the third answers and gets the result. Every call that ended ran once; the one
 * cut off mid-call ran again with the same idempotency key, and ended once.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runIdOf } from '../../src/runs/run-token.js';
import { readLedger } from './dbos-shop.js';
import { crashBed, until } from './host-process.js';

const HOST = fileURLToPath(new URL('./dbos-host.ts', import.meta.url));
const WORKFLOW = 'refund-crash-42';

const bed = crashBed('toolweave-dbos-crash-', HOST, 'toolweave_dbos_crash', WORKFLOW);

/** A host process in `mode`; `output()` is what it printed so far. */
function host(mode: string, slowMs: number) {
  return bed.start(mode, { SLOW_MS: String(slowMs) });
}


async function kill(process: ReturnType<typeof host>): Promise<void> {
  process.child.kill('SIGKILL');
  await process.exited;
}

const events = () => readLedger(bed.ledger()).map((line) => `${line.event} ${line.tool}`);

describe('toolweave/dbos: a host killed mid-run', () => {
  it('recovers the run in a new process: no call that ended runs again, a pause survives the crash, and the answer completes it', async () => {
    // 1. The first host starts the run and is killed while the slow second call runs.
    const first = host('start', 60_000);
    await until(() => events().includes('start slow_check'), 'the slow call starting', first.output);
    await kill(first);
    expect(events()).toEqual(['start reserve', 'done reserve', 'start slow_check']);

    // 2. A second host recovers it: the first call is answered by its step, the slow one runs
    // again (it had not ended), and the run waits for a person; it is killed while it waits.
    const second = host('recover', 10);
    await until(() => second.output().includes('PENDING'), 'the recovered run pausing', second.output);
    const pending = JSON.parse(second.output().split('PENDING ')[1].split('\n')[0]) as { pause: number; pending: { tool: string; args: unknown }[] };
    expect(pending.pause).toBe(0);
    expect(pending.pending).toEqual([expect.objectContaining({ tool: 'pay', args: { checked: 'r-42', amount: 30 } })]);
    await kill(second);
    expect(events()).toEqual(['start reserve', 'done reserve', 'start slow_check', 'start slow_check', 'done slow_check']);

    // 3. A third host recovers it again, answers the approval, and the run ends.
    const third = host('answer', 60_000);
    expect(await third.exited).toBe(0);
    expect(third.output()).toContain('ANSWERED {"success":true,"output":{"pause":0}}');
    const result = JSON.parse(third.output().split('RESULT ')[1].split('\n')[0]) as { success: boolean; output: unknown };
    expect(result).toMatchObject({ success: true, output: { paid: 'r-42', amount: 30 } });

    // Every call ended exactly once; the one cut off ran again under the same key.
    const lines = readLedger(bed.ledger());
    const run = runIdOf(WORKFLOW);
    expect(lines.filter((l) => l.event === 'done').map((l) => `${l.tool} ${l.key}`)).toEqual([
      `reserve ${run}:toolweave:refund_order/reserve#0`,
      `slow_check ${run}:toolweave:refund_order/check#0`,
      `pay ${run}:toolweave:refund_order/pay#0`,
    ]);
    expect(lines.filter((l) => l.tool === 'slow_check' && l.event === 'start').map((l) => l.key)).toEqual([
      `${run}:toolweave:refund_order/check#0`,
      `${run}:toolweave:refund_order/check#0`,
    ]);
    expect(events()).toEqual(['start reserve', 'done reserve', 'start slow_check', 'start slow_check', 'done slow_check', 'start pay', 'done pay']);
  }, 180_000);
});
