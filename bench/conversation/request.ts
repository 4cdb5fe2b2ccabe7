/**
 * The JSON a host sends for one model turn: the system text, every tool definition the model is
 * offered, and every message so far (the user's task, each earlier tool call and tool result).
 */
import type { ITool } from '../../dist/index.js';

/** One tool as the model is offered it. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One tool call the model makes. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One message of the conversation. */
export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; tool_calls: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The definition sent for `tool`: its name, description and input schema. */
export function definitionOf(tool: ITool): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

/** The request body of one turn, as sent. */
export function requestJson(system: string, tools: readonly ToolDefinition[], messages: readonly Message[]): string {
  return JSON.stringify({ system, tools, messages });
}

/** What the model writes for one tool call: `{ name, arguments }`. */
export function toolCallJson(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return JSON.stringify({ name: call.name, arguments: call.arguments });
}
