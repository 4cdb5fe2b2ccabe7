/**
 * The gate as hosts and doors see it: the {@link StepGate} interface, what
 * {@link createStepGate} takes, and the options of one call through {@link StepGate.run}.
 */
import type { ITool, ToolExecutionContext, ToolExecutionResult, ToolResolver } from '../tool.js';
import type { RunJournal } from '../runs/journal.js';
import type { PauseOptions } from '../runs/pausing.js';
import type { BudgetLimits } from './budget.js';
import type { ApprovalProvider, GateCheck, PermissionManager, RefusalAdvice } from './host-hooks.js';
import type { Tracer } from './tracing.js';
import type { FlowOptions } from '../flows/options.js';

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
   * Follow where data came from, and judge each side-effecting call by it: every tool output is
   * untrusted unless the host says otherwise, the arguments a model gives a door carry what its
   * session has seen, and a call untrusted data steers is asked about (the approval hook sees where
   * each argument came from) or refused (`flow_untrusted`). Without it nothing is followed, and
   * nothing costs. See {@link FlowOptions} and the guide's "Untrusted data".
   */
  flows?: FlowOptions;
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

