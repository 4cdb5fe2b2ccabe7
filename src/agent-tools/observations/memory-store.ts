/**
 * The in-memory observation store: bounded by total UTF-8 size and entry count, least recently
 * used evicted first.
 *
 * Ids carry a per-store tag and a counter (`obs_kqz12`), which tells "evicted" from "never
 * issued" without remembering evicted ids: an id with this store's tag and a counter it has
 * already handed out, but not live, was evicted. The random tag keeps an id from another store
 * (or from before a restart) from reading as one of ours and returning someone else's text.
 */
import { utf8ByteLength } from '../../shaping/utf8.js';
import type { ObservationLookup, ObservationMeta, ObservationStore } from './observation-store.js';

/** Options of {@link createObservationStore}. */
export interface ObservationStoreOptions {
  /** The most UTF-8 bytes kept across all bodies (default 32 MB). A larger body alone is declined. */
  maxBytes?: number;
  /** The most bodies kept (default 10,000). */
  maxEntries?: number;
  /**
   * The store's tag in its ids (`obs_<tag>12`): lowercase letters, default three random ones.
   * Fix it for reproducible transcripts (tests, benchmarks).
   */
  tag?: string;
}

/** The in-memory store: an {@link ObservationStore} whose methods answer synchronously. */
export interface MemoryObservationStore extends ObservationStore {
  /** Store a body; `undefined` when it is larger than `maxBytes` on its own (nothing is evicted then). */
  put(body: string, meta?: ObservationMeta): string | undefined;
  /** Look up a body by id, marking it most recently used. */
  get(id: string): ObservationLookup;
}

/** The default total budget: 32 MB. */
export const DEFAULT_OBSERVATION_STORE_BYTES = 32 * 1024 * 1024;
/** The default number of bodies kept. */
export const DEFAULT_OBSERVATION_STORE_ENTRIES = 10_000;

/** One stored body. */
interface Entry {
  body: string;
  meta: ObservationMeta;
  bytes: number;
}

/** Three random lowercase letters: short, and unlikely to match another store's. */
function randomTag(): string {
  let tag = '';
  for (let index = 0; index < 3; index++) tag += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return tag;
}

/** A positive integer option, or its default. */
function positiveOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

/**
 * Create an in-memory {@link ObservationStore}. Bodies are kept until the total size passes
 * `maxBytes` or the count passes `maxEntries`; then the least recently stored or read go first,
 * and their ids answer `observation_expired`. A body larger than `maxBytes` on its own is not
 * stored (`put` returns `undefined`), and the wrapper ships a truncated preview without an id.
 *
 * @throws RangeError when an option is not a positive number (a programming error, not a result).
 */
export function createObservationStore(options: ObservationStoreOptions = {}): MemoryObservationStore {
  const maxBytes = positiveOption('maxBytes', options.maxBytes, DEFAULT_OBSERVATION_STORE_BYTES);
  const maxEntries = positiveOption('maxEntries', options.maxEntries, DEFAULT_OBSERVATION_STORE_ENTRIES);
  if (options.tag !== undefined && !/^[a-z]{1,8}$/u.test(options.tag)) {
    throw new RangeError('createObservationStore: tag must be 1 to 8 lowercase letters.');
  }
  const prefix = `obs_${options.tag ?? randomTag()}`;
  // A Map iterates in insertion order; re-inserting on use keeps the least recently used first.
  const entries = new Map<string, Entry>();
  let totalBytes = 0;
  let nextCounter = 1;

  /** Evict least recently used entries until both bounds hold. */
  function evict(): void {
    for (const [id, entry] of entries) {
      if (totalBytes <= maxBytes && entries.size <= maxEntries) return;
      entries.delete(id);
      totalBytes -= entry.bytes;
    }
  }

  /** Whether this store handed out `id` at some point. */
  function wasIssued(id: string): boolean {
    if (!id.startsWith(prefix)) return false;
    const counter = id.slice(prefix.length);
    return /^[1-9]\d*$/.test(counter) && Number(counter) < nextCounter;
  }

  return {
    put(body, meta = {}) {
      const bytes = utf8ByteLength(body);
      if (bytes > maxBytes) return undefined;
      const id = `${prefix}${nextCounter++}`;
      entries.set(id, { body, meta: { ...meta }, bytes });
      totalBytes += bytes;
      evict();
      return id;
    },
    get(id) {
      const entry = entries.get(id);
      if (!entry) return { ok: false, code: wasIssued(id) ? 'observation_expired' : 'observation_unknown' };
      entries.delete(id);
      entries.set(id, entry);
      return { ok: true, body: entry.body, meta: { ...entry.meta } };
    },
  };
}
