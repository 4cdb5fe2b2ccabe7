/**
 * The door the DBOS tests run, in the test process and in the host processes they kill: a refund
 * that reserves, waits on a slow call, then pays once a person approves. Every tool is
 * side-effecting and writes each start and end to a ledger file, with its idempotency key.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { ComposableToolBuilder } from '../../src/builder.js';
import { durableApprovals, durableTool } from '../../src/durable/dbos.js';
import { createStepGate } from '../../src/gate/step-gate.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';

/** One ledger line: what happened, to which tool, under which key. */
export interface LedgerLine {
  event: 'start' | 'done';
  tool: string;
  key: string;
}

/** The ledger's lines, in order. */
export function readLedger(file: string): LedgerLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [event, tool, key] = line.split(' ');
      return { event: event as LedgerLine['event'], tool, key };
    });
}

/** A side-effecting tool that writes its start and end to `ledger`, waiting `waitMs()` between them. */
export function ledgerTool(name: string, ledger: string, waitMs: () => number, output: (args: Record<string, unknown>) => unknown): ITool {
  return {
    id: `shop:${name}`,
    name,
    displayName: name,
    description: `${name} (writes the ledger)`,
    inputSchema: { type: 'object' },
    hasSideEffects: true,
    async execute(args, context): Promise<ToolExecutionResult> {
      const key = String(context.idempotencyKey);
      appendFileSync(ledger, `start ${name} ${key}\n`);
      const ms = waitMs();
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      appendFileSync(ledger, `done ${name} ${key}\n`);
      return { success: true, output: output(args) };
    },
  };
}

/** The refund door over `ledger`: `pay` waits for a person (for `ttlMs`), the others are approved at once; `slow` takes `slowMs()`. */
export function refundDoor(ledger: string, slowMs: () => number = () => 0, options: { name?: string; ttlMs?: number } = {}): ITool {
  const tools = [
    ledgerTool('reserve', ledger, () => 0, (a) => ({ reservation: `r-${String(a.orderId)}` })),
    ledgerTool('slow_check', ledger, slowMs, (a) => ({ checked: a.reservation })),
    ledgerTool('pay', ledger, () => 0, (a) => ({ paid: a.checked, amount: a.amount })),
  ].map((tool) => durableTool(tool));
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const gate = createStepGate({
    resolve: (name) => byName.get(name),
    approvals: durableApprovals({ requestApproval: (action) => (action.toolName === 'pay' ? { pending: true } : { approved: true }) }),
    ...(options.ttlMs !== undefined ? { pauses: { ttlMs: options.ttlMs } } : {}),
  });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['reserve', 'slow_check', 'pay'] });
  return builder.build(options.name ?? 'refund_order', 'Reserve, check, then pay a refund once a person approves.', { type: 'object' }, {
    steps: [
      { name: 'reserve', tool: 'reserve', inputMapping: { orderId: '$input.orderId' } },
      { name: 'check', tool: 'slow_check', inputMapping: { reservation: '$prev.reservation' } },
      { name: 'pay', tool: 'pay', inputMapping: { checked: '$prev.checked', amount: '$input.amount' } },
    ],
  }) as ITool;
}
