/**
 * `run_js`: the model writes one async function body, the body calls tools through `callTool`,
 * and only its answer comes back. Every call passes the same StepGate a declarative pipeline
 * uses, so the chainability rule, permissions, approvals, depth and abort hold here too.
 */
import { failure } from '../../codes.js';
import { createScriptDiscovery, type ScriptDiscovery, type ScriptDiscoveryOptions } from '../../discovery/script-discovery.js';
import { messageOf } from '../../gate/message-of.js';
import type { StepGate } from '../../gate/options.js';
import { Door } from '../../doors/door.js';
import { defaultObservationScope } from '../../session-scope.js';
import type { ITool } from '../../tool.js';
import { SCRIPT_TOOL_NAME } from '../batching-names.js';
import { resolveScope } from '../observations/observation-scope.js';
import { resolveScriptLimits, type ScriptToolOptions } from './options.js';
import { defaultSandboxPool } from './pool.js';
import { runScript } from './script-run.js';

/**
 * The arguments of `run_js`.
 *
 * @category Code mode / discovery
 */
export interface ScriptToolInput {
  /** The body of an async function; `callTool(name, args)` is in scope. */
  code: string;
}

/**
 * The description the model reads. Kept to three short sentences: the definition is sent on
 * every turn, so each word costs every request.
 */
function description(maxCalls: number): string {
  return (
    'Run an async JS function body in a sandbox. await callTool(name, args) gives {text, error} (error null if ok); ' +
    `Promise.all runs calls at once. Max ${maxCalls} calls. Return only the answer.`
  );
}

/**
 * Only `code`: the tool reads nothing else, and the definition is sent on every turn. (An
 * `intention` field, once listed, is not asked for; a model that still sends one is not refused.)
 */
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string' },
  },
  required: ['code'],
};

/**
 * Make the `run_js` tool: the model's scripts, every call they make through `gate`.
 *
 * It runs one JavaScript body in a fresh QuickJS sandbox, whose only way
 * out is `callTool(name, args)`, which resolves every call through `gate`. The sandbox runs on a
 * worker thread from a bounded pool, so a script never blocks the host's event loop, and the time
 * limit holds whatever the script does: at the deadline the worker is stopped.
 *
 * - Inside the script a call resolves to `{ text, error }`: `text` is the output (a string as
 *   written, anything else as JSON, cut to `maxCallResultBytes` with a note), always a string;
 *   `error` is `null` on success, else `{ code, message, innerCode? }`. A refused or failed call
 *   is data; the script decides what to do with it.
 * - Only a thrown exception (`script_error`, with the message, the script's line and column), the
 *   time limit (`script_timeout`), the memory limit (`script_memory`) or an answer that is too
 *   long (`script_return_too_large`), not JSON or holding a promise nobody awaited
 *   (`script_return_invalid`) fails the run. A script that waits on a promise nothing will settle
 *   fails at once as `script_error`; so does reading `.text` or `.error` of a call not awaited.
 * - The answer: a string is the output as written; `undefined` is `""`; anything else is its JSON.
 * - Calls past `maxCalls`, and calls whose arguments pass `maxCallArgsBytes` (or bring the run's
 *   to more than `maxRunArgsBytes`), are not made; they resolve to `script_too_many_calls` and
 *   `script_args_too_large` errors.
 * - Interactive tools (see {@link ScriptToolOptions.interactiveTools} and `ITool.interactive`)
 *   are refused with `tool_interactive`, and `run_js` itself with `pipeline_self_call`.
 * - No call starts after the run ends, however it ends: the calls get the run's own abort signal
 *   (which also fires with the host's), and the gate checks it after the host's checks, so an
 *   approval that comes late starts nothing.
 * - The result's `effects` lists each call to a side-effecting tool that started, in the order
 *   the calls finished, with its `outcome` (a tool that failed after it started is listed: it may
 *   have changed something). Calls still in flight when the run ends are waited for briefly; those
 *   still running are listed with the outcome `unknown`, and named in a failure's
 *   `details.abandoned`.
 * - When every sandbox of the pool is busy, the run waits for one, at most its time limit (its
 *   script then still has the whole limit); past the pool's queue, or when none comes free in
 *   time, it is refused with `budget_exceeded` (`details.limit: 'sandboxes'`) and never started.
 * - An abort ends the run at once with `step_aborted`.
 * - A call whose approval is pending (the hook answered `{ pending: true }`) pauses the run: the
 *   call does not run, the script is ended (its sandbox let go), the calls in flight finish and
 *   are recorded, and the result is `approval_pending` with a token; `resumeRun` runs the script
 *   again from its start, its calls up to the pause answered from the journal. In a run that may
 *   pause, the script's `Math.random` and clock are recorded so that the replay draws the same.
 *
 * `hasSideEffects` is `true` exactly when `sideEffectingTools` lists a tool: only then can a
 * script reach a side-effecting tool, since the gate refuses every unlisted one. A host that
 * chains `run_js` itself must therefore list it when it lists anything for it.
 *
 * @param gate - the gate every call passes
 * @param options - the limits and the pool; see {@link ScriptToolOptions}
 *
 * @example
 * ```ts
 * const runJs = createScriptTool(gate, { sideEffectingTools: ['write_file'], timeoutMs: 10_000 });
 * registry.set(runJs); // a ToolRegistry from createToolRegistry
 * const result = await runJs.execute({ code: "const r = await callTool('read_file', { path: 'a.ts' }); return r.text.length;" }, {});
 * ```
 *
 * @category Code mode / discovery
 */
export function createScriptTool(gate: StepGate, options: ScriptToolOptions = {}): ITool {
  const limits = resolveScriptLimits(options);
  const pool = options.pool ?? defaultSandboxPool();
  const scope = options.scope ?? defaultObservationScope;
  // The catalog scripts search: made on the first search (its index is built then), or given.
  const given = options.discovery;
  let made: ScriptDiscovery | undefined = given !== undefined && isScriptDiscovery(given) ? given : undefined;
  const discovery = (): ScriptDiscovery =>
    (made ??= createScriptDiscovery(gate, given !== undefined && !isScriptDiscovery(given) ? given : {}, {
      sideEffectingTools: limits.sideEffectingTools,
      interactiveTools: limits.interactiveTools,
    }));
  const codeOnly = given !== undefined && (isScriptDiscovery(given) ? given.codeOnly : given.codeOnly === true);
  const tool: ITool = {
    id: SCRIPT_TOOL_NAME,
    name: SCRIPT_TOOL_NAME,
    displayName: 'Run JavaScript',
    description: description(limits.maxCalls),
    inputSchema: INPUT_SCHEMA,
    hasSideEffects: limits.sideEffectingTools.size > 0,
    composition: true,
    async execute(args, context) {
      try {
        const ctx = context ?? {};
        // The outermost door of a run that may pause (its gate asks for approvals) records it.
        return await door.run(args, ctx, () =>
          runScript(door.settings, tool, limits, pool, discovery, resolveScope(scope, ctx) ?? '', args, ctx),
        );
      } catch (error) {
        // Errors are data: nothing is thrown across the tool boundary.
        return failure('script_error', `run_js failed on the host: ${messageOf(error)}`, { message: messageOf(error) });
      }
    },
  };
  const door = new Door(gate, tool, { sideEffectingTools: limits.sideEffectingTools, reader: 'code', validateArgs: true, door: SCRIPT_DOOR });
  // Code-only: the model is offered this tool alone, and its description says how to find the
  // rest, read again at each listing so a registry that changes is described as it is.
  if (codeOnly) Object.defineProperty(tool, 'description', { get: () => discovery().description(), enumerable: true });
  return tool;
}

const SCRIPT_DOOR = Object.freeze({ kind: 'run_js' as const });

/** Whether the `discovery` option is a discovery made already, rather than its options. */
function isScriptDiscovery(value: ScriptDiscovery | ScriptDiscoveryOptions): value is ScriptDiscovery {
  return typeof (value as ScriptDiscovery).description === 'function' && typeof (value as ScriptDiscovery).catalog === 'object';
}

