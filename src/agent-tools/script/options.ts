/**
 * The options of `run_js` and the limits they resolve to, so the tool and the sandbox read one
 * resolved object.
 */
import { toToolSet, type SideEffectingTools } from '../../gate/stages/chainable.js';
import type { ObservationScope } from '../observations/observation-scope.js';
import type { ScriptDiscovery, ScriptDiscoveryOptions } from '../../discovery/script-discovery.js';
import type { SandboxPool } from './pool.js';
import {
  DEFAULT_INTERACTIVE_TOOLS,
  DEFAULT_MAX_CALL_ARGS_BYTES,
  DEFAULT_MAX_CALL_RESULT_BYTES,
  DEFAULT_MAX_RETURN_CHARS,
  DEFAULT_MAX_RUN_ARGS_BYTES,
  DEFAULT_MAX_SCRIPT_CALLS,
  DEFAULT_SCRIPT_MEMORY_BYTES,
  DEFAULT_SCRIPT_TIMEOUT_MS,
  DEFAULT_SLOW_TIMEOUT_MS,
} from './limits.js';

/**
 * What `createScriptTool` takes. Every field is optional; the defaults are the constants above.
 *
 * @category Code mode / discovery
 */
export interface ScriptToolOptions {
  /**
   * The host's list of side-effecting tools a script may call, with the same meaning as in the
   * chainability rule: an unlisted side-effecting tool is refused (`step_not_chainable`).
   */
  sideEffectingTools?: SideEffectingTools;
  /** The run's time limit, in milliseconds. Default {@link DEFAULT_SCRIPT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Tools whose call stretches the run's limit to `slowTimeoutMs` (build and test commands). */
  slowTools?: readonly string[];
  /** The limit, from the run's start, once a slow tool is called. Default {@link DEFAULT_SLOW_TIMEOUT_MS}. */
  slowTimeoutMs?: number;
  /** The sandbox's heap limit, in bytes. Default {@link DEFAULT_SCRIPT_MEMORY_BYTES}. */
  memoryLimitBytes?: number;
  /**
   * How many `callTool` calls one run may make. The call past the bound is not made: it resolves
   * in the script to `{ text: "", error: { code: "script_too_many_calls" } }`, so the script can
   * still return what it has; its answer then ends with a line saying how many calls were not
   * made, and `details.incomplete` is set. Default {@link DEFAULT_MAX_SCRIPT_CALLS}.
   */
  maxCalls?: number;
  /** The most one call's `text` may carry, in UTF-8 bytes; longer text is cut with a note. */
  maxCallResultBytes?: number;
  /** The longest answer, in characters; a longer one fails with `script_return_too_large`. */
  maxReturnChars?: number;
  /**
   * The most one call's arguments may carry, in UTF-8 bytes of their JSON. A call past it is not
   * made: it resolves in the script to the `script_args_too_large` error. Default
   * {@link DEFAULT_MAX_CALL_ARGS_BYTES}.
   */
  maxCallArgsBytes?: number;
  /**
   * The most the arguments of all of one run's calls may carry together, in UTF-8 bytes of JSON;
   * the call that would pass it is refused like one too large on its own. It bounds what a script
   * can push into the host's memory, whatever its heap. Default {@link DEFAULT_MAX_RUN_ARGS_BYTES}.
   */
  maxRunArgsBytes?: number;
  /**
   * The sandboxes runs take their worker from (see {@link createSandboxPool}). Default: one pool
   * per process, shared by every tool given none.
   */
  pool?: SandboxPool;
  /**
   * Whose run it is, from the call's context, for the pool's fair shares: runs of one scope hold
   * at most `maxRunsPerScope` of the pool's places. Default: the session the context carries, else
   * its user (as observations are scoped); contexts with neither share one scope.
   */
  scope?: ObservationScope;
  /**
   * How scripts find tools: `searchTools(query, limit?)` and `describeTools(names)` search the
   * tools a script may call (every tool the gate names, by default), and with `codeOnly: true` the
   * tool's description says how to find them and names their groups, for a host that offers the
   * model run_js alone. A discovery made already (`createScriptDiscovery`) may be given instead,
   * to share it with the usage guide.
   */
  discovery?: ScriptDiscoveryOptions | ScriptDiscovery;
  /**
   * More tools refused inside a script (`tool_interactive`), on top of
   * {@link DEFAULT_INTERACTIVE_TOOLS}; the model calls them directly instead.
   */
  interactiveTools?: readonly string[];
  /**
   * With the gate's `flows`: analyse each script before it runs, and label each of its calls by
   * what it may depend on (the answers of the calls its arguments, and its being made, may be
   * built from), instead of by all the script has read so far. A script the analysis cannot
   * follow runs with the one label, as with `false`. Default `true`.
   */
  preciseLabels?: boolean;
}

/** {@link ScriptToolOptions} with every default applied and every list turned into a set. */
export interface ScriptLimits {
  /** See {@link ScriptToolOptions.sideEffectingTools}. */
  sideEffectingTools: ReadonlySet<string>;
  /** See {@link ScriptToolOptions.timeoutMs}. */
  timeoutMs: number;
  /** See {@link ScriptToolOptions.slowTools}. */
  slowTools: ReadonlySet<string>;
  /** See {@link ScriptToolOptions.slowTimeoutMs}. */
  slowTimeoutMs: number;
  /** See {@link ScriptToolOptions.memoryLimitBytes}. */
  memoryLimitBytes: number;
  /** See {@link ScriptToolOptions.maxCalls}. */
  maxCalls: number;
  /** See {@link ScriptToolOptions.maxCallResultBytes}. */
  maxCallResultBytes: number;
  /** See {@link ScriptToolOptions.maxReturnChars}. */
  maxReturnChars: number;
  /** See {@link ScriptToolOptions.maxCallArgsBytes}. */
  maxCallArgsBytes: number;
  /** See {@link ScriptToolOptions.maxRunArgsBytes}. */
  maxRunArgsBytes: number;
  /** See {@link ScriptToolOptions.interactiveTools}. */
  interactiveTools: ReadonlySet<string>;
  /** See {@link ScriptToolOptions.preciseLabels}. */
  preciseLabels: boolean;
}

/** Apply the defaults. A bound that is missing, not a number, or not positive takes its default. */
export function resolveScriptLimits(options: ScriptToolOptions = {}): ScriptLimits {
  return {
    sideEffectingTools: toToolSet(options.sideEffectingTools),
    timeoutMs: positive(options.timeoutMs, DEFAULT_SCRIPT_TIMEOUT_MS),
    slowTools: new Set(options.slowTools ?? []),
    slowTimeoutMs: positive(options.slowTimeoutMs, DEFAULT_SLOW_TIMEOUT_MS),
    memoryLimitBytes: positive(options.memoryLimitBytes, DEFAULT_SCRIPT_MEMORY_BYTES),
    // maxCalls may be 0 (a script that may only compute), so it has its own check.
    maxCalls:
      typeof options.maxCalls === 'number' && options.maxCalls >= 0 ? Math.floor(options.maxCalls) : DEFAULT_MAX_SCRIPT_CALLS,
    maxCallResultBytes: positive(options.maxCallResultBytes, DEFAULT_MAX_CALL_RESULT_BYTES),
    maxReturnChars: positive(options.maxReturnChars, DEFAULT_MAX_RETURN_CHARS),
    maxCallArgsBytes: positive(options.maxCallArgsBytes, DEFAULT_MAX_CALL_ARGS_BYTES),
    maxRunArgsBytes: positive(options.maxRunArgsBytes, DEFAULT_MAX_RUN_ARGS_BYTES),
    interactiveTools: new Set([...DEFAULT_INTERACTIVE_TOOLS, ...(options.interactiveTools ?? [])]),
    preciseLabels: options.preciseLabels !== false,
  };
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
