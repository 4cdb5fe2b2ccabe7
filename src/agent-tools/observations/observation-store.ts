/**
 * Where large tool results are kept so the conversation only carries a preview and an id.
 * An interface, so a host can put its own store (a database, a shared cache) behind it. Every
 * method answers with a promise: a remote store cannot answer at once, and callers always await.
 *
 * A store keeps bodies immutable, indexed by line (see {@link IndexedBody}), and scoped: a body
 * is read only under the scope it was stored with, and under any other scope its id reads
 * exactly like one never issued.
 */
import type { IndexedBody } from './indexed-body.js';
import type { ObservationPage, ObservationPageRequest } from './observation-page.js';

/**
 * What is recorded alongside a stored body.
 *
 * @category Observations
 */
export interface ObservationMeta {
  /** The name of the tool whose output this is. */
  tool?: string;
  /**
   * Where the output came from: its label as the gate made it for the call (a gate with `flows`;
   * see {@link Label}), as plain JSON. A store keeps it and gives it back as it was given. The
   * gate reads what get_observation answers with it: a label that is missing or malformed reads
   * as untrusted.
   */
  label?: unknown;
}

/**
 * The answer to {@link ObservationStore.put}: the new id, or why the body was not stored.
 *
 * @category Observations
 */
export type ObservationPut =
  | {
      /** The body was stored. */
      ok: true;
      /** Its new id (`obs_...`). */
      id: string;
    }
  | {
      /** The body was not stored. */
      ok: false;
      /** `too_large`: the store declines bodies this size; `unavailable`: the store could not be reached in time. */
      reason: 'too_large' | 'unavailable';
    };

/**
 * Why a read found nothing.
 *
 * It was never issued under this scope (`observation_unknown`), issued here
 * and since evicted or expired (`observation_expired`), or the store could not be reached in
 * time (`observation_store_unavailable`).
 *
 * @category Observations
 */
export type ObservationMissCode = 'observation_unknown' | 'observation_expired' | 'observation_store_unavailable';

/**
 * The answer to {@link ObservationStore.read}: a page and the body's size, or why there is none.
 *
 * @category Observations
 */
export type ObservationRead =
  | {
      /** The id was found in this scope. */
      ok: true;
      /** How many lines the whole body has. */
      lines: number;
      /** The whole body's UTF-8 size. */
      bytes: number;
      /** What was recorded with it. */
      meta: ObservationMeta;
      /** The page asked for (empty when the offset is at or past the end). */
      page: ObservationPage;
    }
  | {
      /** The id was not read. */
      ok: false;
      /** Why. */
      code: ObservationMissCode;
    };

/**
 * A store of immutable, scoped observation bodies, addressed by `obs_` ids.
 *
 * @category Observations
 */
export interface ObservationStore {
  /**
   * Store a body under `scope` and return its new id. Storing the same text twice yields two
   * ids. Should answer within a short bound: the model's result waits on it.
   */
  put(body: IndexedBody, scope: string, meta?: ObservationMeta): Promise<ObservationPut>;
  /**
   * Read one page of a body stored under `scope` (see {@link readPage}). A read counts as a use
   * for eviction. An id stored under another scope answers `observation_unknown`.
   */
  read(id: string, scope: string, request: ObservationPageRequest): Promise<ObservationRead>;
}
