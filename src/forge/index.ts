/** Forging composites from recorded traffic: recording, flow, mining, generalization. */
export { RECORD_VERSION, DEFAULT_MAX_OUTPUT_CHARS, type CallRecord } from './record-format.js';
export { recordCalls, type RecordCallsOptions, type CallRecording } from './record-calls.js';
export { recordToDirectory, DEFAULT_MAX_SESSION_FILE_BYTES, type RecordToDirectoryOptions, type RecordingDirectory } from './record-files.js';
export { readRecordings, parseRecording, type RecordedSession, type ReadRecordingsOptions, type Recordings } from './read-recordings.js';
export { traceFlow, matchKey, type FlowSegment, type FlowSource, type ArgumentPart, type CallFlow } from './flow.js';
export { mineChains, chainsOf, pathText, valueAt, type PartConstruction, type StepShape, type ChainOccurrence, type ChainShape, type MineOptions, type SessionChain } from './mine.js';
export { generalizeChain, schemaOf, type ForgedComposite, type ForgedExample, type GeneralizeOptions } from './generalize.js';
