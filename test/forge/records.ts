/** Recorded sessions written by hand: calls as `toolweave mcp --record` writes them. */
import type { CallRecord, RecordedSession } from '../../src/index.js';

/** A call record with the fields a test does not care about filled in. */
export function call(tool: string, args: Record<string, unknown>, output: unknown, extra: Partial<CallRecord> = {}): CallRecord {
  return { v: 1, seq: 0, time: '2026-12-02T10:00:00.000Z', scope: '', tool, step: tool, hasSideEffects: tool.startsWith('write') ? true : false, args, ok: true, output, ms: 1, ...extra };
}

/** A session of `calls`, numbered in order. */
export function session(file: string, calls: CallRecord[]): RecordedSession {
  return { file, calls: calls.map((c, seq) => ({ ...c, seq })) };
}
