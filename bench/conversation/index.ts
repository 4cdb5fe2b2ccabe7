/** The shared conversation simulator of the token benchmarks. */
export { countBytes, countTokens } from './count.js';
export { resultText } from './host-view.js';
export { definitionOf, requestJson, toolCallJson, type Message, type ToolCall, type ToolDefinition } from './request.js';
export { emptyTally, reductionPercent, sumTallies, totalBytes, totalTokens, type Tally } from './tally.js';
export { Conversation, type CallRecord, type ConversationSetup } from './conversation.js';
export { FIXTURE_REPO, withFixtureCopy, type Workspace } from './workspace.js';
export { change, percent, printTable } from './table.js';
