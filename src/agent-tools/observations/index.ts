// Observations: large tool results stored whole, previewed in the conversation, paged back with
// get_observation. A plain comment: a doc comment here would be read as the first export's.
export type {
  ObservationMeta,
  ObservationMissCode,
  ObservationPut,
  ObservationRead,
  ObservationStore,
} from './observation-store.js';
export { indexBody, lineCount, type IndexedBody } from './indexed-body.js';
export { bodySource, readPage, type ObservationPage, type ObservationPageRequest, type PageSource } from './observation-page.js';
export { isObservationId, newObservationId, seededObservationIds, OBSERVATION_ID_PREFIX } from './observation-id.js';
export type { ObservationScope } from './observation-scope.js';
export { defaultObservationScope } from '../../session-scope.js';
export {
  createObservationStore,
  DEFAULT_OBSERVATION_STORE_BYTES,
  DEFAULT_OBSERVATION_STORE_ENTRIES,
  type ObservationStoreOptions,
} from './memory-store.js';
export { withObservations, type WithObservationsOptions } from './with-observations.js';
export {
  createGetObservationTool,
  GET_OBSERVATION_MAX_BYTES,
  GET_OBSERVATION_MAX_LINES,
  type GetObservationToolOptions,
} from './get-observation-tool.js';
export { MAX_IDS_PER_CALL } from './get-observation-input.js';
