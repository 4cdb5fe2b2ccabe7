/**
 * The in-memory observation store: zero setup, bounded by total UTF-8 size and entry count,
 * least recently used evicted first.
 *
 * Ids are random, so "evicted" cannot be told from "never issued" by the id's shape: the store
 * remembers a bounded number of evicted ids with their scope instead. An evicted id answers
 * `observation_expired` in its own scope and `observation_unknown` in any other.
 */
import type { IndexedBody } from './indexed-body.js';
import { newObservationId, seededObservationIds } from './observation-id.js';
import { bodySource, readPage } from './observation-page.js';
import type { ObservationMeta, ObservationRead, ObservationStore } from './observation-store.js';

/**
 * Options of {@link createObservationStore}.
 *
 * @category Observations
 */
export interface ObservationStoreOptions {
  /**
   * The most UTF-8 bytes of bodies kept across all entries (default 32 MB). A larger body alone
   * is declined. Each body's line index adds 4 bytes per line beside it.
   */
  maxBytes?: number;
  /** The most bodies kept (default 10,000); as many evicted ids are remembered. */
  maxEntries?: number;
  /**
   * Reproducible ids for tests and benchmarks: ids derived from this tag (1 to 8 lowercase
   * letters) and a counter, as long as random ones. Anyone who knows the tag can compute them,
   * so leave it unset in production, where ids are random.
   */
  tag?: string;
}

/**
 * The default total budget: 32 MB.
 *
 * @category Observations
 */
export const DEFAULT_OBSERVATION_STORE_BYTES = 32 * 1024 * 1024;
/**
 * The default number of bodies kept.
 *
 * @category Observations
 */
export const DEFAULT_OBSERVATION_STORE_ENTRIES = 10_000;

/** One stored body. */
interface Entry {
  body: IndexedBody;
  scope: string;
  meta: ObservationMeta;
}

/** A positive integer option, or its default. */
function positiveOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

/**
 * Create an in-memory {@link ObservationStore}.
 *
 * Bodies are kept until the total size passes
 * `maxBytes` or the count passes `maxEntries`; then the least recently stored or read go first,
 * and their ids answer `observation_expired` (in their own scope). A body larger than `maxBytes`
 * on its own is not stored (`too_large`), and the wrapper ships a preview without an id.
 * One store serves one process; to share observations between processes use a shared store
 * (`toolweave/redis`).
 *
 * @throws RangeError when an option is out of range (a programming error, not a result).
 *
 * @example
 * ```ts
 * const store = createObservationStore({ maxBytes: 64 * 1024 * 1024 });
 * const tools = withObservations([readFile, grepFiles], store);
 * ```
 *
 * @category Observations
 */
export function createObservationStore(options: ObservationStoreOptions = {}): ObservationStore {
  const maxBytes = positiveOption('maxBytes', options.maxBytes, DEFAULT_OBSERVATION_STORE_BYTES);
  const maxEntries = positiveOption('maxEntries', options.maxEntries, DEFAULT_OBSERVATION_STORE_ENTRIES);
  if (options.tag !== undefined && !/^[a-z]{1,8}$/u.test(options.tag)) {
    throw new RangeError('createObservationStore: tag must be 1 to 8 lowercase letters.');
  }
  const nextId = options.tag === undefined ? newObservationId : seededObservationIds(options.tag);
  // Maps iterate in insertion order: re-inserting on use keeps the least recently used first,
  // and the oldest evicted id is the first one forgotten.
  const entries = new Map<string, Entry>();
  const evicted = new Map<string, string>();
  let totalBytes = 0;

  /** Remember an evicted id's scope, forgetting the oldest past `maxEntries`. */
  function remember(id: string, scope: string): void {
    evicted.set(id, scope);
    if (evicted.size > maxEntries) evicted.delete(evicted.keys().next().value as string);
  }

  /** Evict least recently used entries until both bounds hold. */
  function evict(): void {
    for (const [id, entry] of entries) {
      if (totalBytes <= maxBytes && entries.size <= maxEntries) return;
      entries.delete(id);
      totalBytes -= entry.body.utf8.length;
      remember(id, entry.scope);
    }
  }

  return {
    async put(body, scope, meta = {}) {
      if (body.utf8.length > maxBytes) return { ok: false, reason: 'too_large' };
      const id = nextId();
      // A copy: the caller's buffers are theirs to reuse, and a stored body never changes.
      const kept: IndexedBody = { utf8: Buffer.from(body.utf8), bounds: body.bounds.slice() };
      entries.set(id, { body: kept, scope, meta: { ...meta } });
      totalBytes += body.utf8.length;
      evict();
      return { ok: true, id };
    },
    async read(id, scope, request): Promise<ObservationRead> {
      const entry = entries.get(id);
      if (!entry || entry.scope !== scope) {
        return { ok: false, code: evicted.get(id) === scope ? 'observation_expired' : 'observation_unknown' };
      }
      entries.delete(id);
      entries.set(id, entry);
      const page = await readPage(bodySource(entry.body), request);
      return { ok: true, lines: entry.body.bounds.length - 1, bytes: entry.body.utf8.length, meta: { ...entry.meta }, page };
    },
  };
}
