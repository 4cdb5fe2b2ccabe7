import { indexBody } from '../../../src/agent-tools/observations/indexed-body.js';
import type { ObservationMeta, ObservationStore } from '../../../src/agent-tools/observations/observation-store.js';
import type { ITool, ToolExecutionResult } from '../../../src/tool.js';

/** A pure mock tool that returns whatever `produce` gives, and records its calls. */
export function mockTool<O>(
  produce: (args: Record<string, unknown>) => ToolExecutionResult<O> | Promise<ToolExecutionResult<O>>,
  extra: Partial<ITool<Record<string, unknown>, O>> = {},
): ITool<Record<string, unknown>, O> & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    id: 'mock',
    name: 'mock',
    displayName: 'Mock',
    description: 'A mock tool.',
    inputSchema: { type: 'object' },
    hasSideEffects: false,
    ...extra,
    calls,
    async execute(args, context) {
      calls.push([args, context]);
      return produce(args);
    },
  };
}

/** `count` lines `line 1`, `line 2`, ... joined with newlines. */
export function numberedLines(count: number, width = 0): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1}`.padEnd(width, '.')).join('\n');
}

/** Store `text` in `scope` (default the unnamed scope) and return its id; fails the test when not stored. */
export async function putText(store: ObservationStore, text: string, scope = '', meta?: ObservationMeta): Promise<string> {
  const put = await store.put(indexBody(text), scope, meta);
  if (!put.ok) throw new Error(`not stored: ${put.reason}`);
  return put.id;
}

/** Everything a read of `id` in `scope` gives in one page: its text (lines joined), or the miss. */
export async function readAll(store: ObservationStore, id: string, scope = '') {
  const read = await store.read(id, scope, { offset: 0, maxLines: Number.MAX_SAFE_INTEGER, budgetBytes: Number.MAX_SAFE_INTEGER, mayCut: false });
  return read.ok ? { ok: true as const, text: read.page.text, lines: read.lines, bytes: read.bytes, meta: read.meta } : read;
}
