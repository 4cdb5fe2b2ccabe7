/** A leaf: one tool call through the pipeline, with dry runs, the effects ledger and compensation. */
import { failure } from '../codes.js';
import { callByName } from '../gate/call.js';
import type { CallSite, GateCall } from '../gate/call-record.js';
import type { LabelSite } from '../gate/output-label.js';
import { ENTRY, startCall } from '../gate/pipeline.js';
import { ticksFor } from '../gate/watchdog.js';
import type { Accessor, RefScope } from '../refs/scope.js';
import { isRecord } from '../spec/nodes.js';
import type { StepNode } from '../spec/types.js';
import type { ITool, ToolExecutionResult } from '../tool.js';
import { compileAt, toolSlot, type CompileEnv, type NodeSite, type PlanCall } from './compile-env.js';
import { fromDrive } from './lanes.js';
import type { LaneRecord, LeafRecorder, NodeOutcome, NodePlan, PlainLeaf, RunState, TraceEntry, UndoAction } from './run-state.js';
import { startedOutcome, traceEntry, failed } from './step-records.js';
import type { LabelTree } from '../flows/label-tree.js';
import type { LabelAccessor } from '../flows/label-scope.js';
import { withPrev } from './labels.js';
import { labelArgs } from '../flows/run-flow.js';

/** What a mapping that reads nothing is resolved against, once, to know its arguments at build time. */
const NO_SCOPE: RefScope = { input: undefined, prev: undefined, steps: [], named: new Map() };

/** Compile a leaf into a plan. */
export function compileLeaf(node: StepNode, env: CompileEnv, site: NodeSite, label: string): NodePlan {
  const toolName = node.tool;
  env.tools.add(toolName);
  const slot = toolSlot(env, toolName);
  const call: PlanCall = { label, tool: toolName, slot };
  env.leaves.push(call);
  const mapping = compileAt(env, node.inputMapping ?? node.args ?? {}, site, label);
  if (!mapping.dynamic) call.staticArgs = mapping.accessor(NO_SCOPE);
  const undo = node.compensate ? compileCompensation(node.compensate.tool, node.compensate.args, env, site, label) : undefined;
  const leaf = new Leaf(label, toolName, slot, node.name, mapping.accessor, mapping.labels, node.timeoutMs ?? env.stepTimeoutMs, undo, !mapping.buildsObject, mapping.keys);
  const plan = fromDrive((state, scope, lane) => leaf.drive(state, scope, lane));
  // A leaf with nothing to undo may run in a top-level chain's fast path (see LeafChain).
  if (!undo) plan.leaf = leaf;
  return plan;
}

/**
 * A compiled leaf. Its call goes through the pipeline from `resolve` (see `pipeline.ts`); the leaf
 * keeps what its calls reuse (its tool's place among the plan's tools, its argument check, its
 * trace entry) and records each result: the ledger, the trace, the undo log.
 */
export class Leaf implements CallSite, PlainLeaf, LeafRecorder {
  /** Its trace entry for a success with no annotation around it: the same every time, so made once (and frozen). */
  readonly okEntry: TraceEntry;
  /** Its timeout in watchdog ticks, computed once rather than at every call. */
  private readonly ticks: number;
  /** The tool instance whose argument check {@link Leaf.argsCheck} holds (see `CallSite`). */
  checkedTool: ITool | undefined = undefined;
  /** That instance's compiled check. */
  argsCheck: ((args: Record<string, unknown>) => boolean) | null = null;
  /** See `CallSite`: its tool's own output label, for the tool instance and rules it holds for. */
  ownOutput: LabelSite['ownOutput'] = undefined;

  /**
   * @param label - the step's label: its name, or its place in the spec
   * @param toolName - the tool it calls, resolved through the gate at every run
   * @param slot - the tool's place among the plan's tools (see `CompileEnv.toolSlots`)
   * @param name - the node's name, under which its output is recorded (`$steps.<name>`)
   * @param argsOf - its compiled argument mapping
   * @param labelsOf - the labels of what that mapping resolves to
   * @param timeoutMs - its timeout
   * @param undo - its compensating call, if any
   * @param mayBuildNonObject - its mapping is not written as an object, so what it resolves to
   *   is checked to be one at every call
   * @param builtKeys - the keys of the object its mapping builds, when known (see `CallSite`)
   */
  constructor(
    readonly label: string,
    readonly toolName: string,
    readonly slot: number,
    readonly name: string | undefined,
    readonly argsOf: Accessor,
    readonly labelsOf: LabelAccessor,
    readonly timeoutMs: number,
    private readonly undo: Compensation | undefined,
    readonly mayBuildNonObject: boolean,
    readonly builtKeys: readonly string[] | undefined,
  ) {
    this.okEntry = Object.freeze({ step: label, tool: toolName, ok: true });
    this.ticks = ticksFor(timeoutMs);
  }

  /** Run the leaf in `lane`: its outcome when known at once, else `undefined` and the lane's owner takes it. */
  drive(state: RunState, scope: RefScope, lane: LaneRecord): NodeOutcome | undefined {
    lane.leaf = this;
    lane.state = state;
    lane.scope = scope;
    lane.frame = state.frame;
    const now = this.start(lane, state, scope);
    return now ? this.finish(lane, state, scope, now) : undefined;
  }

  /**
   * Send this leaf's call through the pipeline, in `call`: every stage from resolve, the one
   * implementation of them for every driver (a sequence, a chain, a for_each, a gather).
   *
   * @param call - the record the pipeline fills and delivers to; not in flight. Its `frame` is
   *   `state.frame`, set by whoever made the record (once, not at every call)
   * @param state - the run's state: the door of the call
   * @param scope - what the arguments read
   * @returns a result known at once (the call has ended), which the caller records as it records
   *   a delivered result; or `undefined` while the call is in flight, and `call.deliver` then gets
   *   the result once
   */
  start(call: GateCall, state: RunState, scope: RefScope): ToolExecutionResult | undefined {
    // Checked to be an object by the arguments stage before any later stage uses it as one.
    call.aim(this.toolName, this.label, this.timeoutMs, this.ticks, this.argsOf(scope) as Record<string, unknown>, state.context, state.signal, state.gateSettings);
    call.door = state;
    call.site = this;
    // A run that follows labels labels the call's arguments, and what decided it is made.
    const labels = scope.labels;
    if (labels !== undefined) {
      call.argLabels = this.labelsOf(labels);
      call.control = state.control;
    }
    return startCall(call, ENTRY.resolve);
  }

  /** Record the call's result: the ledger, the trace, the undo log. */
  finish(call: GateCall, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome {
    if (call.answered === 'dry') return this.finishDry(call, state, scope, result);
    const label = call.outputLabel;
    if (!result.success) return labelled(failed(state, this.label, this.toolName, result, call.tool), label);
    this.recordSuccess(call.tool!, state);
    if (this.undo && state.undo) this.logUndo(this.undo, state, state.undo, scope, result.output, label);
    return label === undefined ? { ok: true, output: result.output } : { ok: true, output: result.output, label };
  }

  /** A dry run answered the call: listed as one that would run, traced as dry, its undo logged as a real step's is. */
  private finishDry(call: GateCall, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome {
    const { label, toolName } = this;
    if (!result.success) return labelled(failed(state, label, toolName, result), call.outputLabel);
    state.effects.push({ step: label, tool: toolName, wouldRun: true, args: call.args, ...(call.tool!.composition ? { nested: true as const } : {}) });
    if (state.recording) state.trace.push(traceEntry(state, label, toolName, true, { dry: true }));
    // A rollback lists it as one that would run.
    if (this.undo && state.undo) this.logUndo(this.undo, state, state.undo, scope, result.output, call.outputLabel);
    return labelled({ ok: true, output: result.output }, call.outputLabel);
  }

  /** Record a successful call: the effects ledger (side-effecting tools), then the trace. */
  recordSuccess(tool: ITool, state: RunState): void {
    this.recordEffect(tool, state);
    // The common entry (no annotation around the leaf) is the leaf's own, made once: this runs once per step.
    if (state.recording) state.trace.push(state.annotations.length ? traceEntry(state, this.label, this.toolName, true) : this.okEntry);
  }

  /** Record a successful call in the effects ledger, when its tool has side effects. */
  recordEffect(tool: ITool, state: RunState): void {
    if (tool.hasSideEffects === true) state.effects.push({ step: this.label, tool: this.toolName, ran: true, outcome: 'ran' });
  }

  /**
   * Log the compensating call that undoes this step, should the enclosing scope roll back. Its
   * scope is copied now, not when it runs: a for_each worker reuses its item scope for the next item.
   */
  private logUndo(undo: Compensation, state: RunState, log: UndoAction[], scope: RefScope, output: unknown, label: LabelTree | undefined): void {
    const undoScope = withPrev(scope, output, label);
    log.push({ step: this.label, tool: undo.tool, run: () => undo.run(state, undoScope) });
  }
}

/** `outcome` with the label of what it answered, when the run follows labels. */
function labelled(outcome: NodeOutcome, label: LabelTree | undefined): NodeOutcome {
  return label === undefined ? outcome : { ...outcome, label };
}

/** A compiled compensating call. */
type Compensation = ReturnType<typeof compileCompensation>;

/** A compensating call, compiled like a step; in its args `$prev` is the step's own output. */
function compileCompensation(tool: string, args: unknown, env: CompileEnv, site: NodeSite, label: string) {
  env.tools.add(tool);
  const step = `${label} (undo)`;
  env.leaves.push({ label: step, tool, slot: toolSlot(env, tool), undo: true });
  const mapping = compileAt(env, args ?? {}, { ...site, hasPrev: true }, step);
  return {
    tool,
    async run(state: RunState, scope: Parameters<NodePlan>[1]): Promise<ToolExecutionResult> {
      const resolved = mapping.accessor(scope);
      if (!isRecord(resolved)) return failure('input_invalid', `Undo of "${label}": its arguments are not an object.`);
      if (state.dry) {
        // A dry run never executes an undo: it is listed as one that would run, like any side-effecting step.
        state.effects.push({ step, tool, wouldRun: true, args: resolved });
        return { success: true, output: null };
      }
      // An undo runs even after an abort: leaving work half-done is worse than finishing the undo.
      const context = { ...state.context, signal: undefined };
      // Its arguments' labels, when the run follows them; it is made because a later step failed,
      // so what decides it is all the run has read (the flows stage's default for an unlabelled call).
      if (scope.labels !== undefined) labelArgs(resolved, mapping.labels(scope.labels));
      const { result, tool: ran } = await callByName(state.gate, tool, resolved, context, {
        sideEffectingTools: state.sideEffectingTools,
        step,
        timeoutMs: state.stepTimeoutMs,
      });
      if (ran?.hasSideEffects === true) {
        const outcome = result.success ? 'ran' : startedOutcome(result.details?.code);
        if (outcome) state.effects.push({ step, tool, ran: true, outcome });
      }
      return result;
    },
  };
}

