/**
 * Approvals asked over MCP belong to the call that asks them, driven by the SDK's own Client and
 * Server: a question whose call is gone (its script timed out, its request was cancelled) is
 * withdrawn from the client, and each question travels with the request of its own call, not with
 * whichever request of the session is newest.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool, createScriptTool, createStepGate, type ITool } from '../../src/index.js';
import { createMcpServer, elicitationApprovals } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';
import { until } from './helpers.js';

/** One elicitation as the client got it, and as the server sent it. */
interface Question {
  message: string;
  /** Fires when the server withdraws it (`notifications/cancelled`). */
  signal: AbortSignal;
  /** The client request the server sent it with (`relatedRequestId`). */
  relatedTo: unknown;
}

async function served(options: { scriptTimeoutMs?: number } = {}) {
  const written: unknown[] = [];
  const write = tool('write_file', (args) => void written.push(args), { hasSideEffects: true });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = false;
  const wait = tool('wait', async () => {
    waiting = true;
    await released;
    return 'done';
  }, { hasSideEffects: false });
  const registry = new Map<string, ITool>([['write_file', write], ['wait', wait]]);
  let server: Server | undefined;
  const gate = createStepGate({ resolve: (n) => registry.get(n), approvals: elicitationApprovals(() => server!) });
  for (const door of [createRunPipelineTool(gate, { sideEffectingTools: ['write_file'] }), createScriptTool(gate, { sideEffectingTools: ['write_file'], timeoutMs: options.scriptTimeoutMs })]) {
    registry.set(door.name, door);
  }
  const requests = new Map<string, unknown>();
  server = createMcpServer([...registry.values()], { gate, context: (call) => (requests.set(call.tool, call.requestId), {}) });

  // The real SDK on both ends, over a linked pair whose server side notes what each elicitation relates to.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const relatedTo = new Map<unknown, unknown>();
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message: JSONRPCMessage, sendOptions?: { relatedRequestId?: unknown }) => {
    if ('method' in message && message.method === 'elicitation/create' && 'id' in message) relatedTo.set(message.id, sendOptions?.relatedRequestId);
    return send(message, sendOptions as never);
  };
  await server.connect(serverSide);
  const client = new Client({ name: 'toolweave-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const questions: Question[] = [];
  const answers: ((approve: boolean) => void)[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    questions.push({ message: String(request.params.message), signal: extra.signal, relatedTo: relatedTo.get(extra.requestId) });
    // Answered only when the test says so.
    return new Promise((resolve) => answers.push((approve) => resolve({ action: 'accept', content: { approve } })));
  });
  // No ping first: the server's first question would have the id 0, which the SDK's client (1.x)
  // cannot see withdrawn (modelcontextprotocol/typescript-sdk#2283); the server must spare it.
  await client.connect(clientSide);
  return { server, client, questions, answers, written, requests, release, waiting: () => waiting };
}

describe('an approval asked over MCP belongs to its call', () => {
  it('is withdrawn from the client when the script that asked it times out', async () => {
    const { client, questions, written } = await served({ scriptTimeoutMs: 300 });
    const answer = CallToolResultSchema.parse(await client.callTool({ name: 'run_js', arguments: { code: "await callTool('write_file', { path: 'a' }); return 1;" } }));
    expect((answer.content[0] as { text: string }).text).toMatch(/script_timeout/u);
    expect(questions).toHaveLength(1);
    expect(await until(() => questions[0].signal.aborted, 2000)).toBe(true);
    expect(written).toEqual([]);
  });

  it('is withdrawn from the client when the client cancels the call', async () => {
    const { client, questions, written } = await served();
    const cancel = new AbortController();
    const call = client.callTool({ name: 'write_file', arguments: { path: 'a' } }, undefined, { signal: cancel.signal });
    expect(await until(() => questions.length === 1)).toBe(true);
    cancel.abort();
    await expect(call).rejects.toThrow();
    expect(await until(() => questions[0].signal.aborted, 2000)).toBe(true);
    expect(written).toEqual([]);
  });

  it('two calls at once in one session: each question travels with its own request, and goes with it', async () => {
    const { client, questions, answers, written, requests, release, waiting } = await served();
    const cancelFirst = new AbortController();
    // The first call asks only after the second has started, so the newest request is the second's.
    const first = client.callTool({ name: 'run_pipeline', arguments: { steps: [{ id: 'hold', tool: 'wait', args: {} }, { id: 'save', tool: 'write_file', args: { path: 'first' } }] } }, undefined, { signal: cancelFirst.signal });
    first.catch(() => undefined);
    expect(await until(waiting)).toBe(true);
    const second = client.callTool({ name: 'write_file', arguments: { path: 'second' } });
    expect(await until(() => questions.length === 1)).toBe(true);
    release();
    expect(await until(() => questions.length === 2)).toBe(true);
    const [secondQuestion, firstQuestion] = questions;
    expect(secondQuestion.message).toContain('Through: a direct call from the client');
    expect(firstQuestion.message).toContain('Through: run_pipeline');
    expect(secondQuestion.relatedTo).toBe(requests.get('write_file'));
    expect(firstQuestion.relatedTo).toBe(requests.get('run_pipeline'));
    // Cancelling the first call withdraws its question only.
    cancelFirst.abort();
    expect(await until(() => firstQuestion.signal.aborted, 2000)).toBe(true);
    expect(secondQuestion.signal.aborted).toBe(false);
    answers[0](true);
    expect(CallToolResultSchema.parse(await second).isError).toBeUndefined();
    expect(written).toEqual([{ path: 'second' }]);
  });

  it('a question for a request that has ended is not asked: the call is refused', async () => {
    const { server, client, questions, requests } = await served();
    await client.callTool({ name: 'run_pipeline', arguments: { steps: [] } });
    const ended = requests.get('run_pipeline');
    const decision = await elicitationApprovals(server).requestApproval({ toolId: 'w', toolName: 'write_file', step: 'later', args: {} }, { mcpRequestId: ended });
    expect(decision).toEqual({ approved: false, reason: 'The request that made the call to "write_file" has ended, so no one was asked; the call is refused.' });
    expect(questions).toEqual([]);
  });
});
