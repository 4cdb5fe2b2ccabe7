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
