/**
 * toolweave: compose tool calls for LLM agents. Every tool call, whichever door it comes
 * through, passes one {@link StepGate}.
 *
 * @packageDocumentation
 */
export type {
  ITool,
  JSONSchemaObject,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolResultDetails,
  EffectRecord,
  ToolResolver,
} from './tool.js';
export { ERROR_CODES, failure, type ErrorCode, type FailureDetails } from './codes.js';
export { checkChainable, type ChainCheck, type SideEffectingTools } from './gate/chainable.js';
export { MAX_COMPOSITION_DEPTH } from './gate/depth.js';
export {
  createStepGate,
  isStepGate,
  type StepGate,
  type StepGateOptions,
  type GateRunOptions,
  type PermissionManager,
  type PermissionDecision,
  type ApprovalProvider,
  type ApprovalAction,
  type ApprovalDecision,
} from './gate/step-gate.js';
export { callByName, type CallByNameOptions, type CallByNameResult } from './gate/call.js';
export { ComposableToolBuilder, SpecError, type ComposableToolBuilderOptions, type RunPipelineOptions, type ExecuteCallback, type InputOf } from './builder.js';
export type { SnapshotProvider } from './engine/snapshot.js';
export type { ComposableToolSpec, SpecNode, StepNode, GatherNode, ForEachNode, PipeNode, TryAndCheckNode, ScopeNode, AnnotateNode, NodeCommon, CompensationSpec, CombinatorName } from './spec/types.js';
export { COMPOSABLE_TOOL_SPEC_SCHEMA, MAX_TREE_DEPTH } from './spec/schema.js';
export type { ValidationResult } from './spec/validate.js';
export type { TraceEntry } from './engine/run-state.js';
export { DEFAULT_STEP_TIMEOUT_MS } from './engine/plan.js';
