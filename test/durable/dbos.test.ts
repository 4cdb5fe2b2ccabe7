/**
 * toolweave/dbos on a real Postgres and the real DBOS engine, in this process: a door's run is a
 * workflow whose calls are steps, a pause is a durable wait answered by answerApproval, and what
 * cannot be answered says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerApproval, durableTool, pendingApproval, registerDbosDoors, type DbosDoors } from '../../src/durable/dbos.js';
import type { ToolExecutionResult } from '../../src/tool.js';
import { runIdOf } from '../../src/runs/run-token.js';
import { tool } from '../helpers/tools.js';
import { readLedger, refundDoor } from './dbos-shop.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

let pg: PostgresServer;
let dir: string;
let ledger: string;
let doors: DbosDoors;
let door: ReturnType<typeof refundDoor>;
let hurried: ReturnType<typeof refundDoor>;

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(path.join(tmpdir(), 'toolweave-dbos-'));
  ledger = path.join(dir, 'ledger');
  door = refundDoor(ledger);
  hurried = refundDoor(ledger, () => 0, { name: 'hurried_refund', ttlMs: 1500 });
  doors = registerDbosDoors([door, hurried]);
  DBOS.setConfig({ name: 'toolweave-dbos-test', systemDatabaseUrl: pg.url('toolweave_dbos_test'), logLevel: 'error' });
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  await DBOS.shutdown();
  pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The pause workflow `id` waits on, once it waits (polled for at most 10 s). */
async function waitingOn(id: string) {
  for (let i = 0; i < 200; i++) {
    const waiting = await pendingApproval(id);
    if (waiting.success) return waiting.output!;
    expect(waiting.details?.code).toBe('approval_not_waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`workflow ${id} never paused`);
}

const linesOf = (key: string) => readLedger(ledger).filter((line) => line.key.startsWith(key));

describe('toolweave/dbos: a door run as a DBOS workflow', () => {
  it('runs the door in a workflow, pauses durably at the call a person decides, and runs on once answered; each call is a DBOS step', async () => {
    const started = await doors.start(door, { orderId: 7, amount: 30 }, { workflowID: 'refund-7', context: { sessionId: 's1' } });
    expect(started).toEqual({ success: true, output: { workflowID: 'refund-7' } });
    const waiting = await waitingOn('refund-7');
    expect(waiting.pause).toBe(0);
    expect(waiting.pending).toEqual([expect.objectContaining({ tool: 'pay', step: 'pay', args: { checked: 'r-7', amount: 30 } })]);
    expect(waiting.expiresAt).toBeGreaterThan(Date.now());
    // Nothing after the pause ran.
    // The run is named after its workflow: its calls' keys are the same in any process that runs it.
    const runKey = runIdOf('refund-7');
    expect(linesOf(runKey).map((l) => `${l.event} ${l.tool}`)).toEqual(['start reserve', 'done reserve', 'start slow_check', 'done slow_check']);

    expect(await answerApproval('refund-7', [{ approved: true }])).toEqual({ success: true, output: { pause: 0 } });
    const result = await DBOS.retrieveWorkflow<ToolExecutionResult>('refund-7').getResult();
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ paid: 'r-7', amount: 30 });
    expect(linesOf(runKey).filter((l) => l.event === 'done').map((l) => l.tool)).toEqual(['reserve', 'slow_check', 'pay']);
    expect(linesOf(runKey).find((line) => line.tool === 'pay')!.key).toBe(`${runKey}:toolweave:refund_order/pay#0`);
    // Each gated call is a step of the workflow; the pause is an event and a durable receive.
    const steps = (await DBOS.listWorkflowSteps('refund-7'))!.map((step) => step.name);
    // Each answer of the approval hook (durableApprovals) is a step too, before the call it allows.
    expect(steps.filter((name) => name.startsWith('toolweave '))).toEqual([
      expect.stringMatching(/^toolweave approval \S+$/),
      expect.stringMatching(/^toolweave reserve run_\S+:toolweave:refund_order\/reserve#0 \S+$/),
      expect.stringMatching(/^toolweave approval \S+$/),
      expect.stringMatching(/^toolweave slow_check \S+check#0 \S+$/),
      // The pay call's answer (wait for a person) is recorded; the person's decision is the message.
      expect.stringMatching(/^toolweave approval \S+$/),
      expect.stringMatching(/^toolweave pay \S+pay#0 \S+$/),
    ]);
    expect(steps).toContain('DBOS.recv');
    // Answered and ended: nothing waits.
    expect((await pendingApproval('refund-7')).details?.code).toBe('approval_not_waiting');
    expect((await answerApproval('refund-7', [{ approved: true }])).details?.code).toBe('approval_not_waiting');
  }, 60_000);

  it('a refusal ends the run as the refusal, and the refused call never runs', async () => {
    const started = await doors.start('refund_order', { orderId: 8, amount: 5 }, { workflowID: 'refund-8' });
    expect(started.success).toBe(true);
    await waitingOn('refund-8');
    expect((await answerApproval('refund-8', [{ approved: false, reason: 'too late' }])).success).toBe(true);
    const result = await DBOS.retrieveWorkflow<ToolExecutionResult>('refund-8').getResult();
    expect(result.success).toBe(false);
    expect(JSON.stringify(result)).toContain('too late');
    expect(linesOf(runIdOf('refund-8')).map((l) => `${l.event} ${l.tool}`)).toEqual(['start reserve', 'done reserve', 'start slow_check', 'done slow_check']);
  }, 60_000);

  it('answers that do not fit are refused before they are sent; a workflow that waits on nothing says so', async () => {
    await doors.start(door, { orderId: 9, amount: 1 }, { workflowID: 'refund-9' });
    await waitingOn('refund-9');
    expect((await answerApproval('refund-9', [])).details).toMatchObject({ code: 'resume_decisions_invalid', pending: 1 });
    expect((await answerApproval('refund-9', [{ approved: 'yes' } as never])).details?.code).toBe('resume_decisions_invalid');
    expect((await answerApproval('refund-9', 'yes' as never)).details?.code).toBe('resume_decisions_invalid');
    expect((await answerApproval('no-such-workflow', [{ approved: true }])).details?.code).toBe('approval_not_waiting');
    // Still waiting: the refused answers were never sent.
    expect((await waitingOn('refund-9')).pause).toBe(0);
    // A message that does not fit, sent past answerApproval, is passed over; the next one is taken.
    await DBOS.send('refund-9', [{ approved: true }, { approved: true }], 'toolweave.decisions.0');
    expect((await answerApproval('refund-9', [{ approved: true }])).success).toBe(true);
    const result = await DBOS.retrieveWorkflow<ToolExecutionResult>('refund-9').getResult();
    expect(result.output).toEqual({ paid: 'r-9', amount: 1 });
  }, 60_000);

  it('a pause no one answers before its expiry ends the run with resume_token_expired; the call it waited on never runs', async () => {
    await doors.start(hurried, { orderId: 10, amount: 2 }, { workflowID: 'refund-10' });
    const waiting = await waitingOn('refund-10');
    expect(waiting.expiresAt - Date.now()).toBeLessThanOrEqual(1500);
    const result = await DBOS.retrieveWorkflow<ToolExecutionResult>('refund-10').getResult();
    expect(result.details).toMatchObject({ code: 'resume_token_expired', pending: 1 });
    expect((await pendingApproval('refund-10')).details?.code).toBe('approval_not_waiting');
    expect(linesOf(runIdOf('refund-10')).map((l) => `${l.event} ${l.tool}`)).not.toContain('start pay');
  }, 60_000);

  it('a door it was not given is refused with door_unregistered, and starts nothing', async () => {
    const other = { ...door, name: 'other_door' };
    expect((await doors.start(other, {}, { workflowID: 'x-1' })).details?.code).toBe('door_unregistered');
    expect((await doors.start('other_door', {})).details?.code).toBe('door_unregistered');
    // Same name, another object: not the registered door.
    expect((await doors.start({ ...door }, {})).details?.code).toBe('door_unregistered');
    expect(await DBOS.getWorkflowStatus('x-1')).toBeNull();
  });

  it('a durable tool called outside a workflow is a plain call; a composition is left as it is', async () => {
    const plain = tool('plain', (args) => ({ echo: args.x }));
    const durable = durableTool(plain);
    expect(await durable.execute({ x: 1 }, {})).toEqual({ success: true, output: { echo: 1 } });
    expect(plain.calls).toEqual([{ x: 1 }]);
    expect({ ...durable, execute: undefined }).toEqual({ ...plain, execute: undefined });
    expect(durableTool(door)).toBe(door);
  });
});
