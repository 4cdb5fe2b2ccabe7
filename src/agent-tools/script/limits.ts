/**
 * The bounds every `run_js` run is held to, with their defaults. Named once here, so the tool, the
 * pool and the sandbox read the same values.
 */

/**
 * A run's default time limit: 30 seconds.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 30_000;
/**
 * The time limit once a script calls a slow tool: 30 minutes from the run's start.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_SLOW_TIMEOUT_MS = 1_800_000;
/**
 * The sandbox's default heap: 64 MB.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_SCRIPT_MEMORY_BYTES = 64 * 1024 * 1024;
/**
 * The default number of `callTool` calls one run may make.
 *
 * It leaves room for real scripts (reading every
 * file of a folder). The call budget bounds what they cost; this bounds one run.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_SCRIPT_CALLS = 1000;
/**
 * The most one nested call's text may carry into the script: 48 KB (UTF-8 bytes).
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_CALL_RESULT_BYTES = 48 * 1024;
/**
 * The longest answer a script may return: 16,000 characters.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_RETURN_CHARS = 16_000;
/**
 * The most one call's arguments may carry out of the script: 1 MB (UTF-8 bytes of JSON).
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_CALL_ARGS_BYTES = 1024 * 1024;
/**
 * The most the arguments of one run's calls may carry out of the script together: 8 MB.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_RUN_ARGS_BYTES = 8 * 1024 * 1024;

/**
 * Tools always refused inside a script; a host's `interactiveTools` adds to them.
 *
 * Each needs
 * its own moment in the interface (a question to a person, a tool search, a browser, an MCP
 * connection), or, for `spawn_agent`, would nest one agent inside another where it is hard to
 * follow and hard to stop. A tool that declares `interactive: true` is refused whatever the list.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_INTERACTIVE_TOOLS: readonly string[] = Object.freeze([
  'ask_user',
  'tool_search',
  'browser',
  'connect_mcp',
  'spawn_agent',
]);
