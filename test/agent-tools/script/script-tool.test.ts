import { beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { createScriptTool } from '../../../src/agent-tools/script/index.js';
import { MAX_COMPOSITION_DEPTH } from '../../../src/gate/depth.js';
import type { ApprovalAction } from '../../../src/gate/host-hooks.js';
import { delay, json, mockTool, registry } from './helpers.js';

const run = (tool: ReturnType<typeof createScriptTool>, code: string, context = {}) =>
  tool.execute({ code }, context);

// Compile the WebAssembly module once before the timing tests, so no test pays for it.
beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('run_js definition', () => {
  it('is small: at most 140 o200k tokens for name, description and input schema', () => {
    const tool = createScriptTool(registry().gate());
    const tokens = encode(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    expect(tokens.length).toBeLessThanOrEqual(140);
    expect(tool.name).toBe('run_js');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
    });
  });

  it('declares side effects only when the host lists side-effecting tools', () => {
    expect(createScriptTool(registry().gate()).hasSideEffects).toBe(false);
    expect(createScriptTool(registry().gate(), { sideEffectingTools: ['write'] }).hasSideEffects).toBe(true);
    expect(createScriptTool(registry().gate(), { sideEffectingTools: new Set<string>() }).hasSideEffects).toBe(false);
  });

  it('refuses input without a string `code` as input_invalid', async () => {
    const tool = createScriptTool(registry().gate());
    for (const args of [{ intention: 'x' }, { intention: 'x', code: 42 }, {}]) {
      const result = await tool.execute(args, {});
      expect(result.success).toBe(false);
      expect(result.details?.code).toBe('input_invalid');
    }
  });

  it('asks only for `code`, and still runs a call that sends the `intention` it once asked for', async () => {
    const tool = createScriptTool(registry().gate());
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(['code']);
    expect(await tool.execute({ intention: 'old callers send this', code: 'return 1' }, {})).toMatchObject({ success: true, output: '1' });
  });
});

describe('run_js calls tools through the gate', () => {
  it('chains calls with await: a later call uses an earlier result', async () => {
    const grep = mockTool('grep', () => 'src/a.ts\nsrc/b.ts\n');
    const read = mockTool('read', (args) => (args.path === 'src/a.ts' ? 'cacheKey(a)' : 'other(b)'));
    const tool = createScriptTool(registry(grep, read).gate());
    const result = await run(
      tool,
      `const hits = await callTool("grep", { pattern: "cacheKey" });
       const files = hits.text.split("\\n").filter(Boolean);
       const reads = [];
       for (const path of files) reads.push(await callTool("read", { path }));
       return { files, wrong: files.filter((f, i) => !reads[i].text.includes("cacheKey(")) };`,
    );
    expect(result.success).toBe(true);
    expect(json(result.output)).toEqual({ files: ['src/a.ts', 'src/b.ts'], wrong: ['src/b.ts'] });
    expect(grep.calls).toEqual([{ pattern: 'cacheKey' }]);
    expect(read.calls).toEqual([{ path: 'src/a.ts' }, { path: 'src/b.ts' }]);
    expect(result.effects).toEqual([]);
  });

  it('runs Promise.all calls at the same time', async () => {
    const sleepy = mockTool('sleepy', async (args) => {
      await delay(100);
      return { n: args.n };
    });
    const tool = createScriptTool(registry(sleepy).gate());
    const start = Date.now();
    const result = await run(
      tool,
      `const rs = await Promise.all([1, 2, 3].map((n) => callTool("sleepy", { n })));
       return rs.map((r) => JSON.parse(r.text).n);`,
    );
    const elapsed = Date.now() - start;
    expect(result.output).toBe('[1,2,3]');
    expect(elapsed).toBeLessThan(250);
  });

  it('gives each call { text, error }: a string output as written, anything else as JSON', async () => {
    const text = mockTool('text', () => 'plain text');
    const obj = mockTool('obj', () => ({ a: [1, 2] }));
    const nothing = mockTool('nothing', () => undefined);
    const tool = createScriptTool(registry(text, obj, nothing).gate());
    const result = await run(tool, `return [await callTool("text", {}), await callTool("obj"), await callTool("nothing", {})];`);
    expect(json(result.output)).toEqual([
      { text: 'plain text', error: null },
      { text: '{"a":[1,2]}', error: null },
      { text: '', error: null },
    ]);
  });

  it('turns every refusal into data the script can read, and carries on', async () => {
    const write = mockTool('write', () => 'written', { hasSideEffects: true });
    const vague = mockTool('vague', () => 'ran', {});
    const tool = createScriptTool(registry(write, vague).gate());
    const result = await run(
      tool,
      `const out = {};
       for (const name of ["write", "vague", "nope"]) out[name] = await callTool(name, {});
       return out;`,
    );
    expect(result.success).toBe(true);
    const out = json(result.output);
    expect(out.write).toMatchObject({ text: '', error: { code: 'step_not_chainable' } });
    expect(out.vague).toMatchObject({ text: '', error: { code: 'side_effects_undeclared' } });
    expect(out.nope).toMatchObject({ text: '', error: { code: 'step_missing' } });
    expect(typeof out.nope.error.message).toBe('string');
    expect(write.calls).toEqual([]);
    expect(vague.calls).toEqual([]);
  });

  it("reports a tool's own failure as step_failed with its code as innerCode, and a throw as step_threw", async () => {
    const missing = mockTool('read', () => ({ success: false, error: 'no such file', details: { code: 'ENOENT' } }));
    const broken = mockTool('broken', () => {
      throw new Error('kaput');
    });
    const tool = createScriptTool(registry(missing, broken).gate());
    const result = await run(tool, `return [(await callTool("read", { path: "x" })).error, (await callTool("broken", {})).error];`);
    const [failed, threw] = json(result.output);
    expect(failed).toEqual({ code: 'step_failed', message: 'no such file', innerCode: 'ENOENT' });
    expect(threw.code).toBe('step_threw');
    expect(threw.message).toContain('kaput');
  });

  it('reads every call of a batch, whatever characters its tool name holds', async () => {
    const echo = mockTool('echo', (args) => args);
    const tool = createScriptTool(registry(echo).gate());
    const result = await run(
      tool,
      `const rs = await Promise.all([callTool("bad\\uD800name", {}), callTool("echo", { s: "\\uDC00 é" }), callTool("é😀", {})]);
       return rs.map((r) => r.error ? r.error.code : r.text);`,
    );
    expect(json(result.output)).toEqual(['step_missing', JSON.stringify({ s: '\uDC00 é' }), 'step_missing']);
  });

  it("applies the host's permission check to every call", async () => {
    const secret = mockTool('secret', () => 'classified');
    const open = mockTool('open', () => 'public');
    const gate = registry(secret, open).gate({
      permissionManager: { isExecutionAllowed: (t) => ({ isAllowed: t.name !== 'secret', reason: 'no secrets' }) },
    });
    const result = await run(createScriptTool(gate), `return [await callTool("secret", {}), await callTool("open", {})];`);
    const [denied, allowed] = json(result.output);
    expect(denied).toMatchObject({ text: '', error: { code: 'permission_denied', message: 'no secrets' } });
    expect(allowed).toEqual({ text: 'public', error: null });
    expect(secret.calls).toEqual([]);
  });

  it('asks for approval before each side-effecting call, naming the step', async () => {
    const write = mockTool('write', (args) => `wrote ${args.path}`, { hasSideEffects: true });
    const asked: ApprovalAction[] = [];
    const gate = registry(write).gate({
      approvals: {
        requestApproval: (action) => {
          asked.push(action);
          return { approved: action.args.path !== '/etc/passwd', reason: 'not there' };
        },
      },
    });
    const tool = createScriptTool(gate, { sideEffectingTools: ['write'] });
    const result = await run(
      tool,
      `const a = await callTool("write", { path: "notes.md" });
       const b = await callTool("write", { path: "/etc/passwd" });
       return [a, b];`,
    );
    const [ok, refused] = json(result.output);
    expect(ok).toEqual({ text: 'wrote notes.md', error: null });
    expect(refused.error).toMatchObject({ code: 'approval_rejected', message: 'not there' });
    expect(asked.map((a) => [a.step, a.toolName, a.args])).toEqual([
      ['call 1', 'write', { path: 'notes.md' }],
      ['call 2', 'write', { path: '/etc/passwd' }],
    ]);
    // The refused call never ran, so only the first is in the ledger.
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'ran' }]);
  });

  it('keeps an effects ledger of the side-effecting calls that ran, in the order they finished', async () => {
    const write = mockTool(
      'write',
      async (args) => {
        await delay(args.wait as number);
        return 'ok';
      },
      { hasSideEffects: true },
    );
    const fail = mockTool('fail', () => ({ success: false, error: 'disk full' }), { hasSideEffects: true });
    const read = mockTool('read', () => 'data');
    const tool = createScriptTool(registry(write, fail, read).gate(), { sideEffectingTools: ['write', 'fail'] });
    const result = await run(
      tool,
      `await callTool("read", {});
       await Promise.all([callTool("write", { wait: 60 }), callTool("write", { wait: 5 })]);
       await callTool("fail", {});
       return "done";`,
    );
    expect(result.success).toBe(true);
    expect(result.effects).toEqual([
      { step: 'call 3', tool: 'write', ran: true, outcome: 'ran' },
      { step: 'call 2', tool: 'write', ran: true, outcome: 'ran' },
      // A tool that started and then failed may have changed something: it is listed.
      { step: 'call 4', tool: 'fail', ran: true, outcome: 'failed' },
    ]);
  });

  it('keeps the effects ledger on a failed run', async () => {
    const write = mockTool('write', () => 'ok', { hasSideEffects: true });
    const tool = createScriptTool(registry(write).gate(), { sideEffectingTools: ['write'] });
    const result = await run(tool, `await callTool("write", {}); throw new Error("after the write");`);
    expect(result.details?.code).toBe('script_error');
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'ran' }]);
  });

  it('runs every call one composition level deeper, with the host fields and the signal', async () => {
    const probe = mockTool('probe', (_args, context) => ({
      depth: context.sessionData?.emergentDepth,
      user: context.user,
    }));
    const controller = new AbortController();
    const tool = createScriptTool(registry(probe).gate());
    const result = await run(tool, `return JSON.parse((await callTool("probe", {})).text);`, {
      user: 'ada',
      sessionData: { emergentDepth: 2 },
      signal: controller.signal,
    });
    expect(json(result.output)).toEqual({ depth: 3, user: 'ada' });
    // The call's signal is the run's own: it fires with the host's, and when the run ends.
    const signal = probe.contexts[0].signal as AbortSignal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(true);
    const live = await run(tool, `callTool("probe", {}); await callTool("probe", {}); return 1`, { signal: controller.signal });
    expect(live.success).toBe(true);
  });

  it('aborts the signal its calls hold when the host aborts', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const hold = mockTool('hold', (_args, context) => {
      seen = context.signal;
      return new Promise((resolve) => context.signal?.addEventListener('abort', () => resolve('stopped')));
    });
    const tool = createScriptTool(registry(hold).gate());
    setTimeout(() => controller.abort(), 50);
    const result = await run(tool, 'return (await callTool("hold", {})).text', { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(seen?.aborted).toBe(true);
  });

  it('refuses a run nested MAX_COMPOSITION_DEPTH deep', async () => {
    const tool = createScriptTool(registry().gate());
    const result = await run(tool, 'return 1', { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH } });
    expect(result.details?.code).toBe('nesting_too_deep');
  });

  it('does not run when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const probe = mockTool('probe', () => 'ran');
    const result = await run(createScriptTool(registry(probe).gate()), 'await callTool("probe", {}); return 1', {
      signal: controller.signal,
    });
    expect(result.details?.code).toBe('step_aborted');
    expect(probe.calls).toEqual([]);
  });

  it('ends the run at once when the signal fires during a call', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const slow = mockTool('slow', async () => {
      setTimeout(() => {
        abortedAt = Date.now();
        controller.abort();
      }, 50);
      await delay(1000);
      return 'late';
    });
    const tool = createScriptTool(registry(slow).gate());
    const result = await run(tool, 'await callTool("slow", {}); return "finished"', { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(Date.now() - abortedAt).toBeLessThan(400);
    expect(result.details?.abandoned).toEqual([{ step: 'call 1', tool: 'slow' }]);
  });

  it('stops before the script goes on once a call fired the signal', async () => {
    const controller = new AbortController();
    const stop = mockTool('stop', () => {
      controller.abort();
      return 'stopping';
    });
    const tool = createScriptTool(registry(stop).gate(), { timeoutMs: 5000 });
    const start = Date.now();
    const result = await run(tool, 'await callTool("stop", {}); while (true) {}', { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(Date.now() - start).toBeLessThan(1000);
  });
});

describe('run_js refuses what a script must not call', () => {
  it('refuses interactive tools by the default list and by the interactive flag', async () => {
    const ask = mockTool('ask_user', () => 'yes');
    const picker = mockTool('picker', () => 'chosen', { hasSideEffects: false, interactive: true });
    const tool = createScriptTool(registry(ask, picker).gate());
    const result = await run(tool, `return [(await callTool("ask_user", {})).error.code, (await callTool("picker", {})).error.code];`);
    expect(json(result.output)).toEqual(['tool_interactive', 'tool_interactive']);
    expect(ask.calls).toEqual([]);
    expect(picker.calls).toEqual([]);
  });

  it("adds the host's interactiveTools to the default list", async () => {
    const ask = mockTool('ask_user', () => 'yes');
    const confirm = mockTool('confirm', () => 'ok');
    const other = mockTool('other', () => 'fine');
    const tool = createScriptTool(registry(ask, confirm, other).gate(), { interactiveTools: ['confirm'] });
    const result = await run(tool, `return [await callTool("ask_user", {}), await callTool("confirm", {}), await callTool("other", {})];`);
    const [ask1, confirm1, other1] = json(result.output);
    expect(ask1.error.code).toBe('tool_interactive');
    expect(confirm1.error.code).toBe('tool_interactive');
    expect(other1).toEqual({ text: 'fine', error: null });
  });

  it('refuses run_js calling itself, by name or under another name', async () => {
    const reg = registry();
    const tool = createScriptTool(reg.gate());
    reg.add(tool);
    reg.add(tool, 'js_again');
    const result = await run(tool, `return [(await callTool("run_js", { intention: "x", code: "return 1" })).error.code, (await callTool("js_again", { code: "return 1" })).error.code];`);
    expect(json(result.output)).toEqual(['pipeline_self_call', 'pipeline_self_call']);
  });
});

describe('run_js answers', () => {
  const tool = createScriptTool(registry().gate());

  it('sends a string back as written and anything else as JSON', async () => {
    expect((await run(tool, 'return "hello\\nworld"')).output).toBe('hello\nworld');
    expect((await run(tool, 'return { a: 1, b: [true, null] }')).output).toBe('{"a":1,"b":[true,null]}');
    expect((await run(tool, 'return 42')).output).toBe('42');
    expect((await run(tool, 'return null')).output).toBe('null');
    expect((await run(tool, 'const x = 1;')).output).toBe('');
  });

  it('fails a value JSON cannot write with script_return_invalid', async () => {
    for (const code of ['const a = {}; a.a = a; return a', 'return () => 1', 'return 10n']) {
      const result = await run(tool, code);
      expect(result.success).toBe(false);
      expect(result.details?.code).toBe('script_return_invalid');
      expect(result.error).toMatch(/JSON/);
    }
  });

  it('fails a thrown error with script_error, its message and the line in the script', async () => {
    const result = await run(tool, 'const a = 1;\nconst b = 2;\nthrow new Error("boom");');
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'script_error', message: 'Error: boom', line: 3 });
    expect(result.error).toContain('line 3');
    expect(result.error).toContain('boom');
  });

  it('reports the line where the error happened inside a helper function', async () => {
    const result = await run(tool, 'function f(x) {\n  return x.y.z;\n}\n\nreturn f({});');
    expect(result.details).toMatchObject({ code: 'script_error', line: 2 });
    expect(result.details?.message).toMatch(/TypeError/);
  });

  it('reports a syntax error with its line', async () => {
    const result = await run(tool, 'const a = 1;\nconst b = ;\nreturn a;');
    expect(result.details).toMatchObject({ code: 'script_error', line: 2 });
    expect(result.details?.message).toMatch(/SyntaxError/);
  });

  it('reports a thrown non-Error value', async () => {
    const result = await run(tool, 'throw "plain"');
    expect(result.details?.code).toBe('script_error');
    expect(result.details?.message).toContain('plain');
  });

  it('lets the script catch its own errors and a call error', async () => {
    const result = await run(tool, 'try { null.x } catch (e) { return "caught " + e.name }');
    expect(result.output).toBe('caught TypeError');
  });

  it('fails at once when the script waits on a promise nothing settles', async () => {
    const start = Date.now();
    const result = await run(tool, 'await new Promise(() => {}); return 1');
    expect(result.details?.code).toBe('script_error');
    expect(result.error).toMatch(/never|nothing will settle/);
    expect(Date.now() - start).toBeLessThan(1000);
  });
});

describe('no call outlives its run', () => {
  it('waits for a call the script did not await, and lists it in effects with how it ended', async () => {
    let finished = false;
    const write = mockTool(
      'write',
      async () => {
        await delay(50);
        finished = true;
        return 'written';
      },
      { hasSideEffects: true },
    );
    const tool = createScriptTool(registry(write).gate(), { sideEffectingTools: ['write'] });
    const result = await run(tool, 'callTool("write", { path: "notes.md" }); return "done"');
    expect(result).toMatchObject({ success: true, output: 'done' });
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'ran' }]);
    // The call ended before the run's result was given.
    expect(finished).toBe(true);
  });

  it('lists a call still running after the grace as unknown, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const hang = mockTool(
      'hang',
      (_args, context) => {
        signal = context.signal;
        return new Promise(() => {});
      },
      { hasSideEffects: true },
    );
    const tool = createScriptTool(registry(hang).gate(), { sideEffectingTools: ['hang'] });
    const result = await run(tool, 'callTool("hang", {}); return "done"');
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'hang', ran: true, outcome: 'unknown' }]);
    expect(signal?.aborted).toBe(true);
  });

  /** A host check that answers yes, 300 ms late. */
  const late = async <T>(answer: T): Promise<T> => {
    await delay(300);
    return answer;
  };

  it.each([
    [
      'an approval that arrives after the run timed out',
      { approvals: { requestApproval: () => late({ approved: true }) } },
      { timeoutMs: 100 },
      'return (await callTool("write", {})).text',
      { details: { code: 'script_timeout' } },
    ],
    [
      'a permission check that ends after the script returned',
      { permissionManager: { isExecutionAllowed: () => late({ isAllowed: true }) } },
      {},
      'callTool("write", {}); return "fired"',
      { output: 'fired' },
    ],
  ])('starts nothing after %s', async (_name, checks, options, code, ended) => {
    const write = mockTool('write', () => 'written', { hasSideEffects: true });
    const tool = createScriptTool(registry(write).gate(checks), { sideEffectingTools: ['write'], ...options });
    expect(await run(tool, code)).toMatchObject(ended);
    await delay(400);
    expect(write.calls).toEqual([]);
  });
});

describe('errors that say how to fix them', () => {
  const tool = createScriptTool(registry(mockTool('read', () => 'contents')).gate());

  it('points a syntax error at the bracket the script left open, never at the wrapper', async () => {
    const result = await run(tool, 'const ok = true;\nif (ok) {\n  return 1;\n');
    expect(result.details).toMatchObject({ code: 'script_error', line: 2, column: 9 });
    expect(result.details?.message).toBe("SyntaxError: the '{' here is never closed");
    expect(result.error).toContain('    if (ok) {\n            ^');
    // Brackets inside strings, template literals, comments and regular expressions are not counted.
    for (const [code, line, column] of [
      ['const o = { a: 1,\n  b: [1, 2],\n', 1, 11],
      ['const r = /[(]/;\nif (r.test("(")) {\n', 2, 18],
      ['// a comment with {\nconst t = `x${"}"}`;\nfunction f() {\n  return "{";\n', 3, 14],
    ] as const) {
      expect((await run(tool, code)).details, code).toMatchObject({ line, column });
    }
  });

  it('points any other syntax error at its line and token, with the line shown', async () => {
    const result = await run(tool, 'const a = 1;\nconst b = ;\nreturn a;');
    expect(result.details).toMatchObject({ code: 'script_error', line: 2, column: 11 });
    expect(result.error).toContain("unexpected token in expression: ';'");
    expect(result.error).toContain('    const b = ;\n              ^');
  });

  it('says the script stops mid-statement when nothing is open', async () => {
    const result = await run(tool, 'const a = 1;\nreturn a +\n\n');
    expect(result.details).toMatchObject({ line: 2 });
    expect(result.details?.message).toBe('SyntaxError: the script ends in the middle of a statement or expression');
  });

  it('fails reading .text of a call that was not awaited, saying to await it', async () => {
    const result = await run(tool, 'const r = callTool("read", {});\nreturn r.text;');
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'script_error', line: 2 });
    expect(result.error).toMatch(/await it first/);
  });

  it('fails an answer holding calls that were not awaited, saying to await them', async () => {
    for (const code of ['return [callTool("read", {}), callTool("read", {})]', 'return { file: callTool("read", {}) }']) {
      const result = await run(tool, code);
      expect(result.success, code).toBe(false);
      expect(result.details?.code).toBe('script_return_invalid');
      expect(result.error).toMatch(/not awaited.*Promise\.all/s);
    }
    // An answer that only looks like an empty object is still an answer.
    expect((await run(tool, 'return [{}, { a: {} }]')).output).toBe('[{},{"a":{}}]');
    // And a promise returned as the answer is awaited, as in any async function.
    expect((await run(tool, 'return callTool("read", {})')).output).toBe('{"text":"contents","error":null}');
  });
});
