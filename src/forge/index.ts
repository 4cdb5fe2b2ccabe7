/** Forging composites from recorded traffic: recording, flow, mining, generalization. */
export { RECORD_VERSION, DEFAULT_MAX_OUTPUT_CHARS, type CallRecord } from './record-format.js';
export { recordCalls, type RecordCallsOptions, type CallRecording } from './record-calls.js';
export { recordToDirectory, DEFAULT_MAX_SESSION_FILE_BYTES, type RecordToDirectoryOptions, type RecordingDirectory } from './record-files.js';
