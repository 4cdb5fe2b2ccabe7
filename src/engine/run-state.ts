/**
 * What one run of a plan carries: the gate and the host's rule, the context the steps see,
 * the effects ledger, the trace, and the undo log of the innermost rolling-back scope.
 */
import type { SnapshotProvider } from './snapshot.js';
import type { RefScope } from '../refs/scope.js';
import type { StepGate } from '../gate/step-gate.js';
import type { EffectRecord, ToolExecutionContext, ToolExecutionResult } from '../tool.js';

/** One entry of a run's trace: a node that ran, failed or was skipped. */
export interface TraceEntry {
  /** The node's label: its name, or its place in the spec (`steps[1].calls.source`). */
  step: string;
  /** The tool, for a leaf. */
  tool?: string;
  /** Whether it succeeded. */
  ok: boolean;
  /** It was skipped by its `when`. */
  skipped?: true;
  /** The failure code, when it failed. */
  code?: string;
  /** Its output came from `dry.stepOutputs`. */
  dry?: true;
  /** How many tries it took, when more than one. */
  attempts?: number;
  /** The intent of the annotate node around it. */
  intent?: string;
  /** The hypothesis of the annotate node around it. */
  hypothesis?: string;
  /** For a for_each: how many items ran (its items are not listed one by one). */
  items?: number;
}

/** An action that undoes a step: run in reverse order when a scope rolls back. */
export interface UndoAction {
  /** The step it undoes. */
  step: string;
  /** The compensating tool (absent for a snapshot restore). */
  tool?: string;
  /** Do it; resolves to the undo's own result. */
  run(): Promise<ToolExecutionResult>;
}

/** The state of one run. Combinators share it; a scope swaps in its own undo log. */
export interface RunState {
  gate: StepGate;
  sideEffectingTools: ReadonlySet<string>;
  /** The context the steps get (depth one more than the caller's, the run's signal). */
  context: ToolExecutionContext;
  signal: AbortSignal | undefined;
  dry: { stepOutputs: Record<string, unknown> } | undefined;
  stepTimeoutMs: number;
  snapshots: SnapshotProvider | undefined;
  /** The ids of compositions on the call path, for the cycle guard. */
  compositionPath: readonly string[];
  effects: EffectRecord[];
  trace: TraceEntry[];
  /** Labels of the leaves that completed, in order. */
  completed: string[];
  /**
   * Whether leaves add themselves to the trace and the completed list. A for_each turns it off
   * for its items and records one entry for them all: ten thousand identical entries help no one.
   * The effects ledger is always kept in full.
   */
  recording: boolean;
  /** The failures of nodes with `onError: 'continue'`, in order. */
  continued: ToolExecutionResult[];
  /** Where undo actions go: the innermost rolling-back scope's log, if any. */
  undo: UndoAction[] | undefined;
  /** The annotations around the node now running, innermost last. */
  annotations: { intent: string; hypothesis?: string }[];
}

/** What a node's run comes to: its output, or the failure that ended it. */
export type NodeOutcome = { ok: true; output: unknown } | { ok: false; failure: ToolExecutionResult };

/**
 * A compiled node: runs against the run's state and the references' scope. Never throws.
 * A leaf also carries `drive`, its callback form, so a sequence of quick steps runs without a
 * promise and an async frame per step.
 */
export type NodePlan = ((state: RunState, scope: RefScope) => Promise<NodeOutcome>) & { drive?: DrivePlan };

/** The callback form of a plan: the outcome when known at once, else `undefined` and `done` is called once. */
export type DrivePlan = (state: RunState, scope: RefScope, done: (outcome: NodeOutcome) => void) => NodeOutcome | undefined;

/** A plan from its callback form; the plan keeps `drive` so sequences can use it directly. */
export function fromDrive(drive: DrivePlan): NodePlan {
  const plan: NodePlan = (state, scope) =>
    new Promise((resolve) => {
      const now = drive(state, scope, resolve);
      if (now) resolve(now);
    });
  plan.drive = drive;
  return plan;
}

/**
 * Start a plan by callback: the outcome when known at once, else `undefined` and `done` is called
 * once. A leaf is driven directly; any other plan through its promise.
 */
export function startPlan(plan: NodePlan, state: RunState, scope: RefScope, done: (outcome: NodeOutcome) => void): NodeOutcome | undefined {
  if (plan.drive) return plan.drive(state, scope, done);
  plan(state, scope).then(done, (error: unknown) => done(threwOutcome(error)));
  return undefined;
}

/**
 * Run plans one after another, each seeing the previous one's output through `onOutput`.
 * Leaves are driven by callback; a step that completes at once is handled in the loop, so a
 * long run of refusals or dry outputs does not grow the stack. `finish` is called exactly once.
 */
export function runSequence(
  plans: readonly NodePlan[],
  state: RunState,
  scopeFor: (index: number) => RefScope,
  onOutput: (index: number, output: unknown) => void,
  finish: (outcome: NodeOutcome | undefined) => void,
): void {
  let i = 0;
  let finished = false;
  const end = (outcome: NodeOutcome | undefined): void => {
    if (finished) return;
    finished = true;
    finish(outcome);
  };
  const advance = (outcome: NodeOutcome): boolean => {
    if (!outcome.ok) {
      end(outcome);
      return false;
    }
    onOutput(i, outcome.output);
    i++;
    return true;
  };
  const later = (outcome: NodeOutcome): void => {
    if (advance(outcome)) loop();
  };
  const loop = (): void => {
    // Plans do not throw by design; if a host object's getter does, the run still ends with a result.
    try {
      while (i < plans.length) {
        const now = startPlan(plans[i], state, scopeFor(i), later);
        if (!now) return;
        if (!advance(now)) return;
      }
    } catch (error) {
      end(threwOutcome(error));
      return;
    }
    end(undefined);
  };
  loop();
}

/** The outcome of a plan that threw, which plans never do by design. */
export function threwOutcome(error: unknown): NodeOutcome {
  return {
    ok: false,
    failure: {
      success: false,
      error: `The run failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
      details: { code: 'step_threw' },
    },
  };
}

/** A successful outcome. */
export function done(output: unknown): NodeOutcome {
  return { ok: true, output };
}

/** The code of a failure result. */
export function codeOf(result: ToolExecutionResult): string | undefined {
  return result.details?.code;
}
