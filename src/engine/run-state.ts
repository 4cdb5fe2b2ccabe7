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
  /** The failures of nodes with `onError: 'continue'`, in order. */
  continued: ToolExecutionResult[];
  /** Where undo actions go: the innermost rolling-back scope's log, if any. */
  undo: UndoAction[] | undefined;
  /** The annotations around the node now running, innermost last. */
  annotations: { intent: string; hypothesis?: string }[];
}

/** What a node's run comes to: its output, or the failure that ended it. */
export type NodeOutcome = { ok: true; output: unknown } | { ok: false; failure: ToolExecutionResult };

/** A compiled node: runs against the run's state and the references' scope. Never throws. */
export type NodePlan = (state: RunState, scope: RefScope) => Promise<NodeOutcome>;

/** A successful outcome. */
export function done(output: unknown): NodeOutcome {
  return { ok: true, output };
}

/** The code of a failure result. */
export function codeOf(result: ToolExecutionResult): string | undefined {
  return result.details?.code;
}
