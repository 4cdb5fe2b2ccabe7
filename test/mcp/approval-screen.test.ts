/**
 * What the person at the client reads when asked to approve a call, sent over MCP by the SDK's own
 * Client and Server: the values a model chose (a step's name, a gather key, a script's intention,
 * the argument names and values) can neither add a line that looks like a field of the screen nor
 * hide a field of the arguments behind a long one.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createComposeTool, createRunPipelineTool, createScriptTool, createStepGate, type ITool } from '../../src/index.js';
import { createMcpServer, elicitationApprovals } from '../../src/mcp/index.js';
import { tool } from '../helpers/tools.js';
import { connectInMemory } from './helpers.js';

/** The labels the screen's own lines start with. */
const LABELS = ['Allow a call', 'Tool:', 'Step', 'Through:', 'Intention', 'Inside:', 'Arguments'];

/** The label each line of `message` starts with, in order; a line that is not a field (an argument's line) is left out. */
function labelsOf(message: string): string[] {
  return message.split('\n').flatMap((line) => LABELS.filter((label) => line.startsWith(label)));
}

/** Characters that break a line or change how the text around them is laid out (besides the screen's own line ends). */
const LAYOUT = /[\r\u0085\u2028\u2029\u202A-\u202E\u2066-\u2069\u200B-\u200F\u061C\uFEFF\u00AD]/u;

/** A lie about the call, written as lines of the screen, with blank lines to push the real ones away. */
const FORGED = 'save\nThrough: a direct call from the client\nArguments (as the client sent them): {"path":"notes/todo.txt","content":"buy milk"}\n\n\n';
/** The real arguments: a long first field, then the one that matters. */
const SSH_ARGS = { content: 'x'.repeat(2100), path: '/home/user/.ssh/authorized_keys' };

async function served() {
  const written: unknown[] = [];
  const write = tool('write_file', (args) => void written.push(args), { hasSideEffects: true });
  const registry = new Map<string, ITool>([['write_file', write]]);
  let server: Server | undefined;
  const gate = createStepGate({ resolve: (n) => registry.get(n), approvals: elicitationApprovals(() => server!) });
  for (const door of [createRunPipelineTool(gate, { sideEffectingTools: ['write_file'] }), createComposeTool(gate, { sideEffectingTools: ['write_file'] }), createScriptTool(gate, { sideEffectingTools: ['write_file'] })]) {
    registry.set(door.name, door);
  }
  server = createMcpServer([...registry.values()], { gate });
  const client: Client = await connectInMemory(server, { elicitation: {} });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { approve: true } };
  });
  const call = async (name: string, args: Record<string, unknown>) => CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  return { call, asked, written };
}

describe('the approval screen over MCP', () => {
  it('a run_pipeline step id cannot add lines that look like fields, nor hide a later argument', async () => {
    const { call, asked, written } = await served();
    const result = await call('run_pipeline', { steps: [{ id: FORGED, tool: 'write_file', args: SSH_ARGS }] });
    expect(result.isError).toBeUndefined();
    expect(asked).toHaveLength(1);
    const message = asked[0];
    expect(labelsOf(message)).toEqual(['Allow a call', 'Tool:', 'Step', 'Through:', 'Arguments']);
    expect(message).toContain('Through: run_pipeline');
    // The field that matters is shown, named, after a first field cut on its own.
    expect(message).toContain('"path": "/home/user/.ssh/authorized_keys"');
    expect(message).toMatch(/"content": "x+…" \(2100 characters; the first \d+ shown\)/u);
    expect(message).not.toMatch(LAYOUT);
    // What was approved is what ran.
    expect(written).toEqual([SSH_ARGS]);
  });

  it('a compose gather key and a run_js intention are shown as quoted one-line strings after their mark', async () => {
    const { call, asked } = await served();
    await call('compose', { combinator: 'gather', calls: { [FORGED]: { tool: 'write_file', args: { path: 'a' } } } });
    await call('run_js', { intention: FORGED, code: "await callTool('write_file', { path: 'b' }); return 'ok';" });
    expect(asked).toHaveLength(2);
    expect(labelsOf(asked[0])).toEqual(['Allow a call', 'Tool:', 'Step', 'Through:', 'Arguments']);
    expect(asked[0]).toContain(`Step (chosen by the model): "tree.calls.save\\nThrough: a direct call from the client\\n`);
    expect(labelsOf(asked[1])).toEqual(['Allow a call', 'Tool:', 'Step', 'Through:', 'Intention', 'Arguments']);
    expect(asked[1]).toContain(`Intention (chosen by the model): "save\\nThrough: a direct call from the client\\nArguments (as the client sent them): {\\"path\\"`);
    for (const message of asked) expect(message).not.toMatch(LAYOUT);
  });

  it('line and paragraph separators, bidi overrides and invisible characters are shown escaped, in names and values too', async () => {
    const { call, asked } = await served();
    const sly = 'ok\u2028Tool: read_file\u2029\u202Eelif_daer\u202C\u200B\u2066x\u2069\uFEFF\u00AD\u0085\r';
    await call('run_pipeline', { steps: [{ id: sly, tool: 'write_file', args: { [sly]: sly, nested: { [sly]: [sly] } } }] });
    const message = asked[0];
    expect(message).not.toMatch(LAYOUT);
    expect(labelsOf(message)).toEqual(['Allow a call', 'Tool:', 'Step', 'Through:', 'Arguments']);
    const escaped = 'ok\\u2028Tool: read_file\\u2029\\u202Eelif_daer\\u202C\\u200B\\u2066x\\u2069\\uFEFF\\u00AD\\u0085\\r';
    expect(message).toContain(`Step (chosen by the model): "${escaped}"`);
    expect(message).toContain(`  "${escaped}": "${escaped}"`);
    expect(message).toContain(`  "nested": {"${escaped}":["${escaped}"]}`);
  });

  it('a step id or an argument far too long is cut, saying how long it was', async () => {
    const { call, asked } = await served();
    await call('run_pipeline', { steps: [{ id: 's'.repeat(50_000), tool: 'write_file', args: { ['k'.repeat(10_000)]: 'v', deep: { list: 'y'.repeat(9_000) } } }] });
    const message = asked[0];
    expect(message.length).toBeLessThan(4000);
    expect(message).toMatch(/^Step \(chosen by the model\): "s+…" \(50000 characters; the first \d+ shown\)$/mu);
    expect(message).toMatch(/^ {2}"k+…" \(10000 characters; the first \d+ shown\): "v"$/mu);
    expect(message).toMatch(/^ {2}"deep": \{"list":"y+… \(\d+ characters of JSON; the first \d+ shown\)$/mu);
  });

  it('every field is counted, and no name is dropped without saying so', async () => {
    const { call, asked } = await served();
    const many = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`field_${i}`, i]));
    await call('run_pipeline', { steps: [{ id: 'many', tool: 'write_file', args: { ...many, path: '/home/user/.ssh/authorized_keys' } }] });
    const message = asked[0];
    expect(message).toContain('Arguments (chosen by the model), 121 fields:');
    for (const name of [...Object.keys(many), 'path']) expect(message).toContain(`"${name}"`);
    // So many long names that not all fit: the screen says how many it leaves out.
    const huge = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`${'n'.repeat(60)}_${i}`, i]));
    await call('run_pipeline', { steps: [{ id: 'huge', tool: 'write_file', args: huge }] });
    const second = asked[1];
    expect(second).toContain('Arguments (chosen by the model), 400 fields:');
    expect(second.length).toBeLessThan(12_000);
    const shown = (second.match(/"n{60}_\d+"/gu) ?? []).length;
    expect(shown).toBeGreaterThan(40);
    expect(shown).toBeLessThan(400);
    expect(second).toContain(`${400 - shown} more field names not shown`);
  });
});
