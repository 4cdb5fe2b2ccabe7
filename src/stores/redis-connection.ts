/**
 * Talking to the host's Redis client within bounds. The client may be brand new (not yet
 * connected, its offline queue possibly off), connected, or reconnecting after a loss:
 *
 * - the first connection attempt is waited for, at most `timeoutMs`;
 * - after it, a command is sent only while the client is ready: a reconnect is never waited on,
 *   and nothing piles up in the client's offline queue;
 * - every command is given `timeoutMs` to answer (Redis may be paused or overloaded), and at most
 *   {@link MAX_IN_FLIGHT} may be unanswered at once, so a stalled server cannot grow the queue.
 *
 * The client itself reconnects when Redis comes back; nothing here closes or replaces it.
 */
import type { Redis } from 'ioredis';

/** The most commands sent and not yet answered (late answers included) before new ones fail fast. */
export const MAX_IN_FLIGHT = 64;

/**
 * The default bound on one store or journal operation: one second.
 *
 * @category Observations
 */
export const DEFAULT_REDIS_TIMEOUT_MS = 1000;

/** Option `name` of factory `of` as a positive whole number, or `fallback` when it is not given. */
export function positiveOption(of: string, name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${of}: ${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

/** A command's answer, or why there is none (`error`: what Redis or the client said, when either did). */
export type Attempt<T> = { ok: true; value: T } | { ok: false; error?: unknown };

/** The client states from which the first connection attempt may still succeed. */
const FIRST_ATTEMPT_STATES = new Set(['wait', 'connecting', 'connect']);
/** The client events that end a connection attempt, one way or the other. */
const ATTEMPT_ENDS = ['ready', 'error', 'close', 'end'] as const;

/** Resolve after `ms`, or when `settle` is called; the timer never keeps the process alive. */
function settleWithin(ms: number, listen: (settle: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    let stop = (): void => {};
    const timer = setTimeout(() => settle(), ms);
    timer.unref();
    function settle(): void {
      clearTimeout(timer);
      stop();
      resolve();
    }
    stop = listen(settle);
  });
}

/** Sends commands through `client` within the bounds above. */
export interface RedisConnection {
  /** Run `command` if the client is (or, on the first attempt, becomes) ready, within the timeout. */
  attempt<T>(command: (client: Redis) => Promise<T>): Promise<Attempt<T>>;
}

/** A {@link RedisConnection} over the host's `client`, each wait bounded by `timeoutMs`. */
export function connectionOver(client: Redis, timeoutMs: number): RedisConnection {
  let firstAttempt: Promise<void> | undefined;
  let firstAttemptOver = false;
  let inFlight = 0;

  /** Wait (once, bounded) for the client's first connection attempt to end. */
  function awaitFirstAttempt(): Promise<void> {
    firstAttempt ??= settleWithin(timeoutMs, (settle) => {
      for (const event of ATTEMPT_ENDS) client.once(event, settle);
      // A lazy client connects on its first command; with its offline queue off that command
      // would fail at once, so the connection is opened here and waited for.
      if (client.status === 'wait') client.connect().catch(() => {});
      return () => {
        for (const event of ATTEMPT_ENDS) client.off(event, settle);
      };
    }).then(() => {
      firstAttemptOver = true;
    });
    return firstAttempt;
  }

  /** Whether the client can send a command now (read afresh: it changes while we wait). */
  const clientReady = (): boolean => client.status === 'ready';

  /** Whether a command may be sent now. */
  async function isReady(): Promise<boolean> {
    if (clientReady()) {
      firstAttemptOver = true;
      return true;
    }
    if (firstAttemptOver || !FIRST_ATTEMPT_STATES.has(client.status)) return false;
    await awaitFirstAttempt();
    return clientReady();
  }

  /** Run `command` if the client is ready, within the timeout and the in-flight bound. */
  async function attempt<T>(command: (client: Redis) => Promise<T>): Promise<Attempt<T>> {
    if (!(await isReady())) return { ok: false, error: new Error(`Redis is not connected (client status: ${client.status})`) };
    // Checked and counted together, after the wait, so calls that waited side by side count each other.
    if (inFlight >= MAX_IN_FLIGHT) return { ok: false, error: new Error(`${MAX_IN_FLIGHT} Redis commands are already waiting for an answer`) };
    inFlight++;
    // Called inside an async function so that a command that throws at once is a rejection too.
    const pending = (async () => command(client))().finally(() => inFlight--);
    let answer: Attempt<T> = { ok: false, error: new Error(`Redis did not answer within ${timeoutMs} ms`) };
    await settleWithin(timeoutMs, (settle) => {
      // A late answer (or failure) is dropped: the caller has been told the store is unavailable.
      pending.then(
        (value) => {
          answer = { ok: true, value };
          settle();
        },
        (error: unknown) => {
          answer = { ok: false, error };
          settle();
        },
      );
      return () => {};
    });
    return answer;
  }

  return { attempt };
}
