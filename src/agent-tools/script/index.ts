// Script mode: `run_js`, one sandboxed JavaScript body whose tool calls all pass the gate.
// A plain comment: a doc comment here would be read as the first export's.
export { createScriptTool, type ScriptToolInput } from './script-tool.js';
export {
  DEFAULT_INTERACTIVE_TOOLS,
  DEFAULT_MAX_CALL_ARGS_BYTES,
  DEFAULT_MAX_CALL_RESULT_BYTES,
  DEFAULT_MAX_RUN_ARGS_BYTES,
  DEFAULT_MAX_RETURN_CHARS,
  DEFAULT_MAX_SCRIPT_CALLS,
  DEFAULT_SCRIPT_MEMORY_BYTES,
  DEFAULT_SCRIPT_TIMEOUT_MS,
  DEFAULT_SLOW_TIMEOUT_MS,
} from './limits.js';
export { type ScriptToolOptions } from './options.js';
export { type ScriptCallError, type ScriptCallResult } from './call-result.js';
export {
  createSandboxPool,
  DEFAULT_MAX_QUEUED_RUNS,
  DEFAULT_MAX_RUNS,
  DEFAULT_MEMORY_SHARE,
  DEFAULT_SLICE_MS,
  MAX_THREADS,
  type SandboxPool,
  type SandboxPoolOptions,
  type SandboxPoolStats,
} from './pool.js';
