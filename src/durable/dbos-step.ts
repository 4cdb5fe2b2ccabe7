/**
 * A tool whose calls, made inside a DBOS workflow, are DBOS steps: the engine checkpoints each
 * call's result, and a workflow it recovers after a crash gets the recorded result back instead
 * of calling the tool again.
 */
import { createHash } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../index.js';

/**
 * `tool` with every call made inside a DBOS workflow run as a DBOS step (`DBOS.runStep`).
 *
 * A step that ended is never run again by a recovered workflow: its recorded result answers. A
 * step the crash interrupted runs again, with the same `idempotencyKey` in its context (a door
 * run by {@link registerDbosDoors} names its run after its workflow), so a tool that passes that
 * key on to its service makes its effect once. DBOS matches steps by their order in the
 * workflow; the step's name is the tool's name, the call's idempotency key and a digest of its
 * arguments, so should a recovered run make another call where a step was recorded (calls side by
 * side that start in another order), DBOS refuses it with its unexpected-step error (the gate's
 * `step_threw`) rather than answer it with the other call's result. Outside a workflow the call is
 * a plain call; a composition is returned as it is (its own calls are gated, each a step).
 *
 * @example
 * ```ts
 * const tools = new Map([sendEmail, lookup].map((t) => [t.name, durableTool(t)]));
 * const gate = createStepGate({ resolve: (name) => tools.get(name), approvals });
 * ```
 *
 * @category Durable runs
 */
export function durableTool<I, O>(tool: ITool<I, O>): ITool<I, O> {
  if (tool.composition === true) return tool;
  return {
    ...tool,
    id: tool.id,
    name: tool.name,
    displayName: tool.displayName,
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute(args: I, context: ToolExecutionContext): Promise<ToolExecutionResult<O>> {
      if (!DBOS.isInWorkflow()) return tool.execute(args, context);
      return DBOS.runStep(() => tool.execute(args, context), { name: stepName(tool.name, context?.idempotencyKey, args) });
    },
  };
}

/** The step's name: what a recovered workflow checks the call at the same place against. */
export function stepName(tool: string, key: unknown, args: unknown): string {
  return `toolweave ${tool} ${typeof key === 'string' ? key : '-'} ${digestOf(args)}`;
}

/** A short digest of `args` as canonical JSON (keys sorted), or `unreadable` for arguments JSON cannot hold. */
export function digestOf(args: unknown): string {
  try {
    return createHash('sha256').update(JSON.stringify(args, sortedKeys) ?? 'undefined').digest('base64url').slice(0, 16);
  } catch {
    return 'unreadable';
  }
}

/** A JSON replacer that writes an object's keys in sorted order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}
