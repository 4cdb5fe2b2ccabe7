import { failure } from '../codes.js';
import { DIRECT_CALL, GateCall, START_CALL, type StartCall } from './gate-call.js';
import { unwatch, watch } from './watchdog.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult, ToolResolver } from '../tool.js';

/** What a host's permission check answers. */
export interface PermissionDecision {
  /** Whether the call may go ahead. */
  isAllowed: boolean;
  /** Why not, for the refusal. */
  reason?: string;
  /** Anything else the refusal should carry. */
  details?: Record<string, unknown>;
}

/** The host's permission check, asked before every step. */
export interface PermissionManager {
  /** Decide whether `tool` may run with `args` in `context`. */
  isExecutionAllowed(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
  ): PermissionDecision | Promise<PermissionDecision>;
}

/** The side-effecting call an approval is asked for. */
export interface ApprovalAction {
  /** The tool's id. */
  toolId: string;
  /** The tool's name. */
  toolName: string;
  /** The step that calls it (its name, or its position). */
  step: string;
  /** The arguments it would run with. */
  args: Record<string, unknown>;
}

/** What an approval answers. */
export interface ApprovalDecision {
  /** Whether the step may run. */
  approved: boolean;
  /** Why not, for the refusal. */
  reason?: string;
}

/** The host's approval hook, asked before every side-effecting step. */
export interface ApprovalProvider {
  /** Ask whether `action` may run. */
  requestApproval(action: ApprovalAction): ApprovalDecision | Promise<ApprovalDecision>;
}

/** What {@link createStepGate} takes: the host's lookup and its checks. */
export interface StepGateOptions {
  /** Find a tool by name. */
  resolve: ToolResolver;
  /** Asked before every step. */
  permissionManager?: PermissionManager;
  /** Asked before every side-effecting step. */
  approvals?: ApprovalProvider;
}

/** Per-call options of {@link StepGate.run}. */
export interface GateRunOptions {
  /** The step's name, for approvals and error details. */
  step?: string;
  /** Fail with `step_timeout` when the tool does not settle within this many milliseconds. */
  timeoutMs?: number;
}

/**
 * The one door every tool call of a composition, a pipeline, a combinator tree or a script
 * passes. It holds the host's checks, so a check added here holds everywhere at once.
 */
export interface StepGate {
  /** Find a tool by name, as the host's registry has it now. */
  resolve(name: string): ITool | undefined;
  /**
   * Run `tool` (the very instance given, the one that was checked) after the permission check,
   * the approval (side-effecting tools only) and the abort check. Never throws: a tool that
   * throws, times out or returns a non-result becomes a failure result, and a tool's own failure
   * comes back as `step_failed` with the tool's code as `innerCode`.
   */
  run(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    signal?: AbortSignal,
    options?: GateRunOptions,
  ): Promise<ToolExecutionResult>;
  /**
   * The callback form of {@link StepGate.run}, the same checks in the same order, for engines
   * that drive many steps without a promise per step. Returns the result when it is known at
   * once (a refusal, a throw); otherwise returns `undefined` and calls `done` exactly once.
   * Optional: a host-made gate without it is driven through `run`.
   */
  call?(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    signal: AbortSignal | undefined,
    options: GateRunOptions | undefined,
    done: (result: ToolExecutionResult) => void,
  ): ToolExecutionResult | undefined;
}

/** A brand, so the builder can tell a gate from a bare execute callback. */
const GATE = Symbol.for('toolweave.StepGate');

/** Whether `value` is a gate made by {@link createStepGate} (or one that says it is). */
export function isStepGate(value: unknown): value is StepGate {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[GATE] === true;
}

/**
 * Make the gate every step passes.
 *
 * @example
 * ```ts
 * const gate = createStepGate({
 *   resolve: (name) => registry.get(name),
 *   permissionManager: { isExecutionAllowed: (tool) => ({ isAllowed: tool.name !== 'rm' }) },
 * });
 * ```
 */
export function createStepGate(options: StepGateOptions): StepGate {
  const { resolve, permissionManager, approvals } = options;

  /** The record form of `call`: the engine's entry, one object per call instead of closures. */
  const start: StartCall = (call, args, context, signal) => {
    // Without host checks the call stays synchronous up to the tool: no extra promise per step.
    if (!permissionManager && !approvals) return callChecked(call, args, context, signal);
    hostChecks(call.tool, args, context, call.step).then((refusal) => {
      if (refusal) return call.deliver(refusal);
      const now = callChecked(call, args, context, signal);
      if (now) call.deliver(now);
    });
    return undefined;
  };
  const call: NonNullable<StepGate['call']> & { [START_CALL]: StartCall; [DIRECT_CALL]?: StartCall } = Object.assign(
    (
      tool: ITool,
      args: Record<string, unknown>,
      context: ToolExecutionContext,
      signal: AbortSignal | undefined,
      runOptions: GateRunOptions | undefined,
      done: (result: ToolExecutionResult) => void,
    ) => start(new CallbackCall(tool, runOptions?.step ?? tool.name, runOptions?.timeoutMs, done), args, context, signal),
    { [START_CALL]: start },
  );
  // With no host checks, `start` is the checked call itself: say so, for engines that drive it directly.
  if (!permissionManager && !approvals) call[DIRECT_CALL] = callChecked;
  const gate: StepGate & { [GATE]: true; call: typeof call } = {
    [GATE]: true,
    resolve: (name) => {
      try {
        return resolve(name);
      } catch {
        return undefined;
      }
    },
    run(tool, args, context, signal, runOptions) {
      return new Promise((resolve) => {
        const now = gate.call(tool, args, context, signal, runOptions, resolve);
        if (now) resolve(now);
      });
    },
    call,
  };

  /** The permission check, then the approval (side-effecting tools only): a refusal, or `undefined` to go on. */
  async function hostChecks(
    tool: ITool,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    step: string,
  ): Promise<ToolExecutionResult | undefined> {
    try {
      if (permissionManager) {
        const decision = await permissionManager.isExecutionAllowed(tool, args, context);
        if (!decision?.isAllowed) {
          return failure('permission_denied', decision?.reason ?? `Permission denied for tool "${tool.name}".`, {
            tool: tool.name,
            step,
            reason: decision?.reason,
            ...(decision?.details ? { permission: decision.details } : {}),
          });
        }
      }
      if (approvals && tool.hasSideEffects === true) {
        const decision = await approvals.requestApproval({ toolId: tool.id, toolName: tool.name, step, args });
        if (!decision?.approved) {
          return failure('approval_rejected', decision?.reason ?? `Approval refused for tool "${tool.name}".`, {
            tool: tool.name,
            step,
            reason: decision?.reason,
          });
        }
      }
      return undefined;
    } catch (error) {
      return failure('permission_denied', `The host's check failed: ${messageOf(error)}`, { tool: tool.name, step });
    }
  }
  return gate;
}

/** The record behind the callback form of {@link StepGate.call}: one per call, hands the result to `done`. */
class CallbackCall extends GateCall {
  // Declared and set in the constructor, not a class field: see GateCall.
  private declare readonly done: (result: ToolExecutionResult) => void;

  constructor(tool: ITool, step: string, timeoutMs: number | undefined, done: (result: ToolExecutionResult) => void) {
    super();
    this.done = done;
    this.aim(tool, step, timeoutMs);
  }

  override deliver(result: ToolExecutionResult): void {
    this.done(result);
  }
}

/**
 * The abort check, then the tool, with every way it can misbehave turned into a result:
 * returned at once when known at once, else delivered to `call.deliver` exactly once. This runs
 * once per call, so rare outcomes are built in functions of their own, keeping it small enough
 * for V8 to inline.
 */
function callChecked(
  call: GateCall,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
): ToolExecutionResult | undefined {
  const tool = call.tool;
  const abort = signal ?? context.signal;
  if (abort?.aborted) return aborted(call);
  let pending: Promise<ToolExecutionResult>;
  try {
    pending = tool.execute(args, context);
  } catch (error) {
    return threw(tool, call.step, error);
  }
  if (!pending || typeof (pending as Promise<unknown>).then !== 'function') return settle(tool, call.step, pending);
  const timeoutMs = call.timeoutMs;
  // The record is its own watchdog entry: whichever of the tool and the deadline comes first wins.
  call.timed = timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs);
  if (call.timed) watch(call, timeoutMs!);
  // Made once per record and kept. (Measured: making both in one function, sharing one context,
  // made a chain of quick tools markedly slower in V8 than these two factories.)
  pending.then((call.onResult ??= resultHandler(call)), (call.onError ??= errorHandler(call)));
  return undefined;
}

function aborted(call: GateCall): ToolExecutionResult {
  return failure('step_aborted', `Aborted before tool "${call.tool.name}" ran.`, { tool: call.tool.name, step: call.step });
}

/**
 * The callback for a record's tool promise. A record is only aimed again after its call has
 * delivered, so a late settle is always of a call that timed out: `unwatch` says so, and it is
 * dropped (its timeout was delivered already).
 */
function resultHandler(call: GateCall): (result: unknown) => void {
  return (result) => {
    if (!call.timed || unwatch(call, call.reused)) call.deliver(settle(call.tool, call.step, result));
  };
}

/** The callback for a record's tool rejection; see {@link resultHandler}. */
function errorHandler(call: GateCall): (error: unknown) => void {
  return (error) => {
    if (!call.timed || unwatch(call, call.reused)) call.deliver(threw(call.tool, call.step, error));
  };
}

/** Check the shape of what a tool returned, and wrap its own failure so its code is `innerCode`. */
function settle(tool: ITool, step: string, result: unknown): ToolExecutionResult {
  // A well-formed success, the common case, is passed on as it is.
  if (typeof result === 'object' && result !== null && (result as ToolExecutionResult).success === true) return result as ToolExecutionResult;
  return settleOther(tool, step, result);
}

/** {@link settle} for anything but a well-formed success. */
function settleOther(tool: ITool, step: string, result: unknown): ToolExecutionResult {
  if (typeof result !== 'object' || result === null || typeof (result as ToolExecutionResult).success !== 'boolean') {
    return failure('step_bad_result', `Tool "${tool.name}" returned something that is not a tool result.`, {
      tool: tool.name,
      step,
    });
  }
  const r = result as ToolExecutionResult;
  if (r.success) return r;
  return {
    success: false,
    error: typeof r.error === 'string' && r.error ? r.error : `Tool "${tool.name}" failed.`,
    // A failure that is itself a wrapped step failure (a nested composition) keeps the root cause's code.
    details: { ...r.details, code: 'step_failed', innerCode: r.details?.code === 'step_failed' ? r.details.innerCode : r.details?.code, tool: tool.name, step },
    ...(r.effects ? { effects: r.effects } : {}),
  };
}

function threw(tool: ITool, step: string, error: unknown): ToolExecutionResult {
  return failure('step_threw', `Tool "${tool.name}" threw: ${messageOf(error)}`, { tool: tool.name, step });
}

/** A printable message from anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'unknown error';
  }
}
