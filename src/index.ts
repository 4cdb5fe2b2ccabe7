/**
 * toolweave: compose tool calls for LLM agents. Every tool call, whichever door it comes
 * through, passes one {@link StepGate}.
 *
 * Where to start: {@link createStepGate} makes the gate; {@link ComposableToolBuilder} builds a
 * composite tool from a spec; {@link createRunPipelineTool}, {@link createComposeTool} and
 * {@link createScriptTool} give the model tools that batch other tools; {@link withObservations}
 * keeps large results out of the conversation. The other entries connect MCP (`toolweave/mcp`),
 * agent frameworks (`toolweave/ai-sdk`, `toolweave/langchain`, `toolweave/openai-agents`),
 * Redis (`toolweave/redis`) and a durable engine, DBOS (`toolweave/dbos`).
 *
 * @module toolweave
 */
export type {
  ITool,
  JSONSchemaObject,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolResultDetails,
  EffectRecord,
  EffectOutcome,
  DryRun,
  ToolResolver,
} from './tool.js';
export { ERROR_CODES, failure, type ErrorCode, type FailureDetails } from './codes.js';
export { checkChainable, type ChainCheck, type SideEffectingTools } from './gate/stages/chainable.js';
export { MAX_COMPOSITION_DEPTH } from './gate/depth.js';
export { createStepGate, isStepGate } from './gate/step-gate.js';
export type { StepGate, StepGateOptions, GateRunOptions } from './gate/options.js';
export type {
  PermissionManager,
  PermissionDecision,
  ApprovalProvider,
  ApprovalAction,
  ApprovalDecision,
  ApprovalPending,
  ApprovalCaller,
  GateCheck,
  GateCheckRequest,
  RefusalAdvice,
} from './gate/host-hooks.js';
export { approvalText, screenQuote } from './gate/approval-text.js';
export { DEFAULT_MAX_FLOW_SESSIONS, readersInclude, type FlowOptions, type FlowPolicy, type FlowCall, type FlowDecision, type ArgProvenance, type Provenance } from './flows/options.js';
export { MAX_LABEL_SOURCES, type Label, type LabelSource } from './flows/label.js';
export { resultProvenance } from './flows/result-provenance.js';
export { resumeRun, type ResumeDecision } from './doors/resume.js';
export { argumentsLabelOf } from './doors/arguments-label.js';
export { isApprovalPending, type ApprovalPendingResult, type ApprovalPendingDetails } from './runs/approval-pending.js';
export { createMemoryRunJournal, DEFAULT_JOURNAL_MAX_RUNS, DEFAULT_JOURNAL_MAX_RUNS_PER_SCOPE, type MemoryRunJournalOptions } from './runs/memory-journal.js';
export { RunJournalRefusal, type RunJournalRefusalCode } from './runs/journal.js';
export type { RunJournal, PausedRun, PendingCall, JournalPendingCall, RunCallRecord, SandboxValues } from './runs/journal.js';
export { DEFAULT_PAUSE_TTL_MS, DEFAULT_RESUME_LEASE_MS, type PauseOptions } from './runs/pausing.js';
export { DEFAULT_BUDGET_LIMITS, type BudgetLimits, type BudgetLimitName } from './gate/budget.js';
export { createToolRegistry, type ToolRegistry } from './gate/tool-registry.js';
export type { DoorKind, DoorInfo, ToolEvent, ToolCallStarted, ToolCallEnded } from './tool-events.js';
export { callByName, callResolved, type CallByNameOptions, type CallByNameResult } from './gate/call.js';
export { argsRefusal } from './gate/stages/arguments.js';
export { ComposableToolBuilder, SpecError, type ComposableToolBuilderOptions, type RunPipelineOptions, type ExecuteCallback, type InputOf } from './builder.js';
export type { ValidateOptions } from './builder.js';
export type { SnapshotProvider } from './engine/snapshot.js';
export type { ComposableToolSpec, SpecNode, StepNode, GatherNode, ForEachNode, PipeNode, TryAndCheckNode, ScopeNode, AnnotateNode, NodeCommon, CompensationSpec, CombinatorName } from './spec/types.js';
export { COMPOSABLE_TOOL_SPEC_SCHEMA, MAX_TREE_DEPTH } from './spec/schema.js';
export type { ValidationResult } from './spec/validate.js';
export type { TraceEntry } from './engine/run-state.js';
export { DEFAULT_STEP_TIMEOUT_MS } from './engine/compile-env.js';
export { createRunPipelineTool, DEFAULT_MAX_PIPELINE_STEPS, type RunPipelineToolOptions, type PipelineStep, type PipelineStepReport } from './agent-tools/run-pipeline.js';
export { createComposeTool, composeInputSchema, type ComposeToolOptions } from './agent-tools/compose.js';
export { renderUsageGuide, type GuideTool, type UsageGuideOptions } from './agent-tools/usage-guide.js';
export { RUN_PIPELINE_TOOL_NAME, COMPOSE_TOOL_NAME, SCRIPT_TOOL_NAME } from './agent-tools/batching-names.js';
export { FOR_EACH_DEFAULT_CONCURRENCY, FOR_EACH_MAX_CONCURRENCY, FOR_EACH_DEFAULT_MAX_ITEMS } from './engine/combinators/for-each.js';
export { TRY_AND_CHECK_MAX_ATTEMPTS, checkPassed } from './engine/combinators/try-and-check.js';
export type { RollbackEntry } from './engine/combinators/scope.js';
export * from './agent-tools/script/index.js';
export * from './agent-tools/observations/index.js';
export * from './shaping/index.js';
export * from './discovery/index.js';
export * from './forge/index.js';
