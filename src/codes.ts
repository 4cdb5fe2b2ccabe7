/**
 * Every refusal and failure code toolweave returns, in one list, each with what it means.
 * A result with `success: false` always carries one of these in `details.code`.
 */
import type { ToolExecutionResult, ToolResultDetails } from './tool.js';

/**
 * Each code and its meaning. The docs' refusal table is generated from the same words.
 *
 * @category Errors and codes
 */
export const ERROR_CODES = {
  // Spec and input
  spec_invalid: 'The spec failed its JSON Schema or its meaning checks; details.errors lists every problem.',
  input_invalid: "The composite's input failed its inputSchema; details.errors holds ajv's messages.",
  output_invalid: "The composite's output failed its outputSchema; details.errors holds ajv's messages.",
  compose_needs_gate: 'The builder has only a bare execute callback; bind a StepGate to compose.',
  // The chainability rule
  step_missing: 'The step names a tool the gate cannot resolve.',
  args_invalid: "The call's arguments do not match the called tool's inputSchema; details name the tool, the step and the fields.",
  step_not_chainable: 'The tool has side effects and the host has not listed it as chainable.',
  side_effects_undeclared: 'The tool does not declare whether it has side effects, so it is never chained.',
  // The gate
  permission_denied: "The host's permission check refused the call; details carry its reason and details.",
  approval_rejected: 'The approval for a side-effecting step was refused; details carry the reason.',
  flow_untrusted: "Untrusted data steers the call's arguments, or whether it is made at all, and the gate's flows policy refuses it (or no person can be asked); details.provenance says where each argument came from, details.control what decided the call is made.",
  approvals_full: "No person was asked about the call: the host's queue of questions, or this session's share of it, is full (details.reason says which). Try again once some waiting runs are answered.",
  approval_pending: 'A person will decide about a side-effecting call later: the run paused there (the call did not run, nothing after it started); details.resume is the token for resumeRun, details.pending the calls it waits on.',
  // Runs that wait for a person
  replay_diverged: 'resumeRun: the resumed run made another call (another tool, other arguments) than the journal recorded at its place; it stopped there and ran nothing more.',
  resume_token_unknown: 'resumeRun: no paused run has this token in this scope (never issued, already resumed, ended, evicted, or from another session).',
  resume_token_expired: 'resumeRun: the paused run\'s token has expired; start the work again.',
  resume_decisions_invalid: 'resumeRun: the decisions do not answer details.pending: one { approved: true } or { approved: false, reason? } per pending call, in order.',
  resume_busy: 'resumeRun: another resumption of the same token is still running (it renews its lease while it lives); try again after details.retryAfterMs if the process running it stopped.',
  resume_lease_lapsed: "resumeRun: the resumption's lease (pauses.leaseMs) lapsed before a side-effecting call, as it could not be renewed (the journal out of reach, or the process stalled), so it stopped there without running it (another may have taken the token over); resume again with the same token.",
  approval_not_waiting: 'answerApproval (toolweave/dbos): the workflow waits on no approval now (not paused yet, already answered, ended, or unknown); read pendingApproval first.',
  door_unregistered: 'toolweave/dbos: no door of that name was passed to registerDbosDoors in this process; register every door before DBOS.launch().',
  pauses_full: "The run journal keeps as many paused runs of the run's scope (session or user) as it allows, or as many as it allows in all, so the run did not pause; details.effects still lists what it did. Answer or drop that scope's waiting runs first.",
  pause_too_large: "The run journal would not store the paused run or one of its calls' results: it is over the journal's size bound (details.bytes, details.maxBytes; details.tool names the call), so the run did not pause; details.effects still lists what it did. Make the call's result smaller (a tighter read), or raise the journal's maxBytes.",
  pause_not_storable: "The run journal could not store the paused run or one of its calls' results: it holds a value the journal cannot (a BigInt, a cycle; details.tool names the call), so the run did not pause; details.effects still lists what it did. Make the tool return plain JSON.",
  journal_unavailable: 'The run journal could not be read or written; the run did not pause, or was not resumed.',
  step_aborted: 'The abort signal fired; the step did not run.',
  step_failed: "The step's tool returned a failure; its own code is in details.innerCode.",
  step_threw: 'The step threw or rejected instead of returning a result.',
  step_timeout: 'The step did not settle within its timeout.',
  step_bad_result: 'The step returned something that is not a ToolExecutionResult.',
  nesting_too_deep: 'The composition is nested MAX_COMPOSITION_DEPTH deep; the run is refused.',
  composition_cycle: 'A composition reached itself at its own call.',
  budget_exceeded: "A limit of the call's budget was reached (details.limit names it: calls, inFlight or sandboxes); no call starts past it.",
  // Dry runs
  dry_run_needs_output: 'A dry run reached a side-effecting or composite step with no output in dry.stepOutputs.',
  // Combinators
  check_failed: "try_and_check: the check failed; details.check holds the check's result.",
  items_not_array: 'for_each: the items did not resolve to an array.',
  too_many_items: 'for_each: more items than the maxItems bound allows.',
  // Agent-facing tools
  pipeline_too_long: 'run_pipeline: more steps than the configured bound.',
  pipeline_self_call: 'run_pipeline / compose: a step calls a batching tool itself.',
  // Script mode
  script_error: 'run_js: the script threw; details carry the message and line.',
  script_timeout: 'run_js: the script ran past its time limit, or computed past its slice without awaiting while other scripts waited for its thread (details.computedMs).',
  script_sandbox_lost: 'run_js: another script on the same sandbox thread would not stop, so the thread was stopped and this run ended early; details list the calls it made. Run it again.',
  script_memory: 'run_js: the script ran past its memory limit.',
  script_too_many_calls: 'run_js: the script made more tool calls than maxCalls.',
  script_args_too_large: "run_js: a call's arguments, or the run's calls together, passed more bytes than maxCallArgsBytes or maxRunArgsBytes; the call was not made.",
  script_result_too_large: "run_js: a tools.<name>() result is longer as JSON than a call may bring into the script (maxCallResultBytes); callTool gives its text, cut with a note.",
  script_return_too_large: 'run_js: the returned value is longer than maxReturnChars.',
  script_return_invalid: 'run_js: the returned value cannot be sent as JSON (a cycle, a function).',
  tool_interactive: 'run_js: the tool needs its own moment with a person or the host; call it directly.',
  // Framework adapters
  tool_failed: 'A tool imported from a framework (AI SDK, LangChain, OpenAI Agents) threw or answered with an error; the message is its own.',
  // Observations
  observation_unknown: 'get_observation: no observation was ever stored under this id.',
  observation_expired: 'get_observation: the observation was evicted; run the tool again.',
  observation_offset: 'get_observation: the offset is past the end of the observation.',
  observation_store_unavailable: 'get_observation: the observation store could not be reached in time; try again shortly.',
  // MCP (toolweave/mcp and the toolweave bin)
  tool_error: "An MCP tool answered isError: true; the message is the tool's own text.",
  upstream_error: 'An MCP server answered with a protocol error (details.mcpCode carries its JSON-RPC code), or with an answer that is not valid JSON-RPC or not a valid result; the message says what was wrong.',
  upstream_result_too_large: "An MCP server's answer was larger than one answer may be (details.bytes, details.maxBytes: the observation store's limit for one result); it was passed over unread and only that call failed.",
  upstream_unavailable: 'The MCP server is not connected (it could not start, never answered initialize, crashed or closed); details name the server. The proxy restarts it with backoff.',
  tool_name_collision: 'toolweave mcp: two servers offer a tool under one name; the first keeps it. Set prefix: true on one of them.',
  config_invalid: 'toolweave mcp / check: the config file, or a composite file it names, is wrong; the message names the file and the field.',
  recordings_unreadable: 'toolweave forge / readRecordings: the recordings folder cannot be read; details name it.',
  run_not_found: 'toolweave forge --from-run / forgeFromRun: no recorded run has that id; the message lists the ids the recordings hold.',
  run_failed: 'toolweave forge --from-run / forgeFromRun: the run did not succeed; forge from one that did.',
  run_not_composable: 'toolweave forge --from-run / forgeFromRun: which calls the run made depends on its data (details.reason: branches, partial_loop, call_failed, no_calls, unknown_script); nothing is written. Write the composite by hand, or remove the branch from the script.',
} as const;

/**
 * A code toolweave itself returns.
 *
 * @category Errors and codes
 */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The details of a toolweave failure: its code, plus whatever explains it.
 *
 * @category Errors and codes
 */
export interface FailureDetails extends ToolResultDetails {
  /** The code of the refusal or failure. */
  code: ErrorCode;
}

/**
 * Build a failure result: `{ success: false, error, details: { code, ...details } }`.
 *
 * @category Errors and codes
 */
export function failure(
  code: ErrorCode,
  error: string,
  details?: Record<string, unknown>,
): ToolExecutionResult<never> & { details: FailureDetails } {
  return { success: false, error, details: { ...details, code } };
}
