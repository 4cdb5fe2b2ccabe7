import { failure } from '../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult, ToolResolver } from '../tool.js';
import { budgetLimits, type BudgetLimits } from './budget.js';
import { abortedBeforeRun, callChecked, callCounted, countBeforeAsking, messageOf } from './execute-call.js';
import { GateCall, registerGate, type StartCall } from './gate-call.js';
import { observe, observedEnd } from './events.js';
import { frameOf, type DoorKind, type RunFrame } from './run-frame.js';
import { RecordedCall } from './recorded-call.js';
import type { RunJournal } from '../runs/journal.js';
import { createMemoryRunJournal } from '../runs/memory-journal.js';
import { DEFAULT_PAUSE_TTL_MS, DEFAULT_RESUME_LEASE_MS, stoppedResult, waitingResult, type PauseOptions, type Pausing, type RunRecord } from '../runs/run-record.js';
import { defaultObservationScope } from '../agent-tools/observations/observation-scope.js';
import type { Tracer } from './tracing.js';
import { ticksFor } from './watchdog.js';

export { messageOf };

/**
 * What a host's permission check answers.
 *
 * @category The gate
 */
export interface PermissionDecision {
  /** Whether the call may go ahead. */
  isAllowed: boolean;
  /** Why not, for the refusal. */
  reason?: string;
  /** Anything else the refusal should carry. */
  details?: Record<string, unknown>;
}

/**
 * The host's permission check, asked before every step.
 *
 * @category The gate
 */
export interface PermissionManager {
  /** Decide whether `tool` may run with `args` in `context`. */
  isExecutionAllowed(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
  ): PermissionDecision | Promise<PermissionDecision>;
}

/**
 * The side-effecting call an approval is asked for.
 *
 * Its fields are the values exactly as they
 * are, for a host to decide with; several were chosen by a model and may hold newlines, line
 * separators or bidi overrides written to look like something else. Show a person
 * {@link approvalText} of it (or values passed through {@link screenQuote}), never these values
 * as they are.
 *
 * @category The gate
 */
export interface ApprovalAction {
  /** The tool's id. */
  toolId: string;
  /** The tool's name. */
  toolName: string;
  /**
   * The step that calls it (its name, or its position), exactly as given: a model's own string
   * through run_pipeline (a step id) and compose (a gather key in its place); see {@link ApprovalCaller.modelChosen}.
   */
  step: string;
  /** The arguments it would run with: the very object the tool runs with if approved. */
  args: Record<string, unknown>;
  /** Who makes the call: the door, the composition path, and which values a model chose. Absent for a direct call. */
  caller?: ApprovalCaller;
}

/**
 * Who makes a call an approval is asked for.
 *
 * A model chooses some of what an approval screen
 * shows (a run_pipeline step id, a script's intention, the arguments); `modelChosen` names them,
 * so a screen can show them as claims, not as facts. {@link approvalText} shows them so.
 *
 * @category The gate
 */
export interface ApprovalCaller {
  /** The door the call comes through. */
  door: DoorKind;
  /** The composite's name, when the door is a composite (chosen by the host). */
  composite?: string;
  /** The ids of the compositions on the call path, outermost first. */
  path: readonly string[];
  /**
   * The script's stated intention (run_js; chosen by the model), exactly as the model wrote it:
   * show it through {@link screenQuote} (as {@link approvalText} does), never as it is.
   */
  intention?: string;
  /** Which of the values shown a model chose: the step's name, the intention, the arguments. */
  modelChosen: readonly ('step' | 'intention' | 'args')[];
}

/**
 * What an approval answers now: `{ approved: true }` lets the call run, `{ approved: false }` refuses it.
 *
 * (An approval may also answer {@link ApprovalPending}; anything else refuses the call.)
 *
 * @category The gate
 */
export interface ApprovalDecision {
  /** Whether the step may run. */
  approved: boolean;
  /** Why not, for the refusal. */
  reason?: string;
}

/**
 * An approval's answer that a person will decide later.
 *
 * The door the call came through stops at
 * it (the call does not run) and answers `approval_pending`, with a token to continue the run with
 * once they have decided (see `resumeRun`).
 *
 * @category The gate
 */
export interface ApprovalPending {
  /** A person will decide later: the run pauses at this call. */
  pending: true;
}

/**
 * The host's approval hook, asked before every side-effecting step.
 *
 * It is asked only about a call that
 * could still run: not about one already aborted, refused as interactive under a script, or past
 * the budget's `calls`. A call asked about counts against that budget from then on, approved or
 * not, so calls asked about at once cannot all pass a budget with room for one, and a model cannot
 * put questions to a person without end.
 *
 * @category The gate
 */
export interface ApprovalProvider {
  /**
   * Ask whether `action` may run. `context` is the context the call would run with, so a host
   * can tell which request, session or user the approval belongs to. Its `signal` is the call's
   * own abort signal: when it fires the call is gone (cancelled, or its run ended), and a question
   * still open should be withdrawn; whatever the answer then, the call does not run.
   */
  requestApproval(action: ApprovalAction, context: ToolExecutionContext): ApprovalDecision | ApprovalPending | Promise<ApprovalDecision | ApprovalPending>;
}

/**
 * A check a host adds to the gate, asked before every call through every door (after the
 * permission check, before the approval).
 *
 * It allows a call only by answering
 * `{ isAllowed: true }`; anything else refuses it (`permission_denied`), and a check that throws
 * or answers something malformed refuses it too: the gate fails closed.
 *
 * @category The gate
 */
export type GateCheck = (call: GateCheckRequest) => PermissionDecision | Promise<PermissionDecision>;

/**
 * What a {@link GateCheck} is asked about.
 *
 * @category The gate
 */
export interface GateCheckRequest {
  /** The tool about to run (the very instance that will run). */
  tool: ITool;
  /** Its arguments. */
  args: Record<string, unknown>;
  /** The context it will get. */
  context: ToolExecutionContext;
  /** The step that calls it (its name, or its position). */
  step: string;
}

/**
 * The host's words, in a refusal, for what its user can change.
 *
 * A refusal says what to do about
 * it; a library host's user changes the options, and the defaults name them. A host with settings
 * of its own (a command line, a config file) names those instead, so the person who reads the
 * refusal can act on it. Each method is asked when a refusal is made; one that throws or answers
 * anything but text (or empty text) leaves the default in place.
 *
 * @example
 * ```ts
 * const gate = createStepGate({
 *   resolve: (name) => registry.get(name),
 *   advice: { chain: (tool) => `add "${tool}" to chainable_tools in host.toml` },
 * });
 * ```
 *
 * @category The gate
 */
export interface RefusalAdvice {
  /**
   * How to let side-effecting tool `tool` be chained (`step_not_chainable`), as the words after
   * "call it directly, or"; `undefined` keeps the default: list it in `sideEffectingTools`
   * (`builder.bind`, or the option of `createRunPipelineTool`, `createComposeTool` or `createScriptTool`).
   */
  chain?(tool: string): string | undefined;
  /**
   * How to declare whether `tool` has side effects (`side_effects_undeclared`), as the words after
   * "call it directly, or"; `undefined` keeps the default: declare `hasSideEffects` on the tool.
   */
  declare?(tool: string): string | undefined;
  /**
   * More to say about a name no tool has (`step_missing`), such as why a tool may be missing now:
   * a sentence added after the refusal's own. Default: nothing.
   */
  missing?(tool: string): string | undefined;
}

/**
 * What {@link createStepGate} takes: the host's lookup, its checks and the budget limits.
 *
 * @category The gate
 */
export interface StepGateOptions {
  /** Find a tool by name. */
  resolve: ToolResolver;
  /**
   * Every name `resolve` knows, as the registry stands now: lets `validate`, `build` and a
   * refusal suggest the closest names for a typo ("did you mean lookup?"). Optional.
   */
  names?: () => Iterable<string>;
  /**
   * The registry's version: a value the host changes whenever a tool is added, removed or
   * replaced, or changes its declarations. While it stays the same, a composite reuses the tools
   * its last check resolved instead of resolving them again at every run and every step (it
   * still asks the version each time). Optional: without it, every run and every step resolves.
   */
  version?: () => unknown;
  /** Asked before every step. */
  permissionManager?: PermissionManager;
  /**
   * More checks, asked in order before every call through every door (a composite, run_pipeline,
   * compose, run_js, and every door nested in them). The supported way to add a policy: wrapping
   * the gate object works for calls made through the wrapper's `run`, but this list holds everywhere.
   */
  checks?: readonly GateCheck[];
  /** Asked before every side-effecting step that could still run (see {@link ApprovalProvider}). */
  approvals?: ApprovalProvider;
  /**
   * Where runs that wait for a person are kept (an approval answered `{ pending: true }`): a
   * journal shared by several processes lets any of them resume a run. Default: an in-memory
   * journal of this gate ({@link createMemoryRunJournal}). Used only with `approvals`.
   */
  journal?: RunJournal;
  /** How long a paused run's token lives, how long a resumption holds it, and whose it is (see {@link PauseOptions}). */
  pauses?: PauseOptions;
  /**
   * The limits of the budget every call from outside carries into the doors it enters (a
   * composite, a pipeline, a compose tree or a script run through this gate, and everything
   * nested in them): tool calls in all, calls at once, sandboxes at once. Defaults:
   * `DEFAULT_BUDGET_LIMITS`.
   */
  budget?: Partial<BudgetLimits>;
  /**
   * An OpenTelemetry tracer (`@opentelemetry/api`): every door's run through this gate is a span
   * (`execute_tool <name>`), and every call a child span of the door that made it, following the
   * GenAI semantic conventions (`gen_ai.operation.name`, `gen_ai.tool.name`, `error.type`), with
   * `toolweave.step`, `toolweave.side_effects`, `toolweave.inner_code` and `toolweave.dry_run`.
   * The parent travels with the run: no context manager is needed. Without one, nothing is traced.
   * A span carries codes and names, not values: see {@link StepGateOptions.traceMessages}.
   */
  tracer?: Tracer;
  /**
   * Let the spans' status messages carry each failure's message. By default a failed span's
   * status message is its code (as `error.type` is): a message may quote what a model sent
   * (`args_invalid`'s `(got "...")`), what a tool printed or what a tool threw, and a trace
   * backend is often kept longer and seen by more people than the run's own results. Default false.
   */
  traceMessages?: boolean;
  /**
   * The host's words for what its user can change, in the chainability refusals of every door
   * through this gate and in `validate` and `build` (see {@link RefusalAdvice}). Default: the
   * options that change it.
   */
  advice?: RefusalAdvice;
}

/**
 * Per-call options of {@link StepGate.run}.
 *
 * @category The gate
 */
export interface GateRunOptions {
  /** The step's name, for approvals and error details. */
  step?: string;
  /** Fail with `step_timeout` when the tool does not settle within this many milliseconds. */
  timeoutMs?: number;
}

/**
 * The one door every tool call of a composition, a pipeline, a combinator tree or a script
 * passes.
 *
 * It holds the host's checks, so a check added here holds everywhere at once.
 *
 * A gate that {@link createStepGate} made is frozen and the engine drives it on a fast path that
 * keeps every one of its checks. Any other object with these methods (a host's own gate, or a
 * wrapper around one) is driven through its `run`, so whatever the host does there holds.
 *
 * @category The gate
 */
export interface StepGate {
  /** Find a tool by name, as the host's registry has it now. */
  resolve(name: string): ITool | undefined;
  /** Every name `resolve` knows now, when the host said (see {@link StepGateOptions.names}). */
  names?(): Iterable<string>;
  /** The host's words for what its user can change, when it gave them (see {@link StepGateOptions.advice}). */
  readonly advice?: RefusalAdvice;
  /**
   * Run `tool` (the very instance given, the one that was checked) after the permission check,
   * the host's checks, the approval (side-effecting tools only, asked only when the abort check
   * and the budget would let the call run, and the abort checked again after the answer), the
   * abort check and the budget.
   * Never throws: a tool that throws, times out or returns a non-result becomes a failure result,
   * and a tool's own failure comes back as `step_failed` with the tool's code as `innerCode`.
   */
  run(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    signal?: AbortSignal,
    options?: GateRunOptions,
  ): Promise<ToolExecutionResult>;
}

/** A brand, so the builder can tell a gate from a bare execute callback. */
const GATE = Symbol.for('toolweave.StepGate');

/**
 * Whether `value` is a gate made by {@link createStepGate} (or one that says it is).
 *
 * @category The gate
 */
export function isStepGate(value: unknown): value is StepGate {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[GATE] === true;
}

/**
 * Make the gate every step passes.
 *
 * @throws RangeError when a `pauses` setting is not a positive number of milliseconds (a
 *   programming error, not a result).
 *
 * @example
 * ```ts
 * const gate = createStepGate({
 *   resolve: (name) => registry.get(name),
 *   permissionManager: { isExecutionAllowed: (tool) => ({ isAllowed: tool.name !== 'rm' }) },
 *   checks: [({ tool, context }) => ({ isAllowed: context.user !== 'guest' || tool.hasSideEffects === false })],
 *   budget: { calls: 500 },
 * });
 * ```
 *
 * @category The gate
 */
export function createStepGate(options: StepGateOptions): StepGate {
  const { resolve, permissionManager, approvals } = options;
  const checks = options.checks ? [...options.checks] : [];
  const hasHostChecks = permissionManager !== undefined || approvals !== undefined || checks.length > 0;

  // Only a gate that asks for approvals can pause a run.
  const pausing: Pausing | undefined = approvals
    ? {
        journal: options.journal ?? createMemoryRunJournal(),
        ttlMs: positive(options.pauses?.ttlMs, DEFAULT_PAUSE_TTL_MS),
        leaseMs: positive(options.pauses?.leaseMs, DEFAULT_RESUME_LEASE_MS),
        scope: options.pauses?.scope ?? defaultObservationScope,
      }
    : undefined;

  /**
   * Every leaf call of a run that may pause is recorded, whichever gate it passes (a composite
   * made with another gate, inside the run, included): a call not recorded would run again when
   * the run resumes. A composition's own calls are recorded inside it.
   */
  const start: StartCall = (call, args, context, signal) => {
    if (call.tool.composition !== true) {
      const frame = (call.frame ??= frameOf(context));
      if (frame?.run !== undefined) return startRecorded(frame.run, frame, call, args, context, signal);
    }
    // Without host checks the call stays synchronous up to the tool: no extra promise per step.
    if (!hasHostChecks) return callChecked(call, args, context, signal);
    startChecked(call, args, context, signal, false);
    return undefined;
  };

  /**
   * The host's checks, then the gate's own and the tool; `approved`: a person approved the call
   * already (a resumption); `run`: the resumption whose lease must still hold when the call starts.
   */
  const startChecked = (call: GateCall, args: Record<string, unknown>, context: ToolExecutionContext, signal: AbortSignal | undefined, approved: boolean, run?: RunRecord): void => {
    hostChecks(call, args, context, signal ?? context.signal, approved).then(
      (outcome) => {
        // The host's checks (an approval above all) may take long: the lease is looked at again
        // just before the call starts (`run` is given only for a side-effecting call). The
        // refusal is not the call's outcome, so it bypasses the run's record of it.
        const lapsed = run !== undefined && (outcome === APPROVED || outcome === undefined) ? run.fence(call.tool.name, call.step) : undefined;
        if (lapsed) return (call as RecordedCall).outer.deliver(lapsed);
        if (outcome === APPROVED) {
          const now = callCounted(call, args, context, signal);
          if (now) call.deliver(now);
          return;
        }
        if (outcome === PENDING) return waiting(call, args, context, false);
        if (outcome) return refused(call, context, outcome);
        const now = callChecked(call, args, context, signal);
        if (now) call.deliver(now);
      },
      // Only a host object's getter can get here (the checks themselves are caught): fail closed.
      (error: unknown) => refused(call, context, failure('permission_denied', `The host's checks failed: ${messageOf(error)}`, { tool: call.tool.name, step: call.step })),
    );
  };

  /**
   * A leaf call of a run that may pause: it takes the next position; after a pause (or a replay
   * that diverged) it does not start; in a resumption, the calls up to the pause are answered
   * from the journal without running, and the call paused at is run or refused as decided. Every
   * other call runs as it would, with its idempotency key in its context, and its outcome noted.
   */
  const startRecorded = (run: RunRecord, frame: RunFrame, call: GateCall, args: Record<string, unknown>, context: ToolExecutionContext, signal: AbortSignal | undefined): ToolExecutionResult | undefined => {
    const tool = call.tool;
    const position = run.positionOf(frame.path, call.step);
    if (run.stopped) return stoppedResult(run, tool.name, call.step);
    const answer = run.answer(position, tool.name, args);
    let approved = false;
    if (answer !== undefined) {
      switch (answer.kind) {
        case 'result': {
          // Answered from the journal: counted as the call was, not run again.
          frame.budget.calls++;
          return answer.result;
        }
        case 'diverged':
          return answer.result;
        case 'unknown':
          run.pause(position, pendingOf(call, args, context, true));
          return waitingResult(tool.name, call.step, true);
        case 'refused': {
          // Counted as it was when the person was asked about it.
          frame.budget.calls++;
          const result = { ...answer.result, details: { ...answer.result.details, step: call.step } };
          run.ended(position, tool.name, args, result);
          return result;
        }
        case 'approved':
          approved = true;
      }
    }
    const recorded = new RecordedCall(call, run, position, args);
    const keyed: ToolExecutionContext = { ...context, idempotencyKey: run.keyOf(position) };
    if (run.writesThrough && tool.hasSideEffects !== false) {
      // A resumption past its lease starts no side effect: another may hold the token by now.
      const lapsed = run.fence(tool.name, call.step);
      if (lapsed) return lapsed;
      // A resumption marks a side-effecting call started before it runs: should its process stop,
      // the next attempt finds it and asks a person again rather than run it twice.
      run.started(position, tool.name, args).then((written) => {
        if (written) startChecked(recorded, args, keyed, signal, approved, run);
        else recorded.deliver(failure('journal_unavailable', `Tool "${tool.name}" was not started: the run journal could not record its start.`, { tool: tool.name, step: call.step }));
      });
      return undefined;
    }
    startChecked(recorded, args, keyed, signal, approved);
    return undefined;
  };

  const listNames = options.names;
  const gate: StepGate & { [GATE]: true } = {
    [GATE]: true,
    resolve: (name) => {
      try {
        return resolve(name);
      } catch {
        // A resolver that throws resolves nothing.
      }
    },
    ...(listNames
      ? {
          names: () => {
            try {
              return [...listNames()];
            } catch {
              return [];
            }
          },
        }
      : {}),
    ...(options.advice ? { advice: options.advice } : {}),
    run(tool, args, context, signal, runOptions) {
      // What a host's lookup answered for a name it does not know: a result, not a throw.
      if (typeof tool !== 'object' || tool === null) {
        return Promise.resolve(failure('step_missing', `No tool was given to run (got ${tool === null ? 'null' : typeof tool}): look the tool up by name, and run it only if it was found.`, runOptions?.step !== undefined ? { step: runOptions.step } : {}));
      }
      return new Promise((resolve) => {
        const now = start(new CallbackCall(tool, runOptions?.step ?? tool.name ?? '', runOptions?.timeoutMs, resolve), args, context ?? {}, signal);
        if (now) resolve(now);
      });
    },
  };
  // Frozen, and known by identity: a copy or a changed object is driven through its own `run`.
  Object.freeze(gate);
  registerGate(gate, { start, pausing, version: options.version, tracer: options.tracer, traceMessages: options.traceMessages === true, limits: budgetLimits(options.budget), lookup: resolve });

  /**
   * The permission check, the host's checks, then the approval (side-effecting tools only): a
   * refusal, `undefined` to go on, or {@link APPROVED} for a call a person approved (already
   * counted against the budget, see `countBeforeAsking`).
   */
  async function hostChecks(
    call: GateCall,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    abort: AbortSignal | undefined,
    approved: boolean,
  ): Promise<ToolExecutionResult | typeof APPROVED | typeof PENDING | undefined> {
    const tool = call.tool;
    const step = call.step;
    if (permissionManager) {
      const refusal = await asked(() => permissionManager.isExecutionAllowed(tool, args, context), tool, step, 'permission check');
      if (refusal) return refusal;
    }
    for (const check of checks) {
      const refusal = await asked(() => check({ tool, args, context, step }), tool, step, 'check');
      if (refusal) return refusal;
    }
    // One prompt per effect: a composition is not asked about; each side-effecting call inside it is.
    if (approvals && tool.hasSideEffects === true && tool.composition !== true) {
      // No one is asked about a call that could not run anyway.
      const cannot = countBeforeAsking(call, abort);
      if (cannot) return cannot;
      // A person approved it already, when the run paused here: they are not asked again.
      if (approved) return APPROVED;
      let refusal: ToolExecutionResult | typeof PENDING | undefined;
      try {
        const caller = callerOf(context);
        // The hook gets the call's own signal, so a question can be withdrawn when the call is gone.
        const asking = abort === context.signal ? context : { ...context, signal: abort };
        refusal = approvalRefusal(await approvals.requestApproval({ toolId: tool.id, toolName: tool.name, step, args, ...(caller ? { caller } : {}) }, asking), tool, step);
      } catch (error) {
        refusal = failure('approval_rejected', `The approval for tool "${tool.name}" failed: ${messageOf(error)}`, { tool: tool.name, step, reason: 'approval failed' });
      }
      // An approved call's abort is checked by callCounted, just before it starts; a refused or
      // deferred one whose run ended meanwhile is answered as aborted (no pause for a run that ended).
      if (refusal === undefined) return APPROVED;
      return abort?.aborted ? abortedBeforeRun(call) : refusal;
    }
    return undefined;
  }
  return gate;
}

/** What {@link createStepGate}'s host checks answer for a call a person approved. */
const APPROVED: unique symbol = Symbol('toolweave.approved');
/** What they answer for a call a person will decide about later. */
const PENDING: unique symbol = Symbol('toolweave.pending');

/** A positive option in milliseconds, or its default. */
function positive(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`A pause setting must be a positive number of milliseconds, got ${value}`);
  return value;
}

/** The call as `details.pending` lists it: as the approval request had it. */
function pendingOf(call: GateCall, args: Record<string, unknown>, context: ToolExecutionContext, unknown: boolean) {
  const caller = callerOf(context);
  return { tool: call.tool.name, step: call.step, args, ...(caller ? { caller } : {}), ...(unknown ? { unknown: true as const } : {}) };
}

/**
 * An approval answered `{ pending: true }`: in a run that may pause, the run stops at this call
 * (it does not run); outside one (a direct call through the gate, or a door whose run cannot
 * pause) there is nothing to resume, so the call is refused.
 */
function waiting(call: GateCall, args: Record<string, unknown>, context: ToolExecutionContext, unknown: boolean): void {
  const name = call.tool.name;
  if (call instanceof RecordedCall) {
    call.run.pause(call.position, pendingOf(call, args, context, unknown));
    call.outer.deliver(waitingResult(name, call.step, unknown));
    return;
  }
  refused(
    call,
    context,
    failure('approval_rejected', `The approval for tool "${name}" is pending, and this call comes from no run that can wait for it (a direct call, or a gate made without createStepGate), so the call is refused.`, {
      tool: name,
      step: call.step,
      reason: 'pending outside a run',
    }),
  );
}

/** What a model chose at each door, of what an approval shows. */
const MODEL_CHOSEN: Record<DoorKind, ApprovalCaller['modelChosen']> = {
  composite: ['args'],
  run_pipeline: ['step', 'args'],
  compose: ['step', 'args'],
  run_js: ['intention', 'args'],
};

/** The caller of a call made with `context`, from the door's frame; `undefined` for a direct call. */
function callerOf(context: ToolExecutionContext): ApprovalCaller | undefined {
  const frame = frameOf(context);
  if (!frame?.door) return undefined;
  const door = frame.door;
  return {
    door: door.kind,
    ...(door.name !== undefined ? { composite: door.name } : {}),
    // The frame's path: what a tool wrote in `sessionData` does not reach an approval.
    path: frame.path.filter((p): p is string => typeof p === 'string'),
    ...(door.intention !== undefined ? { intention: door.intention } : {}),
    modelChosen: MODEL_CHOSEN[door.kind],
  };
}

/** A call the host's checks refused: whoever watches it (a listener, a tracer) is told, then it is delivered. */
function refused(call: GateCall, context: ToolExecutionContext, refusal: ToolExecutionResult): void {
  const observation = observe(context, frameOf(context));
  if (observation) observedEnd(observation, call, refusal);
  call.deliver(refusal);
}

/** Ask a permission check or a host check: a refusal unless it answers `{ isAllowed: true }` exactly. */
async function asked(
  ask: () => PermissionDecision | Promise<PermissionDecision>,
  tool: ITool,
  step: string,
  what: string,
): Promise<ToolExecutionResult | undefined> {
  let decision: unknown;
  try {
    decision = await ask();
  } catch (error) {
    return failure('permission_denied', `The host's ${what} failed: ${messageOf(error)}`, { tool: tool.name, step, reason: `${what} failed` });
  }
  try {
    const d = decision as PermissionDecision | undefined;
    if (typeof d === 'object' && d !== null && d.isAllowed === true) return undefined;
    if (typeof d !== 'object' || d === null || d.isAllowed !== false) {
      return failure('permission_denied', `The host's ${what} answered something malformed for tool "${tool.name}" (only { isAllowed: true } allows a call), so the call is refused.`, {
        tool: tool.name,
        step,
        reason: 'malformed decision',
      });
    }
    const reason = typeof d.reason === 'string' ? d.reason : undefined;
    // Only an object is carried (null is an object to typeof, and falls out below).
    const details = typeof d.details === 'object' ? d.details : undefined;
    return failure('permission_denied', reason ?? `Permission denied for tool "${tool.name}".`, {
      tool: tool.name,
      step,
      reason,
      ...(details ? { permission: details } : {}),
    });
  } catch (error) {
    return failure('permission_denied', `The host's ${what} answered something unreadable: ${messageOf(error)}`, { tool: tool.name, step, reason: 'malformed decision' });
  }
}

/** The refusal for an approval's answer, unless it is `{ approved: true }` exactly (or {@link PENDING} for `{ pending: true }`). */
function approvalRefusal(decision: unknown, tool: ITool, step: string): ToolExecutionResult | typeof PENDING | undefined {
  try {
    const d = decision as ApprovalDecision | undefined;
    if (typeof d === 'object' && d !== null && d.approved === true) return undefined;
    if (typeof d === 'object' && d !== null && (d as Partial<ApprovalPending>).pending === true && d.approved === undefined) return PENDING;
    if (typeof d !== 'object' || d === null || d.approved !== false) {
      return failure('approval_rejected', `The approval for tool "${tool.name}" answered something malformed (only { approved: true } approves a call), so the call is refused.`, {
        tool: tool.name,
        step,
        reason: 'malformed decision',
      });
    }
    const reason = typeof d.reason === 'string' ? d.reason : undefined;
    return failure('approval_rejected', reason ?? `Approval refused for tool "${tool.name}".`, { tool: tool.name, step, reason });
  } catch (error) {
    return failure('approval_rejected', `The approval for tool "${tool.name}" answered something unreadable: ${messageOf(error)}`, { tool: tool.name, step, reason: 'malformed decision' });
  }
}

/** The record behind {@link StepGate.run}: one per call, hands the result to `done`. */
class CallbackCall extends GateCall {
  // Declared and set in the constructor, not a class field: see GateCall.
  private declare readonly done: (result: ToolExecutionResult) => void;

  constructor(tool: ITool, step: string, timeoutMs: number | undefined, done: (result: ToolExecutionResult) => void) {
    super();
    this.done = done;
    this.aim(tool, step, timeoutMs, ticksFor(timeoutMs));
  }

  override deliver(result: ToolExecutionResult): void {
    this.done(result);
  }
}
