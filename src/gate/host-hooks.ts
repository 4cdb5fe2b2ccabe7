/**
 * What a host plugs into the gate to decide about calls: its permission check, its own checks,
 * its approval hook (a person, now or later), and its words for what its user can change. The
 * gate's stages ask them; the run journal keeps what an approval was asked about; so these types
 * live below both.
 */
import type { ITool, ToolExecutionContext } from '../tool.js';
import type { DoorKind } from '../tool-events.js';
import type { ArgProvenance, Provenance } from '../flows/options.js';

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
  /**
   * Where each argument came from, by the argument's name (a gate with `flows`): trusted or not,
   * and the calls it was built from. {@link approvalText} shows it.
   */
  provenance?: Provenance;
  /** What decided that the call is made at all (a gate with `flows`). */
  control?: ArgProvenance;
  /** Untrusted data steers the call beyond what the host's policy allows: this is why the person is asked (a gate with `flows`). */
  untrusted?: boolean;
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
  /**
   * Set with `approved: false` when the call is refused only because no more questions can wait
   * now (the host's queue of them, or the caller's share of it, is full): the call answers
   * `approvals_full` instead of `approval_rejected`, so the model knows to try again once some
   * are answered.
   */
  queueFull?: true;
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
  /**
   * What to do about arguments that do not match `tool`'s inputSchema (`args_invalid`), as the
   * sentence after the problem; `undefined` keeps the default, written for a model: "Fix the
   * arguments and call again."
   */
  args?(tool: string): string | undefined;
}

