/**
 * A host process for the crash test: launches DBOS on the given database with the refund door
 * registered, then, by its mode,
 *   start:   starts workflow <id> and runs until it is killed;
 *   recover: lets DBOS recover what was running, prints PENDING once the workflow waits on its
 *            approval, and runs until it is killed;
 *   answer:  lets DBOS recover, answers the approval, prints RESULT <json> and exits.
 * Usage: dbos-host.ts <mode> <database url> <ledger file> <workflow id>; SLOW_MS sets the slow call.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { answerApproval, pendingApproval, registerDbosDoors } from '../../src/durable/dbos.js';
import type { ToolExecutionResult } from '../../src/tool.js';
import { refundDoor } from './dbos-shop.js';

const [mode, url, ledger, workflowID] = process.argv.slice(2);
const slowMs = Number(process.env.SLOW_MS ?? '0');
const door = refundDoor(ledger, () => slowMs);
const doors = registerDbosDoors([door]);
DBOS.setConfig({ name: 'toolweave-dbos-crash', systemDatabaseUrl: url, logLevel: 'error' });
await DBOS.launch();
console.log('LAUNCHED');

/** The pending approval, polled for at most 30 s. */
async function waiting() {
  for (let i = 0; i < 600; i++) {
    const pending = await pendingApproval(workflowID);
    if (pending.success) return pending.output!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the workflow never waited on its approval');
}

if (mode === 'start') {
  const started = await doors.start(door, { orderId: 42, amount: 30 }, { workflowID, context: { sessionId: 'crash' } });
  console.log(`STARTED ${JSON.stringify(started)}`);
} else if (mode === 'recover') {
  console.log(`PENDING ${JSON.stringify(await waiting())}`);
} else if (mode === 'answer') {
  const pending = await waiting();
  console.log(`ANSWERED ${JSON.stringify(await answerApproval(workflowID, pending.pending.map(() => ({ approved: true }))))}`);
  const result = await DBOS.getResult<ToolExecutionResult>(workflowID, { timeoutSeconds: 30 });
  console.log(`RESULT ${JSON.stringify(result)}`);
  await DBOS.shutdown();
  process.exit(0);
}
// Runs until killed (bounded: the test kills it well before).
setTimeout(() => process.exit(3), 120_000);
