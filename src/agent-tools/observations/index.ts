/**
 * Observations: large tool results stored whole, previewed in the conversation, paged back with
 * get_observation.
 */
export type {
  ObservationLookup,
  ObservationMeta,
  ObservationMissCode,
  ObservationStore,
} from './observation-store.js';
export {
  createObservationStore,
  DEFAULT_OBSERVATION_STORE_BYTES,
  DEFAULT_OBSERVATION_STORE_ENTRIES,
  type MemoryObservationStore,
  type ObservationStoreOptions,
} from './memory-store.js';
export { withObservations, type WithObservationsOptions } from './with-observations.js';
export {
  createGetObservationTool,
  GET_OBSERVATION_MAX_BYTES,
  GET_OBSERVATION_MAX_LINES,
  type GetObservationToolOptions,
} from './get-observation-tool.js';
