/**
 * How one observation is laid out in Redis: three keys under the store's prefix.
 *
 * - `<prefix><id>:body`: the body's UTF-8 bytes, read by range (GETRANGE);
 * - `<prefix><id>:index`: the line index, each entry 4 bytes little-endian, read by range;
 * - `<prefix><id>:meta`: JSON `{ scope, tool, lines, bytes, label }` (`label` as the wrapper gave it). It outlives the body, so an id
 *   whose body has expired still answers `observation_expired` in its own scope.
 */
import { endianness } from 'node:os';

/** The bytes per index entry. */
export const INDEX_ENTRY_BYTES = 4;

/** The keys of one observation. */
export interface ObservationKeys {
  body: string;
  index: string;
  meta: string;
}

/** The keys of observation `id` under `prefix`. */
export function keysOf(prefix: string, id: string): ObservationKeys {
  return { body: `${prefix}${id}:body`, index: `${prefix}${id}:index`, meta: `${prefix}${id}:meta` };
}

/** What the meta key holds. */
export interface StoredMeta {
  scope: string;
  tool?: string;
  /** The output's label, plain JSON as it was given (checked by whoever reads it). */
  label?: unknown;
  lines: number;
  bytes: number;
}

/** The meta key's value. */
export function encodeMeta(meta: StoredMeta): string {
  return JSON.stringify(meta);
}

/** Read a meta key's value; `undefined` when it is missing or not one this store wrote. */
export function decodeMeta(raw: string | null): StoredMeta | undefined {
  if (raw === null) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    if (value === null || typeof value !== 'object') return undefined;
    const { scope, tool, label, lines, bytes } = value as Record<string, unknown>;
    if (typeof scope !== 'string' || !Number.isInteger(lines) || !Number.isInteger(bytes)) return undefined;
    return { scope, tool: typeof tool === 'string' ? tool : undefined, ...(label !== undefined ? { label } : {}), lines: lines as number, bytes: bytes as number };
  } catch {
    return undefined;
  }
}

/** The line index as stored: 4 bytes per entry, little-endian on every machine. */
export function packIndex(bounds: Uint32Array): Buffer {
  const view = Buffer.from(bounds.buffer, bounds.byteOffset, bounds.byteLength);
  return endianness() === 'LE' ? view : Buffer.from(view).swap32();
}

/** Index entries read back from a range of the stored index. */
export function unpackIndex(packed: Buffer): number[] {
  const entries: number[] = [];
  for (let at = 0; at + INDEX_ENTRY_BYTES <= packed.length; at += INDEX_ENTRY_BYTES) entries.push(packed.readUInt32LE(at));
  return entries;
}
