// Forging composites from recorded traffic: recording, flow, mining, generalization.
// A plain comment: a doc comment here would be read as the first export's.
export { RECORD_VERSION, DEFAULT_MAX_OUTPUT_CHARS, type CallRecord } from './record-format.js';
export { recordCalls, type RecordCallsOptions, type CallRecording } from './record-calls.js';
export { recordToDirectory, DEFAULT_MAX_SESSION_FILE_BYTES, type RecordToDirectoryOptions, type RecordingDirectory } from './record-files.js';
export { readRecordings, readRecordingFile, type RecordedSession, type ReadRecordingsOptions, type Recordings } from './read-recordings.js';
export { traceFlow, type FlowSegment, type FlowSource, type ArgumentPart, type CallFlow } from './flow.js';
export { mineChains, type PartConstruction, type StepShape, type ChainOccurrence, type ChainShape, type MineOptions, type SessionChain } from './mine.js';
export { generalizeChain, type ForgedComposite, type ForgedExample, type GeneralizeOptions } from './generalize.js';
export { forgeFromRun, recordedRuns, type ForgeFromRunOptions, type RecordedRun } from './from-run.js';
