/**
 * Labels across a crash: a door run as a DBOS workflow is judged, once recovered in a fresh
 * process, by what its caller's session had seen when the run started, not by that process's
 * memory of sessions (which is empty). Two processes on one real Postgres.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readLedger } from './dbos-shop.js';
import { crashBed, until } from './host-process.js';

const HOST = fileURLToPath(new URL('./dbos-flows-host.ts', import.meta.url));
const WORKFLOW = 'pay-named-crash';

const bed = crashBed('toolweave-dbos-flows-', HOST, 'toolweave_dbos_flows', WORKFLOW);
const events = () => readLedger(bed.ledger()).map((line) => `${line.event} ${line.tool}`);

describe('toolweave/dbos with flows: a host killed mid-run', () => {
  it('recovers the run with the label its caller gave it: the payment the mail steers is refused after the crash too', async () => {
    const first = bed.start('start', { SLOW_MS: '60000' });
    await until(() => first.output().includes('STARTED') && events().filter((e) => e === 'start slow_check').length === 2, 'the slow check starting', first.output);
    // Without a crash, the session that read the mail cannot steer the payment.
    const control = JSON.parse(first.output().split('CONTROL ')[1].split('\n')[0]) as { success: boolean; details?: { code?: string } };
    expect(control).toMatchObject({ success: false, details: { code: 'flow_untrusted' } });
    first.child.kill('SIGKILL');
    await first.exited;

    const second = bed.start('recover', { SLOW_MS: '10' });
    expect(await second.exited).toBe(0);
    const result = JSON.parse(second.output().split('RESULT ')[1].split('\n')[0]) as { success: boolean; details?: { code?: string } };
    expect(result).toMatchObject({ success: false, details: { code: 'flow_untrusted' } });
    expect(events().filter((e) => e.endsWith(' pay'))).toEqual([]);
  }, 180_000);
});
