/**
 * Recordings on disk: one JSON-lines file per session (per observation scope) in a folder, each
 * line written as its call ends, so a proxy stopped at any moment loses no finished call. A
 * session's file stops growing at its bound; the line that would pass it is replaced by one
 * `{"v":1,"cut":true}` line, and the session's later calls are not written.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { CallRecord } from './record-format.js';

/**
 * The most bytes one session's file may hold by default (64 MiB).
 *
 * @category Forge: composites from recordings
 */
export const DEFAULT_MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;

/** The most files held open at once; past it the least recently written is closed (and opened again when its session writes). */
const MAX_OPEN_FILES = 64;

/**
 * Options of {@link recordToDirectory}.
 *
 * @category Forge: composites from recordings
 */
export interface RecordToDirectoryOptions {
  /** The most bytes of one session's file (default 64 MiB). */
  maxFileBytes?: number;
}

/**
 * A folder of recordings being written.
 *
 * @category Forge: composites from recordings
 */
export interface RecordingDirectory {
  /** The sink for {@link recordCalls}: writes the record to its session's file. */
  write(record: CallRecord): void;
  /** The files written so far, by scope. */
  files(): ReadonlyMap<string, string>;
  /** Close every file. */
  close(): void;
}

/**
 * Write records into `dir` (made if missing), one file per scope.
 *
 * A file is named by the time the session's first call ended, this process's id and a counter:
 * `2026-12-02T21-00-00-000Z-4242-1.jsonl`.
 *
 * @param dir - the folder
 * @param options - the file bound
 *
 * @category Forge: composites from recordings
 */
export function recordToDirectory(dir: string, options: RecordToDirectoryOptions = {}): RecordingDirectory {
  const maxBytes = Math.max(1024, options.maxFileBytes ?? DEFAULT_MAX_SESSION_FILE_BYTES);
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, { fd: number | undefined; bytes: number; cut: boolean }>();
  const names = new Map<string, string>();
  // Scopes whose file is open, least recently written first.
  const open = new Set<string>();
  let counter = 0;
  return {
    write(record) {
      let file = files.get(record.scope);
      if (!file) {
        const name = `${new Date().toISOString().replace(/[:.]/gu, '-')}-${process.pid}-${++counter}.jsonl`;
        names.set(record.scope, path.join(dir, name));
        file = { fd: undefined, bytes: 0, cut: false };
        files.set(record.scope, file);
      }
      if (file.cut) return;
      open.delete(record.scope);
      open.add(record.scope);
      if (file.fd === undefined) {
        file.fd = openSync(names.get(record.scope)!, 'a');
        if (open.size > MAX_OPEN_FILES) {
          const oldest = open.values().next().value as string;
          open.delete(oldest);
          const closing = files.get(oldest)!;
          closeSync(closing.fd!);
          closing.fd = undefined;
        }
      }
      const line = `${JSON.stringify(record)}\n`;
      const bytes = Buffer.byteLength(line);
      if (file.bytes + bytes > maxBytes) {
        file.cut = true;
        writeSync(file.fd!, `${JSON.stringify({ v: record.v, cut: true })}\n`);
        return;
      }
      file.bytes += bytes;
      writeSync(file.fd!, line);
    },
    files: () => names,
    close() {
      for (const scope of open) {
        const file = files.get(scope)!;
        closeSync(file.fd!);
        file.fd = undefined;
      }
      open.clear();
    },
  };
}
