/**
 * What a script gets beside `callTool`: `tools.<name>(args)`, which resolves to the tool's output as
 * a value and throws when the call fails, and `searchTools` / `describeTools`, which search the
 * tools the script may call without a model's turn. Every tool call still passes the gate.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createScriptTool } from '../../../src/agent-tools/script/index.js';
import { createStepGate } from '../../../src/gate/step-gate.js';
import type { ITool } from '../../../src/tool.js';
import { json, mockTool, registry } from './helpers.js';

const run = (tool: ITool, code: string) => tool.execute({ code }, {});

const structured = mockTool('user_info', () => ({ id: 7, name: 'Ann', tags: ['a', 'b'] }), {
  hasSideEffects: false,
  description: 'Look a user up by id.',
  inputSchema: { type: 'object', properties: { id: { type: 'number', description: 'The user id.' } }, required: ['id'] },
});
const jsonText = mockTool('orders_json', () => '[{"id":1,"total":12.5},{"id":2,"total":3}]', { hasSideEffects: false, description: 'List orders as JSON.' });
const plain = mockTool('read_note', () => '{not json, just a note', { hasSideEffects: false, description: 'Read the note file.' });
const dashed = mockTool('get-weather', () => 'sunny', { hasSideEffects: false, description: 'Weather for a city.' });
const failing = mockTool('fail_tool', () => ({ success: false, error: 'no such user', details: { code: 'not_found' } }), { hasSideEffects: false });
const write = mockTool('write_file', () => 'written', { hasSideEffects: true, description: 'Write a file.' });
const big = mockTool('big_list', () => Array.from({ length: 5000 }, (_, i) => ({ i, text: 'x'.repeat(20) })), { hasSideEffects: false });

beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('tools.<name>(args)', () => {
  const tool = createScriptTool(registry(structured, jsonText, plain, dashed, failing, write, big).gate());

  it('resolves to the output as a value: structured output as it is, JSON text parsed, other text as text', async () => {
    const result = await run(
      tool,
      `const user = await tools.user_info({ id: 7 });
       const orders = await tools.orders_json();
       const note = await tools.read_note({});
       const weather = await tools["get-weather"]({ city: "Oslo" });
       return { name: user.name, tags: user.tags.length, total: orders.reduce((s, o) => s + o.total, 0), note, weather };`,
    );
    expect(json(result.output)).toEqual({ name: 'Ann', tags: 2, total: 15.5, note: '{not json, just a note', weather: 'sunny' });
    expect(structured.calls).toEqual([{ id: 7 }]);
  });

  it('throws an Error carrying the failure code, so try/catch works; callTool still answers with data', async () => {
    const result = await run(
      tool,
      `const seen = [];
       try { await tools.fail_tool({}); } catch (e) { seen.push([e instanceof Error, e.code, e.innerCode, e.message]); }
       try { await tools.write_file({ path: "a" }); } catch (e) { seen.push([e.code]); }
       try { await tools.no_such_tool({}); } catch (e) { seen.push([e.code]); }
       try { await tools.user_info({ id: "seven" }); } catch (e) { seen.push([e.code]); }
       const data = await callTool("fail_tool", {});
       seen.push([data.error.code]);
       return seen;`,
    );
    expect(json(result.output)).toEqual([[true, 'step_failed', 'not_found', 'no such user'], ['step_not_chainable'], ['step_missing'], ['args_invalid'], ['step_failed']]);
    expect(write.calls).toEqual([]);
  });

  it('refuses a value longer than a call may bring in, rather than cut it, and names callTool for the text', async () => {
    const result = await run(tool, 'try { await tools.big_list({}); return "no"; } catch (e) { return [e.code, e.message]; }');
    const [code, message] = json(result.output);
    expect(code).toBe('script_result_too_large');
    expect(message).toMatch(/callTool\("big_list", args\) gives its text/u);
  });

  it('runs every call through the gate: a permission refusal throws', async () => {
    const reg = registry(structured);
    const gate = createStepGate({ resolve: (name) => reg.map.get(name), permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'not today' }) } });
    const guarded = createScriptTool(gate);
    const result = await run(guarded, 'try { await tools.user_info({ id: 1 }); return "ran"; } catch (e) { return [e.code, e.message]; }');
    expect(json(result.output)).toEqual(['permission_denied', 'not today']);
  });

  it('is not a promise itself, and counts against the run\'s calls', async () => {
    const limited = createScriptTool(registry(structured).gate(), { maxCalls: 1 });
    const result = await run(
      limited,
      `const a = await tools.user_info({ id: 1 });
       let code = null;
       try { await tools.user_info({ id: 2 }); } catch (e) { code = e.code; }
       return [typeof tools.then, typeof tools.anything, a.id, code];`,
    );
    expect(json(String(result.output).split('\n')[0])).toEqual(['undefined', 'function', 7, 'script_too_many_calls']);
  });
});

describe('searchTools and describeTools', () => {
  const tool = createScriptTool(registry(structured, jsonText, plain, dashed, write).gate(), { sideEffectingTools: [] });

  it('searchTools ranks the tools the script may call, each with its declaration; a side-effecting tool it may not call is not offered', async () => {
    const result = await run(tool, 'return await searchTools("look up a user by id", 2)');
    const found = json(result.output);
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found.length).toBeLessThanOrEqual(2);
    expect(found[0]).toMatchObject({ name: 'user_info', description: 'Look a user up by id.' });
    expect(found[0].declaration).toMatch(/user_info\(args: \{[\s\S]*id: number[\s\S]*\}\): Promise<unknown>;/u);
    const all = json((await run(tool, 'return (await searchTools("write a file", 10)).map((t) => t.name)')).output);
    expect(all).not.toContain('write_file');
  });

  it('describeTools gives declarations for names, and says which names are unknown with the closest', async () => {
    const result = await run(tool, 'return await describeTools(["read_note", "user_inf"])');
    const described = json(result.output);
    expect(described.tools.map((t: { name: string }) => t.name)).toEqual(['read_note']);
    expect(described.unknown).toEqual([expect.objectContaining({ name: 'user_inf', didYouMean: expect.arrayContaining(['user_info']) })]);
  });

  it('a script finds a tool it was not shown, reads how to call it, and calls it, in one run', async () => {
    const result = await run(
      tool,
      `const [weather] = await searchTools("weather forecast for a city", 1);
       const said = await tools[weather.name]({ city: "Oslo" });
       return weather.name + ": " + said;`,
    );
    expect(result).toMatchObject({ success: true, output: 'get-weather: sunny' });
  });

  it('refuses a search without a query, as an error the script can catch', async () => {
    const result = await run(tool, 'try { await searchTools(42); } catch (e) { return e.code; }');
    expect(result.output).toBe('input_invalid');
  });
});

describe('code-only', () => {
  it("describes how to find the tools instead of listing the model's way to them, and follows the registry", async () => {
    const reg = registry(structured, jsonText);
    const tool = createScriptTool(reg.gate(), { discovery: { codeOnly: true } });
    // A catalog this small is listed whole, as declarations.
    expect(tool.description).toMatch(/tools\.name\(args\)/u);
    expect(tool.description).toMatch(/user_info\(args: \{/u);
    reg.add(mockTool('new_tool_here', () => 'x', { hasSideEffects: false, description: 'A tool added later.' }));
    expect(tool.description).toMatch(/new_tool_here/u);
    // A catalog too long to list is searched: the description says how.
    const wide = createScriptTool(reg.gate(), { discovery: { codeOnly: true, listUpToChars: 10 } });
    expect(wide.description).toMatch(/searchTools/u);
    const plainTool = createScriptTool(reg.gate());
    expect(plainTool.description).not.toMatch(/tools\.name/u);
  });
});
