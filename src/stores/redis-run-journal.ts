/**
 * A run journal in Redis, so a run paused in one process can be resumed by any other process that
 * points at the same server. Each run has two keys, both under one hash tag (`{runId}`) so a
 * script may touch both on a Redis Cluster:
 *
 * - `<prefix>{<runId>}:run`: a hash with the paused run as JSON (`run`), and beside it what a
 *   claim must read without parsing it (`pause`, `expiresAt`) and the claim (`claimedUntil`);
 * - `<prefix>{<runId>}:calls`: a hash of the run's call records as JSON, keyed by position;
 * - `<prefix>scope:<hash of the scope>`: a sorted set of the paused runs of one scope (a session,
 *   a user), each scored by when its keys expire, so a scope's pauses are counted and bounded
 *   without touching another scope's.
 *
 * Every write that must see what is stored (a claim, a save clearing the claim) is one Lua
 * script, so it is atomic across processes. The JSON is kept as it was written: a field a later
 * version adds to a run or a record survives the round trip.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE, DEFAULT_PAUSE_TTL_MS, RunJournalRefusal, type PausedRun, type RunCallRecord, type RunJournal } from '../index.js';
import { connectionOver, DEFAULT_REDIS_TIMEOUT_MS, positiveOption } from './redis-connection.js';

/**
 * Options of {@link createRedisRunJournal}.
 *
 * @category The gate
 */
export interface RedisRunJournalOptions {
  /**
   * The host's `ioredis` client (6.x). It may be brand new: the journal waits for its first
   * connection attempt (at most `timeoutMs`), and never for a reconnect.
   */
  client: Redis;
  /** Prepended to every key (default {@link DEFAULT_REDIS_JOURNAL_KEY_PREFIX}). */
  keyPrefix?: string;
  /**
   * The longest a run's keys are kept, in seconds. Without it they expire with the run's token
   * (`pauses.ttlMs` of the gate); with it, at whichever comes first.
   */
  ttlSeconds?: number;
  /**
   * How long one journal operation may wait for Redis, in milliseconds (default 1000), and how
   * long the first connection attempt is waited for. Past it the operation rejects, and the gate
   * answers `journal_unavailable`.
   */
  timeoutMs?: number;
  /**
   * The most bytes read back for one paused run, and for all the call records of one run together
   * (default {@link DEFAULT_REDIS_JOURNAL_MAX_BYTES}). A larger entry is not read: the operation
   * rejects. A larger one is not written either: the door answers `pause_too_large`.
   */
  maxBytes?: number;
  /**
   * The most paused runs one scope (a session, a user) keeps at once (default
   * {@link DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE}); past it a new pause of that scope answers
   * `pauses_full`, and other scopes are untouched.
   */
  maxRunsPerScope?: number;
}

/**
 * The default key prefix of the Redis run journal.
 *
 * @category The gate
 */
export const DEFAULT_REDIS_JOURNAL_KEY_PREFIX = 'toolweave:run:';
/**
 * The default bound on what the Redis run journal reads back for one run: 8 MB.
 *
 * @category The gate
 */
export const DEFAULT_REDIS_JOURNAL_MAX_BYTES = 8 * 1024 * 1024;
/** The most call records read back for one run (each is at least a few dozen bytes, so `maxBytes` alone would let a server count millions). */
const MAX_RECORDS = 100_000;

/**
 * Count run ARGV[1] among its scope's paused runs (KEYS[1]) until ARGV[2], the time now being
 * ARGV[3]: 1 when it is counted, 0 when the scope already has ARGV[4] other runs that have not
 * expired. The set expires with its last run.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1`;

/** Store a paused run (of scope ARGV[5]); a new pause is claimed afresh. Both keys expire at ARGV[4]. */
const SAVE = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'run', ARGV[1], 'pause', ARGV[2], 'expiresAt', ARGV[3], 'claimedUntil', '0', 'scope', ARGV[5])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1`;

/** Read a paused run: its JSON, nil, or its size when it is over ARGV[1]. */
const LOAD = `
local size = redis.call('HSTRLEN', KEYS[1], 'run')
if size > tonumber(ARGV[1]) then return size end
return redis.call('HGET', KEYS[1], 'run')`;

/**
 * Record a call: its records live as long as the run (or, before the run is saved, ARGV[3] ms,
 * in case the process stops between the two).
 */
const RECORD = `
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
elseif redis.call('PTTL', KEYS[2]) < 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 1`;

/** Read every record: a flat [position, json, ...] list; or, over its bound, the size (or minus the count). */
const RECORDS = `
local count = redis.call('HLEN', KEYS[1])
if count > tonumber(ARGV[2]) then return -count end
local fields = redis.call('HKEYS', KEYS[1])
local size = 0
for i = 1, #fields do
  size = size + #fields[i] + redis.call('HSTRLEN', KEYS[1], fields[i])
end
if size > tonumber(ARGV[1]) then return size end
return redis.call('HGETALL', KEYS[1])`;

/** Claim pause ARGV[1] until ARGV[2], the time now being ARGV[3]: 1 when claimed, 0 when not. */
const CLAIM = `
local stored = redis.call('HMGET', KEYS[1], 'pause', 'expiresAt', 'claimedUntil')
if not stored[1] or tonumber(stored[1]) ~= tonumber(ARGV[1]) then return 0 end
local now = tonumber(ARGV[3])
if tonumber(stored[2]) <= now then return 0 end
if stored[3] and tonumber(stored[3]) > now then return 0 end
redis.call('HSET', KEYS[1], 'claimedUntil', ARGV[2])
return 1`;

/** Extend the claim on pause ARGV[1] made until ARGV[2] to ARGV[3]: 1 when it was still that claim, 0 when not. */
const RENEW = `
local stored = redis.call('HMGET', KEYS[1], 'pause', 'claimedUntil')
if not stored[1] or tonumber(stored[1]) ~= tonumber(ARGV[1]) or stored[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'claimedUntil', ARGV[3])
return 1`;

/** The two keys of run `runId`. */
function keysOf(prefix: string, runId: string): [run: string, calls: string] {
  return [`${prefix}{${runId}}:run`, `${prefix}{${runId}}:calls`];
}

/** The key of the paused runs of `scope`: hashed, so any scope makes a short key of its own. */
function scopeKeyOf(prefix: string, scope: string): string {
  return `${prefix}scope:${createHash('sha256').update(scope).digest('base64url')}`;
}

/** An entry read back that this journal did not write, or that was changed since. */
class BadEntry extends Error {}

/** `value` parsed as the JSON object it must be, checked by `fits`. */
function parseEntry(what: string, raw: unknown, fits: (value: Record<string, unknown>) => boolean): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : '');
  } catch {
    throw new BadEntry(`Redis run journal: ${what} is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !fits(value as Record<string, unknown>)) {
    throw new BadEntry(`Redis run journal: ${what} is not one this journal wrote`);
  }
  return value as Record<string, unknown>;
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Create a {@link RunJournal} in Redis, so a run paused in one process can be resumed in another.
 *
 * Give it to every gate that may pause or
 * resume a run (`createStepGate({ journal })`): a token then resumes wherever it is used. A claim
 * is one atomic script, so of two processes resuming one token at once, one runs and the other
 * answers `resume_busy`; whether a claim has lapsed is read on the clock of the process that
 * claims, so the hosts' clocks must agree to well within the lease (`pauses.leaseMs`). A run's
 * keys expire with its token (or after `ttlSeconds`, if sooner). Each scope keeps at most
 * `maxRunsPerScope` paused runs: past it a new pause of that scope answers `pauses_full` (with the
 * run's effects), and no other scope's run is touched. Needs Redis 4 or later.
 *
 * Runs and records are stored as JSON: a tool's result is kept as `JSON.stringify` writes it. A
 * run or record JSON cannot hold (a BigInt, a cycle) is refused with `pause_not_storable`, one over
 * `maxBytes` with `pause_too_large`: the door says so, with every effect the run had. What is read
 * back is bounded too (`maxBytes`); an entry over it, one that is not JSON this journal wrote, a
 * timeout or a lost connection rejects, so the gate answers `journal_unavailable`.
 *
 * @throws TypeError when `client` is missing, RangeError when an option is out of range
 * (programming errors, not results).
 *
 * @example
 * ```ts
 * const journal = createRedisRunJournal({ client: new Redis(process.env.REDIS_URL!), ttlSeconds: 86_400 });
 * const gate = createStepGate({ resolve, approvals, journal });
 * ```
 *
 * @category The gate
 */
export function createRedisRunJournal(options: RedisRunJournalOptions): RunJournal {
  const { client } = options;
  if (client === null || typeof client !== 'object' || typeof client.status !== 'string') {
    throw new TypeError('createRedisRunJournal: client must be an ioredis instance.');
  }
  const prefix = options.keyPrefix ?? DEFAULT_REDIS_JOURNAL_KEY_PREFIX;
  const ttlMs = options.ttlSeconds === undefined ? undefined : positiveOption('createRedisRunJournal', 'ttlSeconds', options.ttlSeconds, 1) * 1000;
  const timeoutMs = positiveOption('createRedisRunJournal', 'timeoutMs', options.timeoutMs, DEFAULT_REDIS_TIMEOUT_MS);
  const maxBytes = positiveOption('createRedisRunJournal', 'maxBytes', options.maxBytes, DEFAULT_REDIS_JOURNAL_MAX_BYTES);
  const maxRunsPerScope = Math.floor(positiveOption('createRedisRunJournal', 'maxRunsPerScope', options.maxRunsPerScope, DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE));
  const connection = connectionOver(client, timeoutMs);

  /** Send `command`: its answer, or a rejection that says why there is none. */
  async function send<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    const answer = await connection.attempt(command);
    if (answer.ok) return answer.value;
    const why = answer.error instanceof Error ? answer.error.message : String(answer.error ?? 'no answer');
    throw new Error(`Redis run journal: ${why}`);
  }
  /** Run `script` over `keys` with `args`. */
  const evaluate = (script: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> =>
    send((redis) => redis.eval(script, keys.length, ...keys, ...args.map(String)));

  /** `value` as JSON; refused (with what it is) when JSON cannot hold it, or when it could not be read back. */
  function encode(what: string, value: unknown, details: Record<string, unknown>): string {
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new RunJournalRefusal('pause_not_storable', `The run journal could not store ${what}: it holds a value JSON cannot (${why}), so the run did not pause.`, details);
    }
    const bytes = Buffer.byteLength(json);
    if (bytes > maxBytes) {
      throw new RunJournalRefusal('pause_too_large', `The run journal could not store ${what}: it is ${bytes} bytes as JSON, over the ${maxBytes} bytes it keeps (maxBytes), so the run did not pause.`, { ...details, bytes, maxBytes });
    }
    return json;
  }

  return {
    async save(run) {
      const json = encode('the paused run', run, {});
      const expireAt = Math.floor(ttlMs === undefined ? run.expiresAt : Math.min(run.expiresAt, Date.now() + ttlMs));
      const scopeKey = scopeKeyOf(prefix, run.scope);
      if ((await evaluate(ADMIT, [scopeKey], [run.runId, expireAt, Date.now(), maxRunsPerScope])) !== 1) {
        throw new RunJournalRefusal('pauses_full', `The run journal refused the pause: its scope already keeps ${maxRunsPerScope} paused runs. Answer or drop some of the waiting runs first.`, { maxRunsPerScope });
      }
      try {
        await evaluate(SAVE, keysOf(prefix, run.runId), [json, run.pause, run.expiresAt, expireAt, run.scope]);
      } catch (error) {
        await send((redis) => redis.zrem(scopeKey, run.runId)).catch(() => undefined);
        throw error;
      }
    },

    async load(runId) {
      const raw = await evaluate(LOAD, keysOf(prefix, runId).slice(0, 1), [maxBytes]);
      if (raw === null) return undefined;
      if (typeof raw === 'number') throw new Error(`Redis run journal: run ${runId} is ${raw} bytes, over the ${maxBytes} bytes this journal reads`);
      const run = parseEntry(
        `run ${runId}`,
        raw,
        (r) =>
          r.runId === runId &&
          isCount(r.pause) &&
          typeof r.door === 'string' &&
          typeof r.scope === 'string' &&
          typeof r.expiresAt === 'number' &&
          Array.isArray(r.pending),
      ) as unknown as PausedRun;
      // As the memory journal: a run past its expiry is gone, whatever Redis still holds.
      return run.expiresAt <= Date.now() ? undefined : run;
    },

    async record(runId, record) {
      const fallbackMs = ttlMs ?? DEFAULT_PAUSE_TTL_MS;
      const what = `the result of "${record.tool}" at ${record.position}`;
      await evaluate(RECORD, keysOf(prefix, runId), [record.position, encode(what, record, { tool: record.tool, position: record.position }), fallbackMs]);
    },

    async records(runId) {
      const raw = await evaluate(RECORDS, keysOf(prefix, runId).slice(1), [maxBytes, MAX_RECORDS]);
      if (typeof raw === 'number') {
        const over = raw < 0 ? `${-raw} records, over the ${MAX_RECORDS}` : `${raw} bytes, over the ${maxBytes} bytes`;
        throw new Error(`Redis run journal: the records of run ${runId} are ${over} this journal reads`);
      }
      if (!Array.isArray(raw)) throw new BadEntry(`Redis run journal: the records of run ${runId} are not a hash`);
      const records: RunCallRecord[] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const position: unknown = raw[i];
        const record = parseEntry(
          `the record at ${String(position)} of run ${runId}`,
          raw[i + 1],
          (r) =>
            r.position === position &&
            typeof r.tool === 'string' &&
            typeof r.argsKey === 'string' &&
            isCount(r.attempt) &&
            (r.result === undefined || (typeof r.result === 'object' && r.result !== null)),
        );
        records.push(record as unknown as RunCallRecord);
      }
      return records;
    },

    async claim(runId, pause, until) {
      // A claim whose answer comes too late may still have been made: the token then answers
      // resume_busy until the lease lapses, never runs twice at once.
      const claimed = await evaluate(CLAIM, keysOf(prefix, runId).slice(0, 1), [pause, Math.floor(until), Date.now()]);
      return claimed === 1;
    },

    async renew(runId, pause, from, until) {
      const renewed = await evaluate(RENEW, keysOf(prefix, runId).slice(0, 1), [pause, String(Math.floor(from)), Math.floor(until)]);
      return renewed === 1;
    },

    async remove(runId) {
      const keys = keysOf(prefix, runId);
      const scope = await send((redis) => redis.hget(keys[0], 'scope'));
      await send((redis) => redis.del(...keys));
      // Its scope's count goes down with it (or when its score passes, had this not been reached).
      if (scope !== null) await send((redis) => redis.zrem(scopeKeyOf(prefix, scope), runId));
    },
  };
}
