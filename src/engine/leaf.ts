/** A leaf: one tool call through the gate, with dry runs, the effects ledger and compensation. */
import { failure } from '../codes.js';
import { callByName } from '../gate/call.js';
import { checkChainable } from '../gate/chainable.js';
import { messageOf, type GateRunOptions } from '../gate/step-gate.js';
import { compileMapping } from '../refs/compile.js';
import { isRecord } from '../spec/nodes.js';
import type { StepNode } from '../spec/types.js';
import type { ITool, ToolExecutionResult } from '../tool.js';
import type { RefScope } from '../refs/scope.js';
import { refSite, type CompileEnv, type NodeSite } from './compile-env.js';
import { fromDrive, type DrivePlan, type NodeOutcome, type NodePlan, type RunState, type TraceEntry } from './run-state.js';

/** Compile a leaf into a plan. */
export function compileLeaf(node: StepNode, env: CompileEnv, site: NodeSite, label: string): NodePlan {
  const toolName = node.tool;
  env.tools.add(toolName);
  const mapping = compileMapping(node.inputMapping ?? node.args ?? {}, refSite(env, site, label));
  env.errors.push(...mapping.errors);
  const argsOf = mapping.accessor;
  const runOptions: GateRunOptions = { step: label, timeoutMs: node.timeoutMs ?? env.stepTimeoutMs };
  const undo = node.compensate ? compileCompensation(node.compensate.tool, node.compensate.args, env, site, label) : undefined;
  const leaf: LeafInfo = { label, toolName, undo };

  const drive: DrivePlan = (state, scope, done) => {
    const check = checkChainable(toolName, state.gate.resolve(toolName), state.sideEffectingTools);
    if (!check.ok) return failed(state, label, toolName, check.refusal);
    const tool = check.tool;
    if (tool.composition && state.compositionPath.includes(tool.id)) {
      return failed(state, label, toolName, failure('composition_cycle', `Step "${label}" calls composition "${tool.name}", which is already running on this path.`, {
        path: [...state.compositionPath, tool.id],
      }));
    }
    const args = argsOf(scope);
    if (!isRecord(args)) {
      return failed(state, label, toolName, failure('input_invalid', `Step "${label}": its arguments resolved to ${describe(args)}, not an object.`));
    }
    if (state.dry && (tool.hasSideEffects === true || tool.composition)) {
      if (!Object.hasOwn(state.dry.stepOutputs, label)) {
        return failed(state, label, toolName, failure('dry_run_needs_output', `Dry run: step "${label}" (${toolName}) would run; give its output in dry.stepOutputs["${label}"].`));
      }
      state.effects.push({ step: label, tool: toolName, wouldRun: true, args, ...(tool.composition ? { nested: true as const } : {}) });
      if (state.recording) {
        state.completed.push(label);
        state.trace.push(entry(state, label, toolName, true, { dry: true }));
      }
      return { ok: true, output: state.dry.stepOutputs[label] };
    }
    const gate = state.gate;
    if (gate.call) {
      const now = gate.call(tool, args, state.context, state.signal, runOptions, (result) => done(finishLeaf(leaf, tool, state, scope, result)));
      return now ? finishLeaf(leaf, tool, state, scope, now) : undefined;
    }
    gate.run(tool, args, state.context, state.signal, runOptions).then(
      (result) => done(finishLeaf(leaf, tool, state, scope, result)),
      (error: unknown) => done(failed(state, label, toolName, failure('step_threw', `The gate failed: ${messageOf(error)}`))),
    );
    return undefined;
  };
  return fromDrive(drive);
}

/** What a leaf's result is recorded against. */
interface LeafInfo {
  label: string;
  toolName: string;
  undo: Compensation | undefined;
}

/** Record a leaf's result: the ledger, the trace, the undo log. A plain function: no closure per call. */
function finishLeaf(leaf: LeafInfo, tool: ITool, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome {
  if (!result.success) return failed(state, leaf.label, leaf.toolName, result);
  if (tool.hasSideEffects === true) state.effects.push({ step: leaf.label, tool: leaf.toolName, ran: true });
  if (state.recording) {
    state.completed.push(leaf.label);
    state.trace.push(entry(state, leaf.label, leaf.toolName, true));
  }
  const undo = leaf.undo;
  if (undo && state.undo) {
    const output = result.output;
    state.undo.push({ step: leaf.label, tool: undo.tool, run: () => undo.run(state, { ...scope, prev: output }) });
  }
  return { ok: true, output: result.output };
}

/** A compiled compensating call. */
type Compensation = ReturnType<typeof compileCompensation>;

/** A compensating call, compiled like a step; in its args `$prev` is the step's own output. */
function compileCompensation(tool: string, args: unknown, env: CompileEnv, site: NodeSite, label: string) {
  env.tools.add(tool);
  const step = `${label} (undo)`;
  const mapping = compileMapping(args ?? {}, refSite(env, { ...site, hasPrev: true }, step));
  env.errors.push(...mapping.errors);
  return {
    tool,
    async run(state: RunState, scope: Parameters<NodePlan>[1]): Promise<ToolExecutionResult> {
      const resolved = mapping.accessor(scope);
      if (!isRecord(resolved)) return failure('input_invalid', `Undo of "${label}": its arguments are not an object.`);
      // An undo runs even after an abort: leaving work half-done is worse than finishing the undo.
      const context = { ...state.context, signal: undefined };
      const { result, tool: ran } = await callByName(state.gate, tool, resolved, context, {
        sideEffectingTools: state.sideEffectingTools,
        step,
        timeoutMs: state.stepTimeoutMs,
      });
      if (result.success && ran?.hasSideEffects === true) state.effects.push({ step, tool, ran: true });
      return result;
    },
  };
}

/** Record a leaf's failure in the trace and name the step in its details. */
export function failed(state: RunState, label: string, tool: string | undefined, result: ToolExecutionResult): NodeOutcome {
  const code = result.details?.code;
  if (state.recording) state.trace.push(entry(state, label, tool, false, code ? { code } : undefined));
  const note = state.annotations[state.annotations.length - 1];
  return {
    ok: false,
    failure: {
      ...result,
      details: { ...result.details, step: label, ...(tool ? { tool } : {}), ...(note ? { intent: note.intent, hypothesis: note.hypothesis } : {}) },
    },
  };
}

function entry(state: RunState, step: string, tool: string | undefined, ok: boolean, extra?: { code?: string; dry?: true }): TraceEntry {
  const e: TraceEntry = { step, tool, ok };
  if (extra?.code !== undefined) e.code = extra.code;
  if (extra?.dry) e.dry = true;
  const note = state.annotations.length ? state.annotations[state.annotations.length - 1] : undefined;
  if (note) {
    e.intent = note.intent;
    if (note.hypothesis !== undefined) e.hypothesis = note.hypothesis;
  }
  return e;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
