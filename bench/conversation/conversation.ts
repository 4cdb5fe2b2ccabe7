/**
 * One simulated agent conversation. A scripted "model" makes tool calls; each turn sends the
 * whole conversation so far (system text, every offered tool definition, every message), and
 * the offered tools really run. The conversation counts what each request and each model output
 * costs, with the real tokenizer.
 */
import type { ITool, ToolExecutionResult } from '../../dist/index.js';
import { countBytes, countTokens } from './count.js';
import { resultText } from './host-view.js';
import { definitionOf, requestJson, toolCallJson, type Message, type ToolDefinition } from './request.js';
import { emptyTally, type Tally } from './tally.js';

/** What a conversation starts with. */
export interface ConversationSetup {
  /** The system text, sent on every turn. */
  system: string;
  /** Every tool the model is offered; their definitions are sent on every turn. */
  tools: readonly ITool[];
  /** The user's task: the first message. */
  task: string;
}

/** One tool call of a turn and what came back. */
export interface CallRecord {
  name: string;
  args: Record<string, unknown>;
  /** The result as the tool returned it (the host's side). */
  result: ToolExecutionResult;
  /** The result as the model reads it. */
  text: string;
}

/** A conversation in progress. */
export class Conversation {
  private readonly system: string;
  private readonly definitions: ToolDefinition[];
  private readonly tools: Map<string, ITool>;
  private readonly messages: Message[];
  private readonly cost: Tally = emptyTally();
  private nextId = 1;
  private finished = false;
  /** Every tool call made, in order. */
  readonly calls: CallRecord[] = [];

  constructor(setup: ConversationSetup) {
    this.system = setup.system;
    this.tools = new Map(setup.tools.map((t) => [t.name, t]));
    if (this.tools.size !== setup.tools.length) throw new Error('two offered tools share a name');
    this.definitions = setup.tools.map(definitionOf);
    this.messages = [{ role: 'user', content: setup.task }];
  }

  /** One turn that ends with one tool call; resolves to the text the model reads back. */
  async call(name: string, args: Record<string, unknown>): Promise<string> {
    const [record] = await this.turn([{ name, args }]);
    return record.text;
  }

  /** One turn that ends with several tool calls (run at once); resolves to their texts. */
  async callTogether(calls: readonly { name: string; args: Record<string, unknown> }[]): Promise<string[]> {
    return (await this.turn(calls)).map((r) => r.text);
  }

  /** The last turn: the model answers. Returns what the whole conversation cost. */
  answer(text: string): Tally {
    this.send();
    this.cost.outputTokens += countTokens(text);
    this.cost.outputBytes += countBytes(text);
    this.finished = true;
    return { ...this.cost };
  }

  private async turn(calls: readonly { name: string; args: Record<string, unknown> }[]): Promise<CallRecord[]> {
    if (this.finished) throw new Error('the conversation has ended');
    this.send();
    const toolCalls = calls.map((c) => ({ id: `call_${this.nextId++}`, name: c.name, arguments: c.args }));
    for (const c of toolCalls) {
      const written = toolCallJson(c);
      this.cost.outputTokens += countTokens(written);
      this.cost.outputBytes += countBytes(written);
    }
    this.cost.toolCalls += toolCalls.length;
    this.messages.push({ role: 'assistant', tool_calls: toolCalls });
    const records = await Promise.all(toolCalls.map(async (c): Promise<CallRecord> => {
      const tool = this.tools.get(c.name);
      if (!tool) throw new Error(`the scripted model called ${c.name}, which it is not offered`);
      const result = await tool.execute(c.arguments, {});
      return { name: c.name, args: c.arguments, result, text: resultText(result) };
    }));
    records.forEach((r, i) => this.messages.push({ role: 'tool', tool_call_id: toolCalls[i].id, content: r.text }));
    this.calls.push(...records);
    return records;
  }

  /** Send the conversation so far: one model call. */
  private send(): void {
    const body = requestJson(this.system, this.definitions, this.messages);
    this.cost.turns += 1;
    this.cost.inputTokens += countTokens(body);
    this.cost.inputBytes += countBytes(body);
  }
}
