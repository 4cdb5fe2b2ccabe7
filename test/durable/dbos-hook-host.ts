/**
 * A host process for the recovery test of the approval hook's answers: launches DBOS on the given
 * database with a door that writes two records side by side (a gather), then runs a slow check;
 * its approval hook answers by the HOOK setting (`approve` or `deny`: a policy that changed between
 * two processes) and writes each question to the ledger. By its mode,
 *   start:   starts workflow <id> and runs until it is killed;
 *   recover: lets DBOS recover what was running, prints RESULT <json> once the run ends and
 *            STEPS <json> (the names of the workflow's steps), and exits.
 * Usage: dbos-hook-host.ts <mode> <database url> <ledger file> <workflow id>; SLOW_MS sets the slow call.
 */
import { appendFileSync } from 'node:fs';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { ComposableToolBuilder } from '../../src/builder.js';
import { durableApprovals, durableTool, registerDbosDoors } from '../../src/durable/dbos.js';
import { createStepGate } from '../../src/gate/step-gate.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { ledgerTool } from './dbos-shop.js';

const [mode, url, ledger, workflowID] = process.argv.slice(2);
const slowMs = Number(process.env.SLOW_MS ?? '0');
const answer = process.env.HOOK === 'deny' ? { approved: false, reason: 'the policy changed' } : { approved: true };

const tools = [
  ledgerTool('write_a', ledger, () => 0, (a) => ({ wrote: `a-${String(a.orderId)}` })),
  ledgerTool('write_b', ledger, () => 0, (a) => ({ wrote: `b-${String(a.orderId)}` })),
  ledgerTool('slow_check', ledger, () => slowMs, (a) => ({ checked: a.records })),
].map((tool) => durableTool(tool));
const byName = new Map(tools.map((tool) => [tool.name, tool]));
const gate = createStepGate({
  resolve: (name) => byName.get(name),
  approvals: durableApprovals({
    requestApproval(action) {
      appendFileSync(ledger, `asked ${action.toolName} ${process.env.HOOK}\n`);
      return answer;
    },
  }),
});
const builder = new ComposableToolBuilder(gate);
builder.bind({ sideEffectingTools: ['write_a', 'write_b', 'slow_check'] });
const spec = {
  steps: [
    { name: 'both', combinator: 'gather', calls: { a: { tool: 'write_a', inputMapping: { orderId: '$input.orderId' } }, b: { tool: 'write_b', inputMapping: { orderId: '$input.orderId' } } } },
    { name: 'check', tool: 'slow_check', inputMapping: { records: '$prev' } },
  ],
} as unknown as ComposableToolSpec;
const door = builder.build('record_order', 'Write two records side by side, then check them.', { type: 'object' }, spec) as ITool;
const doors = registerDbosDoors([door]);
DBOS.setConfig({ name: 'toolweave-dbos-hook', systemDatabaseUrl: url, logLevel: 'error' });
await DBOS.launch();
console.log('LAUNCHED');

if (mode === 'start') {
  const started = await doors.start(door, { orderId: 7 }, { workflowID, context: { sessionId: 'hook' } });
  console.log(`STARTED ${JSON.stringify(started)}`);
} else if (mode === 'recover') {
  const result = await DBOS.getResult<ToolExecutionResult>(workflowID, { timeoutSeconds: 60 });
  console.log(`RESULT ${JSON.stringify(result)}`);
  console.log(`STEPS ${JSON.stringify((await DBOS.listWorkflowSteps(workflowID))!.map((step) => step.name))}`);
  await DBOS.shutdown();
  process.exit(0);
}
// Runs until killed (bounded: the test kills it well before).
setTimeout(() => process.exit(3), 120_000);
