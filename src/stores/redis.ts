/**
 * `toolweave/redis`: an observation store and a run journal in Redis, shared by every process
 * that points at the same server. Any replica of an agent back end or of a proxy can page an
 * observation another one stored: ids are random, bodies immutable and scoped, as in memory, and
 * a page is read by range (the line index and the body's bytes), never the whole body. Any
 * replica can resume a run another one paused for a person's approval.
 *
 * The client is the host's `ioredis` instance; this module only uses it (it never imports
 * ioredis at run time, and `toolweave` itself never imports this module).
 *
 * @module toolweave/redis
 */
import type { Redis } from 'ioredis';
import {
  isObservationId,
  lineCount,
  newObservationId,
  readPage,
  type ObservationRead,
  type ObservationStore,
  type PageSource,
} from '../index.js';
import { connectionOver, DEFAULT_REDIS_TIMEOUT_MS, positiveOption } from './redis-connection.js';

export { DEFAULT_REDIS_TIMEOUT_MS } from './redis-connection.js';
export { createRedisRunJournal, DEFAULT_REDIS_JOURNAL_KEY_PREFIX, DEFAULT_REDIS_JOURNAL_MAX_BYTES, type RedisRunJournalOptions } from './redis-run-journal.js';
import { decodeMeta, encodeMeta, INDEX_ENTRY_BYTES, keysOf, packIndex, unpackIndex, type StoredMeta } from './redis-records.js';

/**
 * Options of {@link createRedisObservationStore}.
 *
 * @category Observations
 */
export interface RedisObservationStoreOptions {
  /**
   * The host's `ioredis` client (6.x). It may be brand new: the store waits for its first
   * connection attempt (at most `timeoutMs`), and never for a reconnect.
   */
  client: Redis;
  /** Prepended to every key (default `toolweave:obs:`). */
  keyPrefix?: string;
  /**
   * How long a body is kept, in seconds (default 3600). An id is remembered as long again after
   * its body expires, so it answers `observation_expired` rather than `observation_unknown`.
   */
  ttlSeconds?: number;
  /** The largest body stored, in UTF-8 bytes (default 8 MB); a larger one is declined (`too_large`). */
  maxBodyBytes?: number;
  /**
   * How long one store operation may wait for Redis, in milliseconds (default 1000), and how long
   * the first connection attempt is waited for. Past it, a put answers `unavailable` (the wrapper
   * ships a capped preview) and a read `observation_store_unavailable`.
   */
  timeoutMs?: number;
}

/**
 * The default key prefix.
 *
 * @category Observations
 */
export const DEFAULT_REDIS_KEY_PREFIX = 'toolweave:obs:';
/**
 * The default time a body is kept: one hour.
 *
 * @category Observations
 */
export const DEFAULT_REDIS_TTL_SECONDS = 3600;
/**
 * The default largest body: 8 MB.
 *
 * @category Observations
 */
export const DEFAULT_REDIS_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A read that found the body gone (expired between its two round trips) or its index short. */
class BodyGone extends Error {}
/** A page's byte range could not be read in time. */
class StoreUnavailable extends Error {}

/**
 * Create an {@link ObservationStore} in Redis, shared by every process that uses the same server.
 *
 * Each body is stored with its line index and its
 * meta in one transaction, expires after `ttlSeconds`, and is never changed. A read takes two
 * round trips: the meta and the page's slice of the index, then the page's byte range.
 *
 * When Redis is down, slow or reconnecting, nothing waits past `timeoutMs`: a put answers
 * `{ ok: false, reason: 'unavailable' }` and a read `observation_store_unavailable`, and the
 * client's own reconnection brings the store back.
 *
 * @throws TypeError when `client` is missing, RangeError when an option is out of range
 * (programming errors, not results).
 *
 * @example
 * ```ts
 * const store = createRedisObservationStore({ client: new Redis(process.env.REDIS_URL!), ttlSeconds: 3600 });
 * const tools = withObservations([readFile], store);
 * ```
 *
 * @category Observations
 */
export function createRedisObservationStore(options: RedisObservationStoreOptions): ObservationStore {
  const { client } = options;
  if (client === null || typeof client !== 'object' || typeof client.status !== 'string') {
    throw new TypeError('createRedisObservationStore: client must be an ioredis instance.');
  }
  const prefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  const ttl = positiveOption('createRedisObservationStore', 'ttlSeconds', options.ttlSeconds, DEFAULT_REDIS_TTL_SECONDS);
  const maxBodyBytes = positiveOption('createRedisObservationStore', 'maxBodyBytes', options.maxBodyBytes, DEFAULT_REDIS_MAX_BODY_BYTES);
  const timeoutMs = positiveOption('createRedisObservationStore', 'timeoutMs', options.timeoutMs, DEFAULT_REDIS_TIMEOUT_MS);
  const connection = connectionOver(client, timeoutMs);

  /** The page source over a stored body: index entries from the first fetch, bytes by range. */
  function storedSource(bodyKey: string, meta: StoredMeta, offset: number, entries: number[]): PageSource {
    return {
      lines: meta.lines,
      bounds(from, to) {
        // The first fetch asked for every entry a page can need; anything else is corrupt data.
        if (from < offset || to - offset >= entries.length) throw new BodyGone();
        return entries.slice(from - offset, to - offset + 1);
      },
      async bytes(start, end) {
        if (end <= start) return new Uint8Array(0);
        // GETRANGE's end is inclusive, and a negative one counts from the end: never send one.
        const range = await connection.attempt((redis) => redis.getrangeBuffer(bodyKey, start, end - 1));
        if (!range.ok) throw new StoreUnavailable();
        if (range.value.length !== end - start) throw new BodyGone();
        return range.value;
      },
    };
  }

  return {
    async put(body, scope, meta = {}) {
      if (body.utf8.length > maxBodyBytes) return { ok: false, reason: 'too_large' };
      const id = newObservationId();
      const keys = keysOf(prefix, id);
      const record = encodeMeta({ scope, tool: meta.tool, label: meta.label, lines: lineCount(body), bytes: body.utf8.length });
      const written = await connection.attempt((redis) =>
        redis
          .multi()
          .set(keys.body, body.utf8, 'EX', ttl, 'NX')
          .set(keys.index, packIndex(body.bounds), 'EX', ttl)
          .set(keys.meta, record, 'EX', 2 * ttl)
          .exec(),
      );
      const stored = written.ok && written.value !== null && written.value.every(([error, reply]) => error === null && reply === 'OK');
      return stored ? { ok: true, id } : { ok: false, reason: 'unavailable' };
    },

    async read(id, scope, request): Promise<ObservationRead> {
      if (!isObservationId(id)) return { ok: false, code: 'observation_unknown' };
      const keys = keysOf(prefix, id);
      const offset = Math.max(0, request.offset);
      const lastEntry = offset + Math.max(0, request.maxLines);
      const first = await connection.attempt((redis) =>
        redis
          .pipeline()
          .get(keys.meta)
          .exists(keys.body)
          .getrangeBuffer(keys.index, offset * INDEX_ENTRY_BYTES, (lastEntry + 1) * INDEX_ENTRY_BYTES - 1)
          .exec(),
      );
      if (!first.ok || first.value === null || first.value.some(([error]) => error !== null)) {
        return { ok: false, code: 'observation_store_unavailable' };
      }
      const [[, rawMeta], [, bodyExists], [, packed]] = first.value as [unknown, unknown][];
      const meta = decodeMeta(typeof rawMeta === 'string' ? rawMeta : null);
      // Another scope's id reads exactly like one never issued.
      if (meta === undefined || meta.scope !== scope) return { ok: false, code: 'observation_unknown' };
      if (bodyExists !== 1 || !Buffer.isBuffer(packed)) return { ok: false, code: 'observation_expired' };
      try {
        const page = await readPage(storedSource(keys.body, meta, offset, unpackIndex(packed)), request);
        const { tool, label } = meta;
        return { ok: true, lines: meta.lines, bytes: meta.bytes, meta: { ...(tool !== undefined ? { tool } : {}), ...(label !== undefined ? { label } : {}) }, page };
      } catch (error) {
        return { ok: false, code: error instanceof StoreUnavailable ? 'observation_store_unavailable' : 'observation_expired' };
      }
    },
  };
}
