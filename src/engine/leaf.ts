/** A leaf: one tool call through the gate, with dry runs, the effects ledger and compensation. */
import { failure } from '../codes.js';
import { callByName } from '../gate/call.js';
import { chainRefusal, isChainable } from '../gate/chainable.js';
import { messageOf, type GateRunOptions } from '../gate/step-gate.js';
import { compileMapping } from '../refs/compile.js';
import { isRecord } from '../spec/nodes.js';
import type { StepNode } from '../spec/types.js';
import type { ITool, ToolExecutionResult } from '../tool.js';
import type { Accessor, RefScope } from '../refs/scope.js';
import { refSite, type CompileEnv, type NodeSite } from './compile-env.js';
import { fromDrive, type Lane, type LeafRecorder, type NodeOutcome, type NodePlan, type RunState, type TraceEntry, type UndoAction } from './run-state.js';

/** Compile a leaf into a plan. */
export function compileLeaf(node: StepNode, env: CompileEnv, site: NodeSite, label: string): NodePlan {
  const toolName = node.tool;
  env.tools.add(toolName);
  const mapping = compileMapping(node.inputMapping ?? node.args ?? {}, refSite(env, site, label));
  env.errors.push(...mapping.errors);
  const undo = node.compensate ? compileCompensation(node.compensate.tool, node.compensate.args, env, site, label) : undefined;
  const leaf = new Leaf(label, toolName, mapping.accessor, node.timeoutMs ?? env.stepTimeoutMs, undo);
  return fromDrive((state, scope, lane) => leaf.drive(state, scope, lane));
}

/**
 * A compiled leaf. The methods run once per call, so the common path is kept small and the rare
 * ones (refusals, compositions, dry runs, a host-made gate) live in methods of their own: V8
 * inlines a call chain only within a bytecode budget, and a chain of quick tools is mostly this
 * path.
 */
class Leaf implements LeafRecorder {
  /** The gate options for a host-made gate. */
  private readonly runOptions: GateRunOptions;

  constructor(
    readonly label: string,
    readonly toolName: string,
    private readonly argsOf: Accessor,
    private readonly timeoutMs: number,
    private readonly undo: Compensation | undefined,
  ) {
    this.runOptions = { step: label, timeoutMs };
  }

  /** Run the leaf in `lane`: its outcome when known at once, else `undefined` and the lane's owner takes it. */
  drive(state: RunState, scope: RefScope, lane: Lane): NodeOutcome | undefined {
    const toolName = this.toolName;
    // The chainability rule, re-checked at every run against the registry as it stands now.
    const tool = state.gate.resolve(toolName);
    if (!isChainable(toolName, tool, state.sideEffectingTools)) return failed(state, this.label, toolName, chainRefusal(toolName, tool));
    const start = state.startCall;
    if (tool.composition || state.dry || !start) return this.driveOther(tool, state, scope, lane);
    // The common case: a tool that is not a composition, a real run, the gate's record form.
    const args = this.argsOf(scope);
    if (!isRecord(args)) return this.argsRefused(state, args);
    // The lane is the gate's record for this call: aimed here, it carries the result back to the lane.
    lane.aim(tool, this.label, this.timeoutMs);
    lane.leaf = this;
    lane.state = state;
    lane.scope = scope;
    const now = start(lane, args, state.context, state.signal);
    return now ? this.finish(tool, state, scope, now) : undefined;
  }

  /** Every other case, in the same order of checks: the cycle guard, the arguments, a dry run, then the gate. */
  private driveOther(tool: ITool, state: RunState, scope: RefScope, lane: Lane): NodeOutcome | undefined {
    const { label, toolName } = this;
    if (tool.composition && state.compositionPath.includes(tool.id)) {
      return failed(state, label, toolName, failure('composition_cycle', `Step "${label}" calls composition "${tool.name}", which is already running on this path.`, {
        path: [...state.compositionPath, tool.id],
      }));
    }
    const args = this.argsOf(scope);
    if (!isRecord(args)) return this.argsRefused(state, args);
    const dry = state.dry;
    if (dry && (tool.hasSideEffects === true || tool.composition)) {
      if (!Object.hasOwn(dry.stepOutputs, label)) {
        return failed(state, label, toolName, failure('dry_run_needs_output', `Dry run: step "${label}" (${toolName}) would run; give its output in dry.stepOutputs["${label}"].`));
      }
      state.effects.push({ step: label, tool: toolName, wouldRun: true, args, ...(tool.composition ? { nested: true as const } : {}) });
      if (state.recording) state.trace.push(entry(state, label, toolName, true, { dry: true }));
      return { ok: true, output: dry.stepOutputs[label] };
    }
    const start = state.startCall;
    if (start) {
      lane.aim(tool, label, this.timeoutMs);
      lane.leaf = this;
      lane.state = state;
      lane.scope = scope;
      const now = start(lane, args, state.context, state.signal);
      return now ? this.finish(tool, state, scope, now) : undefined;
    }
    // A host-made gate: its callback form if it has one, else its promise form.
    const gate = state.gate;
    if (gate.call) {
      const now = gate.call(tool, args, state.context, state.signal, this.runOptions, (result) => lane.owner.take(this.finish(tool, state, scope, result), lane));
      return now ? this.finish(tool, state, scope, now) : undefined;
    }
    gate.run(tool, args, state.context, state.signal, this.runOptions).then(
      (result) => lane.owner.take(this.finish(tool, state, scope, result), lane),
      (error: unknown) => lane.owner.take(failed(state, label, toolName, failure('step_threw', `The gate failed: ${messageOf(error)}`)), lane),
    );
    return undefined;
  }

  private argsRefused(state: RunState, args: unknown): NodeOutcome {
    const label = this.label;
    return failed(state, label, this.toolName, failure('input_invalid', `Step "${label}": its arguments resolved to ${describe(args)}, not an object.`));
  }

  /** Record the call's result: the ledger, the trace, the undo log. */
  finish(tool: ITool, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome {
    if (!result.success) return failed(state, this.label, this.toolName, result);
    if (tool.hasSideEffects === true) state.effects.push({ step: this.label, tool: this.toolName, ran: true });
    // The common entry (no annotation around the leaf) as a literal: this runs once per step.
    if (state.recording) state.trace.push(state.annotations.length ? entry(state, this.label, this.toolName, true) : { step: this.label, tool: this.toolName, ok: true });
    if (this.undo && state.undo) this.logUndo(this.undo, state, state.undo, scope, result.output);
    return { ok: true, output: result.output };
  }

  /**
   * Log the compensating call that undoes this step, should the enclosing scope roll back. Its
   * scope is copied now, not when it runs: a for_each worker reuses its item scope for the next item.
   */
  private logUndo(undo: Compensation, state: RunState, log: UndoAction[], scope: RefScope, output: unknown): void {
    const undoScope: RefScope = { ...scope, prev: output };
    log.push({ step: this.label, tool: undo.tool, run: () => undo.run(state, undoScope) });
  }
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
