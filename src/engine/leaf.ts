/** A leaf: one tool call through the gate, with dry runs, the effects ledger and compensation. */
import { failure } from '../codes.js';
import { argsCheckOf, argsRefusal, hasProtoField } from '../gate/args-check.js';
import { callByName, runThroughGate } from '../gate/call.js';
import { chainRefusal, isChainable, namesOf } from '../gate/chainable.js';
import { observeRefusal } from '../gate/events.js';
import { GateCall } from '../gate/gate-call.js';
import type { RunFrame } from '../gate/run-frame.js';
import type { GateRunOptions } from '../gate/step-gate.js';
import { release, ticksFor } from '../gate/watchdog.js';
import { isRecord } from '../spec/nodes.js';
import type { StepNode } from '../spec/types.js';
import type { EffectOutcome, ITool, ToolExecutionResult } from '../tool.js';
import type { Accessor, RefScope } from '../refs/scope.js';
import { compileAt, toolSlot, type CompileEnv, type NodeSite, type PlanCall } from './compile-env.js';
import { fromDrive, recordOutput, threwOutcome, type Lane, type LeafRecorder, type NodeOutcome, type NodePlan, type RunState, type TraceEntry, type UndoAction } from './run-state.js';

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
  const leaf = new Leaf(label, toolName, slot, node.name, mapping.accessor, node.timeoutMs ?? env.stepTimeoutMs, undo, !mapping.buildsObject);
  const plan = fromDrive((state, scope, lane) => leaf.drive(state, scope, lane));
  // A leaf with nothing to undo may run in a top-level chain's fast path (see LeafChain).
  if (!undo) plan.leaf = leaf;
  return plan;
}

/**
 * A compiled leaf. The methods run once per call, so the common path is kept small and the rare
 * ones (refusals, compositions, dry runs, a host-made gate) live in methods of their own: V8
 * inlines a call chain only within a bytecode budget, and a chain of quick tools is mostly this
 * path.
 */
export class Leaf implements LeafRecorder {
  /** The gate options for a host-made gate. */
  private readonly runOptions: GateRunOptions;
  /** Its trace entry for a success with no annotation around it: the same every time, so made once (and frozen). */
  readonly okEntry: TraceEntry;
  /** Its timeout in watchdog ticks, computed once rather than at every call. */
  private readonly ticks: number;
  /**
   * The tool instance whose argument check {@link Leaf.argsCheck} holds: a run that resolves the
   * same instance (every run, until the host replaces the tool) skips looking its check up.
   */
  private checkedTool: ITool | undefined = undefined;
  private argsCheck: ((args: unknown) => boolean) | null = null;

  /**
   * @param label - the step's label: its name, or its place in the spec
   * @param toolName - the tool it calls, resolved through the gate at every run
   * @param slot - the tool's place among the plan's tools (see `CompileEnv.toolSlots`)
   * @param name - the node's name, under which its output is recorded (`$steps.<name>`)
   * @param argsOf - its compiled argument mapping
   * @param timeoutMs - its timeout
   * @param undo - its compensating call, if any
   * @param mayBuildNonObject - its mapping is not written as an object, so what it resolves to
   *   is checked to be one at every call
   */
  constructor(
    readonly label: string,
    readonly toolName: string,
    readonly slot: number,
    readonly name: string | undefined,
    readonly argsOf: Accessor,
    readonly timeoutMs: number,
    private readonly undo: Compensation | undefined,
    private readonly mayBuildNonObject: boolean,
  ) {
    this.runOptions = { step: label, timeoutMs };
    this.okEntry = Object.freeze({ step: label, tool: toolName, ok: true });
    this.ticks = ticksFor(timeoutMs);
  }

  /** Run the leaf in `lane`: its outcome when known at once, else `undefined` and the lane's owner takes it. */
  drive(state: RunState, scope: RefScope, lane: Lane): NodeOutcome | undefined {
    // A dry run, and a gate a host made, are the rare cases: everything else starts as every fast path does.
    if (state.dry !== undefined || state.startCall === undefined) return this.driveOther(state, scope, lane);
    lane.leaf = this;
    lane.state = state;
    lane.scope = scope;
    lane.frame = state.frame;
    const now = this.start(lane, state, scope);
    return now ? this.finish(lane.tool, state, scope, now) : undefined;
  }

  /** A dry run, or a gate a host made: the same checks, in the same order, then a stub output or the gate's `run`. */
  private driveOther(state: RunState, scope: RefScope, lane: Lane): NodeOutcome | undefined {
    const { label, toolName } = this;
    const tool = this.resolve(state);
    if (!isChainable(toolName, tool, state.sideEffectingTools)) return failed(state, label, toolName, this.refused(state, tool, chainRefusal(toolName, tool, namesOf(state.gate), state.gate.advice)));
    if (tool.composition) {
      const cycle = this.cycleRefusal(tool, state);
      if (cycle) return failed(state, label, toolName, this.refused(state, tool, cycle));
    }
    // Checked to be an object by argsProblem before it is used as one.
    const args = this.argsOf(scope) as Record<string, unknown>;
    const badArgs = this.argsProblem(state, tool, args);
    if (badArgs) return failed(state, label, toolName, this.refused(state, tool, badArgs));
    const dry = state.dry;
    if (dry && (tool.hasSideEffects === true || tool.composition)) {
      if (!Object.hasOwn(dry.stepOutputs, label)) {
        return failed(state, label, toolName, failure('dry_run_needs_output', `Dry run: step "${label}" (${toolName}) would run; give its output in dry.stepOutputs["${label}"].`));
      }
      state.effects.push({ step: label, tool: toolName, wouldRun: true, args, ...(tool.composition ? { nested: true as const } : {}) });
      if (state.recording) state.trace.push(entry(state, label, toolName, true, { dry: true }));
      const output = dry.stepOutputs[label];
      // Its undo is logged as a real step's is: a rollback lists it as one that would run.
      if (this.undo && state.undo) this.logUndo(this.undo, state, state.undo, scope, output);
      return { ok: true, output };
    }
    const start = state.startCall;
    if (start) {
      lane.aim(tool, label, this.timeoutMs, this.ticks);
      lane.frame = state.frame;
      lane.leaf = this;
      lane.state = state;
      lane.scope = scope;
      const now = start(lane, args, state.context, state.signal);
      return now ? this.finish(tool, state, scope, now) : undefined;
    }
    // A host-made gate: driven through its `run`, so every check it makes there holds.
    runThroughGate(state.gate, tool, args, state.context, state.signal, this.runOptions).then((result) =>
      lane.owner.take(this.finish(tool, state, scope, result), lane),
    );
    return undefined;
  }

  /**
   * Start this leaf's call with `call` as the gate's record: the chainability rule against the
   * registry as it stands now, the cycle guard, the arguments, then the gate's record form (its
   * host checks, then its own). The one implementation of these checks for every driver (a
   * sequence, a chain, a for_each, a gather); only a dry run and a host-made gate go another way.
   *
   * @param call - the record the gate fills and delivers to; not in flight. Its `frame` is
   *   `state.frame`, set by whoever made the record (once, not at every call)
   * @param state - the run's state (not a dry run; its gate made by `createStepGate`)
   * @param scope - what the arguments read
   * @returns a result known at once, not yet recorded (a refusal, or the gate's answer), which
   *   the caller records as it records a delivered result; or `undefined` while the call is in
   *   flight, and `call.deliver` then gets the result once
   */
  start(call: GateCall, state: RunState, scope: RefScope): ToolExecutionResult | undefined {
    const toolName = this.toolName;
    const tool = this.resolve(state);
    if (!isChainable(toolName, tool, state.sideEffectingTools)) return this.refused(state, tool, chainRefusal(toolName, tool, namesOf(state.gate), state.gate.advice));
    if (tool.composition) {
      const cycle = this.cycleRefusal(tool, state);
      if (cycle) return this.refused(state, tool, cycle);
    }
    // An object, by how its mapping is written or by argsProblem's check, before it is used as one.
    const args = this.argsOf(scope) as Record<string, unknown>;
    if (this.mayBuildNonObject || state.validateArgs) {
      const badArgs = this.argsProblem(state, tool, args);
      if (badArgs) return this.refused(state, tool, badArgs);
    }
    // The instance checked is the one the gate runs.
    call.aim(tool, this.label, this.timeoutMs, this.ticks);
    return state.startCall!(call, args, state.context, state.signal);
  }

  /** A refusal of this leaf's call before the gate ran it: whoever watches the run is told (a span, an event), then it is returned. */
  private refused(state: RunState, tool: ITool | undefined, refusal: ToolExecutionResult): ToolExecutionResult {
    observeRefusal(state.context, state.frame, this.toolName, tool, this.label, refusal);
    return refusal;
  }

  /**
   * The tool this leaf calls, as the registry stands now: resolved by name, or, when the host's
   * registry version says nothing changed since the run's check, the instance that check resolved.
   */
  private resolve(state: RunState): ITool | undefined {
    const known = state.resolved;
    if (known !== undefined && state.version!() === known.version) return known.bySlot[this.slot];
    return state.gate.resolve(this.toolName);
  }

  /** The cycle guard for a composition tool: the refusal when it is already running on this path. */
  cycleRefusal(tool: ITool, state: RunState): ToolExecutionResult | undefined {
    if (!state.compositionPath.includes(tool.id)) return undefined;
    return failure('composition_cycle', `Step "${this.label}" calls composition "${tool.name}", which is already running on this path.`, {
      path: [...state.compositionPath, tool.id],
    });
  }

  /**
   * The refusal of the arguments `tool` would run with: `input_invalid` when they did not resolve
   * to an object, `args_invalid` when the run checks arguments and they do not match the tool's
   * `inputSchema`; `undefined` when they may be used.
   */
  argsProblem(state: RunState, tool: ITool, args: unknown): ToolExecutionResult | undefined {
    if (!isRecord(args)) return failure('input_invalid', `Step "${this.label}": its arguments resolved to ${describe(args)}, not an object.`);
    if (!state.validateArgs) return undefined;
    if (tool !== this.checkedTool) {
      this.argsCheck = argsCheckOf(tool);
      this.checkedTool = tool;
    }
    const check = this.argsCheck;
    // The refusal checks again to name every field: it is made only when the arguments are wrong.
    // (A schema never sees an own `__proto__` field, so that is asked apart.)
    return (check === null || check(args)) && !hasProtoField(args) ? undefined : argsRefusal(tool, this.toolName, this.label, args);
  }

  /** Record the call's result: the ledger, the trace, the undo log. */
  finish(tool: ITool, state: RunState, scope: RefScope, result: ToolExecutionResult): NodeOutcome {
    if (!result.success) return failed(state, this.label, this.toolName, result, tool);
    this.recordSuccess(tool, state);
    if (this.undo && state.undo) this.logUndo(this.undo, state, state.undo, scope, result.output);
    return { ok: true, output: result.output };
  }

  /** Record a successful call: the effects ledger (side-effecting tools), then the trace. */
  recordSuccess(tool: ITool, state: RunState): void {
    this.recordEffect(tool, state);
    // The common entry (no annotation around the leaf) is the leaf's own, made once: this runs once per step.
    if (state.recording) state.trace.push(state.annotations.length ? entry(state, this.label, this.toolName, true) : this.okEntry);
  }

  /** Record a successful call in the effects ledger, when its tool has side effects. */
  recordEffect(tool: ITool, state: RunState): void {
    if (tool.hasSideEffects === true) state.effects.push({ step: this.label, tool: this.toolName, ran: true, outcome: 'ran' });
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

/**
 * Record a leaf's failure in the trace and name the step in its details. When the call was
 * started (`ran`, the instance the gate ran) and its tool has side effects, the failure may have
 * changed something: it goes in the effects ledger too, with how it ended.
 */
export function failed(state: RunState, label: string, tool: string | undefined, result: ToolExecutionResult, ran?: ITool): NodeOutcome {
  const code = result.details?.code;
  if (ran !== undefined && tool !== undefined) recordStartedFailure(state, label, tool, ran, code);
  if (state.recording) state.trace.push(entry(state, label, tool, false, code ? { code } : undefined));
  const note = state.annotations[state.annotations.length - 1];
  return {
    ok: false,
    failure: {
      ...result,
      error: namingStep(result.error, label, tool),
      details: { ...result.details, step: label, ...(tool ? { tool } : {}), ...(note ? { intent: note.intent, hypothesis: note.hypothesis } : {}) },
    },
  };
}

/** A failure's message with the step it happened at (and its tool) in front, unless it names one already. */
function namingStep(error: string | undefined, label: string, tool: string | undefined): string {
  const step = `Step "${label}"${tool ? ` (${tool})` : ''}`;
  if (typeof error !== 'string' || error === '') return `${step} failed.`;
  return error.startsWith('Step "') ? error : `${step}: ${error}`;
}

/** List a side-effecting call that was started and then failed, with how it ended (see {@link startedOutcome}). */
function recordStartedFailure(state: RunState, label: string, tool: string, ran: ITool, code: string | undefined): void {
  const outcome = startedOutcome(code);
  if (outcome !== undefined && ran.hasSideEffects === true) state.effects.push({ step: label, tool, ran: true, outcome });
}

/**
 * How a failed call ended, when its code says the tool was started: `failed` (it returned a
 * failure or threw), `timed_out`, `unknown` (it returned something unreadable). Refusals (the
 * rule, a host check, an abort, the budget) never started the tool: `undefined`.
 */
export function startedOutcome(code: string | undefined): EffectOutcome | undefined {
  switch (code) {
    case 'step_failed':
    case 'step_threw':
      return 'failed';
    case 'step_timeout':
      return 'timed_out';
    case 'step_bad_result':
      return 'unknown';
    default:
      return undefined;
  }
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

/**
 * The fast path for the most common plan: a top-level sequence of plain leaves (no `when`,
 * `retry`, `onError`, compensation or combinator; names are fine), run through a gate
 * `createStepGate` made, not a dry run. The same rules as a {@link Leaf}
 * driven by a sequence, through the same helpers, without the layers between: one object is the
 * run's sequence, its lane and the gate's record, and a step's result goes straight from the gate
 * to the next step with no outcome object or plan closure in between.
 *
 * A subclass says how the run ends ({@link LeafChain.end} is called exactly once).
 */
export abstract class LeafChain extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall (one per run).
  /** The steps, in order. */
  private declare readonly leaves: readonly Leaf[];
  /** Each step's entry for a success, in order (see {@link chainTrace}). */
  private declare readonly okTrace: readonly TraceEntry[];
  /** The run's state: the ledger, the trace, the context. */
  protected declare readonly runState: RunState;
  /** What the steps' references read: the input and the outputs so far. */
  protected declare readonly refs: RefScope;
  /** The step now running (or next to run). */
  private declare at: number;
  private declare finished: boolean;
  /** Whether the trace of the steps that succeeded has been written (see {@link LeafChain.writeTrace}). */
  private declare traced: boolean;

  /**
   * @param leaves - the steps, in order
   * @param okTrace - their entries for a success, made once per plan by {@link chainTrace}
   * @param runState - the run's state
   * @param refs - the scope every step reads
   */
  constructor(leaves: readonly Leaf[], okTrace: readonly TraceEntry[], runState: RunState, refs: RefScope) {
    super();
    this.leaves = leaves;
    this.okTrace = okTrace;
    this.runState = runState;
    this.refs = refs;
    this.at = 0;
    this.finished = false;
    this.traced = false;
    // One record for every step: it stays on the watchdog's list until the run ends.
    this.reused = true;
    this.frame = runState.frame;
  }

  /** The run is over: `undefined` when every step succeeded, else the failure that stopped it. */
  protected abstract end(failed: NodeOutcome | undefined): void;

  /** Start the run. */
  start(): void {
    this.go(undefined);
  }

  /** The gate delivered the result of the step in flight. */
  override deliver(result: ToolExecutionResult): void {
    this.go(result);
  }

  /** Record `result` (the last step's, if any), then run steps until one is in flight or the run ends. */
  private go(result: ToolExecutionResult | undefined): void {
    // Nothing here throws by design; if a host object's getter does, the run still ends with a result.
    try {
      const { leaves, runState: state, refs } = this;
      for (;;) {
        if (result) {
          const done = leaves[this.at];
          if (!result.success) return this.fail(done, result);
          done.recordEffect(this.tool, state);
          const output = result.output;
          if (done.name !== undefined) refs.named.set(done.name, output);
          recordOutput(refs, output);
          this.at++;
        }
        if (this.at >= leaves.length) {
          this.writeTrace();
          return this.finish(undefined);
        }
        // A result known at once (a refusal too) is recorded at the top of the loop.
        result = leaves[this.at].start(this, state, refs);
        if (!result) return;
      }
    } catch (error) {
      this.writeTrace();
      this.finish(threwOutcome(error));
    }
  }

  /** Step `done` failed with `result`: the run ends with its failure. */
  private fail(done: Leaf, result: ToolExecutionResult): void {
    this.writeTrace();
    this.finish(failed(this.runState, done.label, done.toolName, result, this.tool));
  }

  /**
   * Write the trace entries of the steps that succeeded, once, when the run ends: a chain's are
   * each leaf's own frozen entry (no annotation is around a top-level leaf), so they are copied
   * in one go rather than pushed one per step. The chain owns its run's state, so the trace holds
   * nothing before them; a failure's entry follows them.
   */
  private writeTrace(): void {
    if (this.traced) return;
    this.traced = true;
    this.runState.trace = this.okTrace.slice(0, this.at);
  }

  private finish(outcome: NodeOutcome | undefined): void {
    if (this.finished) return;
    this.finished = true;
    release(this);
    this.end(outcome);
  }
}

/**
 * The trace entries of a chain's steps for a success, in order: made once per plan, copied by each
 * run that ends, never handed out itself. Not frozen: V8 gives a slice of a frozen array an
 * elements kind that made every later use of the run's trace several times slower (measured).
 */
export function chainTrace(leaves: readonly Leaf[]): readonly TraceEntry[] {
  return leaves.map((leaf) => leaf.okEntry);
}

/** Who takes the results of the calls it started in {@link DirectLane}s: a for_each or gather fast path. */
export interface DirectOwner {
  /** The call in flight in `lane` delivered `result` (not yet recorded); called once per call in flight. */
  delivered(lane: DirectLane, result: ToolExecutionResult): void;
}

/**
 * The gate's record for a leaf call started with {@link Leaf.start} by a fast path other
 * than a chain: a for_each worker (reused item after item) or one gather call (a gather's
 * records are kept from run to run, see {@link LanePool}). One class for both, so the gate's
 * hot path sees as few shapes as possible.
 */
export class DirectLane extends GateCall {
  // Declared and set in the constructor, not class fields: see GateCall.
  /** Who takes the results. */
  declare owner: DirectOwner;
  /** The owner's own note of what runs here (a gather call's position). */
  declare position: number;
  /** What the call's arguments read (a for_each worker's item scope, reused item after item). */
  declare scope: RefScope;

  /**
   * @param owner - who takes the results
   * @param position - the owner's note of what runs here
   * @param scope - what the call's arguments read
   * @param frame - the frame of the run its calls belong to
   */
  constructor(owner: DirectOwner, position: number, scope: RefScope, frame: RunFrame) {
    super();
    this.owner = owner;
    this.position = position;
    this.scope = scope;
    this.frame = frame;
  }

  override deliver(result: ToolExecutionResult): void {
    this.owner.delivered(this, result);
  }
}

/**
 * The records of a gather's calls, kept from one run to the next: a run of a hundred calls
 * would otherwise make a hundred records and two hundred callbacks (each compiled on its first
 * call) only to drop them. A record is taken back only once its call has delivered; a call that
 * timed out has had its callbacks retired, so a late settle never reaches the record's next call.
 * Holds at most `size` records.
 */
export class LanePool {
  private readonly free: DirectLane[] = [];

  /** @param size - the most records kept: one run's worth */
  constructor(private readonly size: number) {}

  /** A record for call `position` of `owner`, reading `scope`, in the run of `frame`. */
  take(owner: DirectOwner, position: number, scope: RefScope, frame: RunFrame): DirectLane {
    const lane = this.free.pop();
    if (lane === undefined) return new DirectLane(owner, position, scope, frame);
    lane.owner = owner;
    lane.position = position;
    lane.scope = scope;
    lane.frame = frame;
    return lane;
  }

  /**
   * Keep `lanes` for a later run: each has delivered, and none is on the watchdog's list. Kept
   * last first, so the next run's calls get them back in the same order.
   */
  keep(lanes: readonly DirectLane[]): void {
    const free = this.free;
    for (let i = lanes.length - 1; i >= 0 && free.length < this.size; i--) free.push(lanes[i]);
  }
}
