/**
 * One client's session of the proxy: a gate of its own (its approvals go to its own client), the
 * model-facing tools over it (run_pipeline, compose, run_js, get_observation), the composites built
 * against it, and the shared upstream tools. When the upstream tools change, the session's list is
 * rebuilt and its client told.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  checkChainable,
  ComposableToolBuilder,
  createComposeTool,
  createGetObservationTool,
  createRunPipelineTool,
  createScriptDiscovery,
  createScriptTool,
  createStepGate,
  DEFAULT_INTERACTIVE_TOOLS,
  failure,
  SpecError,
  type ApprovalDecision,
  type ApprovalProvider,
  type ComposableToolSpec,
  type ITool,
  type ScriptDiscovery,
  type StepGate,
} from '../index.js';
import { createToolList, elicitationApprovals, type MutableToolList } from '../mcp/index.js';
import { compositeCycles } from './composites.js';
import { compositeClashes, createSnippetTool } from './snippets.js';
import { proxyAdvice } from './advice.js';
import { queueApprovals, queuedDoors, type QueuedDoors } from './approvals/queued-doors.js';
import { ownCommand } from './approvals/own-command.js';
import { approvalSettings } from './approvals/settings.js';
import { flowOptionsOf } from './flows-config.js';
import type { ProxyCore } from './proxy-core.js';

/** A session's tools and gate. */
export interface ProxySession {
  /** The tools it serves, as they stand now. */
  list: MutableToolList;
  /** The gate every call of the session passes. */
  gate: StepGate;
  /** Code-only: what a script finds, and run_js's description. */
  discovery?: ScriptDiscovery;
  /** Stop following the upstream tools. */
  dispose(): void;
}

/**
 * Make a session. `server` is the session's MCP server (made after the gate it uses), for the
 * approvals that ask its client.
 */
export function createSession(core: ProxyCore, server: () => Server | undefined): ProxySession {
  const config = core.config;
  const sideEffectingTools = [...(config.sideEffectingTools ?? [])];
  const { pool: _poolOptions, ...scriptOptions } = config.script ?? {};
  let registry = new Map<string, ITool>();
  // Changed by every rebuild (the only place the registry changes), so runs reuse what a check resolved until then.
  let generation = 0;
  const settings = approvalSettings(config);
  const queue = core.approvalQueue;
  // Queue mode: a run pauses for the person; the session's doors file it, and resume_run goes on with it.
  const owner = randomUUID();
  const queued: QueuedDoors | undefined = queue
    ? queuedDoors(queue, owner, (name) => registry.get(name), {
        approver: settings.approver,
        command: ownCommand(),
        onQueued: (run) =>
          core.log.info(`approval waits: run ${run.id} (${run.door}) paused at ${run.calls.map((call) => `${call.id} "${call.tool}"`).join(', ')}; \`toolweave approvals list\` shows it, \`approve ${run.id}\` or \`refuse ${run.id}\` answers it`),
      })
    : undefined;
  // A tool a script may call: in code-only, reached through run_js whether served or not.
  const scriptMayCall = (tool: ITool | undefined, name: string): boolean => tool !== undefined && checkChainable(name, tool, sideEffectingTools).ok;
  const approvals = settings.mode === 'elicit' ? elicitationApprovals(() => server()!) : queue ? queueApprovals(queue, owner) : undefined;
  const gate = createStepGate({
    resolve: (name) => registry.get(name),
    names: () => registry.keys(),
    version: () => generation,
    ...(approvals ? { approvals } : {}),
    ...(config.flows ? { flows: flowOptionsOf(config.flows) } : {}),
    // Code-only: a direct call of a tool only a script reaches is told how a script calls it.
    advice: proxyAdvice(core, 'mcp', config.codeOnly ? (name) => scriptMayCall(registry.get(name), name) : undefined),
  });
  // Code-only: run_js and get_observation are the only doors (with resume_run when approvals are
  // queued, so a script that paused for a person goes on), and run_js's description says how a
  // script finds the rest. run_pipeline and compose are left out: a script does all they do.
  const discovery = config.codeOnly
    ? createScriptDiscovery(
        gate,
        // The catalog follows the gate's version: it is read again after each rebuild.
        { codeOnly: true },
        { sideEffectingTools, interactiveTools: [...DEFAULT_INTERACTIVE_TOOLS, ...(config.script?.interactiveTools ?? [])] },
      )
    : undefined;
  const runJs = createScriptTool(gate, { ...scriptOptions, sideEffectingTools, pool: core.pool, ...(discovery ? { discovery } : {}) });
  // When recording, a door's run from outside is recorded too, and the calls inside carry its id.
  const asRun = (tool: ITool): ITool => (core.recording ? core.recording.wrapRun(tool) : tool);
  // In the order `servedDoorNames` lists them: code-only serves run_js alone of the doors.
  const doors = [
    ...(discovery ? [] : [asRun(createRunPipelineTool(gate, { sideEffectingTools })), asRun(createComposeTool(gate, { sideEffectingTools }))]),
    asRun(runJs),
    createGetObservationTool(core.store),
    ...(queued ? [queued.resumeTool] : []),
  ];
  // The config's scripts, made once: each a run_js of its own over this session's gate.
  const clashes = compositeClashes(config.scripts ?? {}, core.composites);
  const snippets = Object.entries(config.scripts ?? {})
    .filter(([name]) => !clashes.has(name))
    .map(([name, snippet]) => asRun(createSnippetTool(name, snippet, { gate, sideEffectingTools, scriptOptions, pool: core.pool })));
  for (const problem of clashes.values()) core.reportOnce('config_invalid', `${config.source}: ${problem}`);
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools });
  const askedFirst = new WeakMap<ITool, ITool>();
  // The composite files do not change while the proxy runs: their cycles are found once.
  const cycles = compositeCycles(core.composites);
  const list = createToolList();

  function rebuild(): void {
    const next = new Map<string, ITool>(doors.map((door) => [door.name, door]));
    for (const tool of core.upstreamTools()) {
      // An undeclared tool runs only when called directly; with approvals on, it is asked about too
      // (with flows, the gate judges it as side-effecting, and asks when untrusted data steers it).
      next.set(tool.name, approvals && !config.flows && tool.hasSideEffects === undefined ? asked(tool, approvals) : tool);
    }
    // Before the composites, which may call them.
    for (const snippet of snippets) {
      if (next.has(snippet.name)) {
        core.collision(snippet.name, `script "${snippet.name}" of ${config.source}`, 'an upstream server');
        continue;
      }
      next.set(snippet.name, snippet);
    }
    registry = next;
    for (const file of core.composites) {
      if (clashes.has(file.name)) continue;
      if (registry.has(file.name)) {
        core.collision(file.name, `composite file ${file.file}`, 'an upstream server or the proxy itself');
        continue;
      }
      const cycle = cycles.get(file.name);
      if (cycle !== undefined) {
        core.reportOnce('config_invalid', `${file.file}: composite "${file.name}" is not served: ${cycle}`);
        continue;
      }
      try {
        registry.set(file.name, builder.build(file.name, file.description, file.inputSchema, file.spec as unknown as ComposableToolSpec));
      } catch (error) {
        const problems = error instanceof SpecError ? error.errors.join('; ') : String(error);
        core.reportOnce('config_invalid', `${file.file}: composite "${file.name}" is not served: ${problems}`);
      }
    }
    generation++;
    if (discovery) reportUnreachable(core, [...registry.values()].filter((tool) => !doors.includes(tool)), sideEffectingTools);
    // A door that can pause is served so that a run it pauses is queued (the registry keeps the door itself, for resumeRun).
    const served = (tool: ITool) => (queued && tool.composition === true && tool !== queued.resumeTool ? queued.served(tool) : tool);
    list.set((discovery ? doors : [...registry.values()]).map(served));
  }

  function asked(tool: ITool, provider: ApprovalProvider): ITool {
    let wrapped = askedFirst.get(tool);
    if (!wrapped) {
      wrapped = {
        ...tool,
        async execute(args, context) {
          // A direct call has no run to pause: a pending answer refuses it, as anything but a yes does.
          const decision = (await provider.requestApproval({ toolId: tool.id, toolName: tool.name, step: tool.name, args }, context)) as ApprovalDecision;
          if (decision.approved !== true) return failure('approval_rejected', decision.reason ?? `Approval refused for tool "${tool.name}".`, { tool: tool.name, step: tool.name });
          // The answer may come after the call was cancelled: then it does not run.
          if (context?.signal?.aborted) return failure('step_aborted', `Aborted before tool "${tool.name}" ran.`, { tool: tool.name, step: tool.name });
          return tool.execute(args, context);
        },
      };
      askedFirst.set(tool, wrapped);
    }
    return wrapped;
  }

  rebuild();
  const unsubscribe = core.subscribe(rebuild);
  return {
    list,
    gate,
    ...(discovery ? { discovery } : {}),
    dispose() {
      unsubscribe();
      // The session's runs can no longer be resumed: its gate and journal go with it.
      queued?.dispose();
    },
  };
}

/**
 * Code-only leaves no door to a tool a script may not call: say which, and what makes them
 * callable (once per distinct set).
 */
function reportUnreachable(core: ProxyCore, tools: readonly ITool[], sideEffectingTools: readonly string[]): void {
  const refused = tools.filter((tool) => !checkChainable(tool.name, tool, sideEffectingTools).ok);
  if (!refused.length) return;
  const undeclared = refused.filter((tool) => tool.hasSideEffects === undefined).map((tool) => tool.name);
  const unlisted = refused.filter((tool) => tool.hasSideEffects === true).map((tool) => tool.name);
  const parts = [
    undeclared.length ? `${undeclared.length} declare no side effects (${sample(undeclared)}): set trustAnnotations: true on a server whose read-only hints you trust, or tools: { <name>: { hasSideEffects: false } }` : '',
    unlisted.length ? `${unlisted.length} change things and are not in sideEffectingTools (${sample(unlisted)}): list those a script may call` : '',
  ].filter(Boolean);
  core.reportOnce('step_not_chainable', `code-only: ${refused.length} tools cannot be called, since run_js is the only door and a script may not call them: ${parts.join('; ')}`);
}

function sample(names: readonly string[]): string {
  return names.length > 5 ? `${names.slice(0, 5).join(', ')}, ...` : names.join(', ');
}
