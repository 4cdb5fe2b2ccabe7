/**
 * Where large tool results are kept so the conversation only carries a preview and an id.
 * An interface, so a host can put its own store (disk, a database, a shared cache) behind it;
 * every method may answer synchronously or with a promise, and callers always await.
 */

/** What is recorded alongside a stored body. */
export interface ObservationMeta {
  /** The name of the tool whose output this is. */
  tool?: string;
}

/** Why a lookup found nothing: never stored, or stored and since evicted. */
export type ObservationMissCode = 'observation_unknown' | 'observation_expired';

/** The answer to {@link ObservationStore.get}: the stored body, or why there is none. */
export type ObservationLookup =
  | {
      /** The id was found. */
      ok: true;
      /** The body exactly as stored: a later read returns the same text even if its source changed. */
      body: string;
      /** What was recorded with it. */
      meta: ObservationMeta;
    }
  | {
      /** The id was not found. */
      ok: false;
      /** `observation_unknown`: never issued by this store; `observation_expired`: evicted. */
      code: ObservationMissCode;
    };

/** A store of immutable observation bodies, addressed by `obs_` ids. */
export interface ObservationStore {
  /**
   * Store a body and return its new id (`obs_...`), or `undefined` when the store declines it
   * (the in-memory store declines a body larger than its whole budget). Storing the same text
   * twice yields two ids.
   */
  put(body: string, meta?: ObservationMeta): string | undefined | Promise<string | undefined>;
  /** Look up a body by id. A lookup counts as a use for eviction. */
  get(id: string): ObservationLookup | Promise<ObservationLookup>;
}
