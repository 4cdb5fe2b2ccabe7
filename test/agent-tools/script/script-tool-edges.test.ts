/**
 * `run_js` at its edges: the exact words and details of each way a run can fail, the checks a
 * call meets before the gate (its args, calling itself, interactive tools, a dry run), how the
 * host's abort and dry run reach the calls, and how the tool sits in a composition's budget.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../../src/agent-tools/run-pipeline.js';
import { createSandboxPool, createScriptTool } from '../../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../../src/builder.js';
import type { ITool, ToolExecutionContext } from '../../../src/tool.js';
import { delay, json, latch, mockTool, registry } from './helpers.js';

const run = (tool: ITool, code: string, context: ToolExecutionContext = {}) => tool.execute({ code }, context);

// Compile the WebAssembly module once, so no test pays for it.
beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('run_js checks each call as the other doors do', () => {
  it('refuses arguments the tool\'s schema does not take (args_invalid), without calling the tool', async () => {
    const lookup = mockTool('lookup', (args) => `user-${args.id}`, {
      hasSideEffects: false,
      inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'], additionalProperties: false },
    });
    const tool = createScriptTool(registry(lookup).gate());
    const result = await run(tool, 'const bad = await callTool("lookup", { idd: 1 }); const good = await callTool("lookup", { id: 1 }); return [bad.error && bad.error.code, bad.error && bad.error.message, good.text]');
    const [code, message, good] = json(result.output);
    expect(code).toBe('args_invalid');
    expect(message).toMatch(/id/);
    expect(good).toBe('user-1');
    expect(lookup.calls).toEqual([{ id: 1 }]);
  });

  it('says a tool may not be chained before it looks at the arguments', async () => {
    const write = mockTool('write', () => 'written', { hasSideEffects: true, inputSchema: { type: 'object', required: ['path'] } });
    const tool = createScriptTool(registry(write).gate());
    const result = await run(tool, 'return (await callTool("write", {})).error.code');
    expect(result.output).toBe('step_not_chainable');
    expect(write.calls).toEqual([]);
  });
});

describe('run_js as a tool', () => {
  it('is shown to people as "Run JavaScript"', () => {
    expect(createScriptTool(registry().gate()).displayName).toBe('Run JavaScript');
  });

  it('holds no in-flight place while its own calls run, so a pipeline with one place can run a script that calls a tool', async () => {
    const read = mockTool('read', () => 'contents');
    const reg = registry(read);
    const stepGate = reg.gate({ budget: { inFlight: 1 } });
    reg.add(createScriptTool(stepGate, { timeoutMs: 2000 }));
    const pipeline = createRunPipelineTool(stepGate);
    const result = await pipeline.execute(
      { steps: [{ id: 's', tool: 'run_js', args: { code: 'return (await callTool("read", {})).text + "!"' } }] },
      {},
    );
    expect(result.success).toBe(true);
    expect(JSON.stringify(result.output)).toContain('contents!');
    expect(read.calls).toHaveLength(1);
  });

  it('refuses input without `code`, saying what it needs', async () => {
    const result = await createScriptTool(registry().gate()).execute({}, {});
    expect(result.success).toBe(false);
    expect(result.error).toBe('run_js needs `code`: the body of an async function, as a string.');
    expect(result.details).toMatchObject({ code: 'input_invalid', errors: ['code must be a string'] });
  });

  it('says it never ran when the signal fired before it started', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run(createScriptTool(registry().gate()), 'return 1', { signal: controller.signal });
    expect(result.error).toBe('Aborted before the script ran.');
    expect(result.details).toMatchObject({ code: 'step_aborted', tool: 'run_js' });
  });

  it('says the run was aborted when the signal fires mid-run', async () => {
    const controller = new AbortController();
    const stop = mockTool('stop', () => {
      controller.abort();
      return new Promise(() => {});
    });
    const result = await run(createScriptTool(registry(stop).gate()), 'await callTool("stop", {}); return 1', { signal: controller.signal });
    expect(result.error).toBe('The run was aborted.');
    expect(result.details).toMatchObject({ code: 'step_aborted', tool: 'run_js' });
  });

  it("passes the host's abort reason on to the calls in flight", async () => {
    const controller = new AbortController();
    let reason: unknown = 'not aborted';
    const hold = mockTool('hold', (_args, context) => {
      context.signal?.addEventListener('abort', () => (reason = context.signal?.reason), { once: true });
      controller.abort('the user pressed stop');
      return new Promise(() => {});
    });
    const result = await run(createScriptTool(registry(hold).gate()), 'await callTool("hold", {}); return 1', { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(reason).toBe('the user pressed stop');
  });

  it('does not wait for the calls in flight when aborted: one that ends soon after is listed as unknown', async () => {
    const controller = new AbortController();
    const write = mockTool(
      'write',
      (_args, context) => {
        // The tool winds down a little after the abort, well within the grace a run that was not aborted gives.
        const woundDown = new Promise((resolve) => context.signal?.addEventListener('abort', () => setTimeout(() => resolve('wound down'), 150), { once: true }));
        controller.abort();
        return woundDown;
      },
      { hasSideEffects: true },
    );
    const tool = createScriptTool(registry(write).gate(), { sideEffectingTools: ['write'] });
    const result = await run(tool, 'await callTool("write", {}); return 1', { signal: controller.signal });
    expect(result.details?.code).toBe('step_aborted');
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'write', ran: true, outcome: 'unknown' }]);
  });

  it('refuses to start a script past the sandboxes budget, saying it was not started', async () => {
    let inner: Awaited<ReturnType<ITool['execute']>> | undefined;
    const reg = registry();
    const stepGate = reg.gate({ budget: { sandboxes: 1 } });
    const second = createScriptTool(stepGate);
    // A tool that runs another script in the same call from outside: the first sandbox is still alive.
    const nested = mockTool('nested', async (_args, context) => {
      inner = await second.execute({ code: 'return 1' }, context);
      return 'asked';
    });
    reg.add(nested);
    const result = await run(createScriptTool(stepGate), 'return (await callTool("nested", {})).text');
    expect(result.output).toBe('asked');
    expect(inner?.success).toBe(false);
    expect(inner?.details).toMatchObject({ code: 'budget_exceeded', limit: 'sandboxes' });
    expect(inner?.error).toContain('The script was not started');
  });
});

describe('run_js traces whether a run is a dry run', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('toolweave-test');
  afterEach(() => exporter.reset());

  const scriptSpan = () => exporter.getFinishedSpans().find((s) => s.name === 'execute_tool run_js');

  it('marks the script span of a real run as not dry', async () => {
    const tool = createScriptTool(registry().gate({ tracer }));
    expect((await run(tool, 'return 1')).success).toBe(true);
    expect(scriptSpan()?.attributes['toolweave.dry_run']).toBe(false);
  });

  it('marks the script span of a dry run as dry', async () => {
    const tool = createScriptTool(registry().gate({ tracer }));
    expect((await run(tool, 'return 1', { dryRun: { stepOutputs: {} } })).success).toBe(true);
    expect(scriptSpan()?.attributes['toolweave.dry_run']).toBe(true);
  });
});

describe('run_js checks each call before the gate', () => {
  it('answers args that are not a plain JSON object with input_invalid, saying why, and never calls the tool', async () => {
    const echo = mockTool('echo', (args) => args);
    const tool = createScriptTool(registry(echo).gate());
    const result = await run(
      tool,
      `const cyclic = {}; cyclic.self = cyclic;
       const args = [[1], 5, null, 10n, cyclic, "text",
         // Objects whose JSON is not an object.
         { toJSON() { return [1, 2]; } }, { toJSON() { return 7; } }, { toJSON() { return null; } }, new Date(0), { toJSON() { return undefined; } }];
       const out = [];
       for (const a of args) out.push((await callTool("echo", a)).error);
       return out;`,
    );
    const errors = json(result.output);
    expect(errors).toHaveLength(11);
    for (const error of errors) {
      expect(error).toEqual({ code: 'input_invalid', message: 'callTool args must be a plain object that JSON can write (no cycles, no BigInt).' });
    }
    expect(echo.calls).toEqual([]);
  });

  it('still passes a plain object, and one whose toJSON gives a plain object', async () => {
    const echo = mockTool('echo', (args) => args);
    const tool = createScriptTool(registry(echo).gate());
    const result = await run(tool, 'return [(await callTool("echo", { a: 1 })).text, (await callTool("echo", { toJSON() { return { b: 2 }; } })).text]');
    expect(json(result.output)).toEqual(['{"a":1}', '{"b":2}']);
    expect(echo.calls).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('refuses a call to run_js by name even when no run_js is registered', async () => {
    const tool = createScriptTool(registry().gate());
    const result = await run(tool, 'return (await callTool("run_js", { code: "return 1" })).error');
    expect(json(result.output)).toEqual({ code: 'pipeline_self_call', message: 'A script cannot call run_js; write the work into this script instead.' });
  });

  it('refuses an interactive tool with its own words, by the list and by the flag', async () => {
    const ask = mockTool('ask_user', () => 'yes');
    const picker = mockTool('picker', () => 'chosen', { hasSideEffects: false, interactive: true });
    const tool = createScriptTool(registry(ask, picker).gate());
    const result = await run(tool, 'return [(await callTool("ask_user", {})).error, (await callTool("picker", {})).error]');
    expect(json(result.output)).toEqual([
      { code: 'tool_interactive', message: 'Tool "ask_user" needs its own moment with a person or the host; call it directly, not from a script.' },
      { code: 'tool_interactive', message: 'Tool "picker" needs its own moment with a person or the host; call it directly, not from a script.' },
    ]);
    expect(ask.calls).toEqual([]);
    expect(picker.calls).toEqual([]);
  });

  it('refuses a listed side-effecting interactive tool in a dry run too, rather than listing it as one that would run', async () => {
    const ask = mockTool('ask_user', () => 'yes', { hasSideEffects: true });
    const confirm = mockTool('confirm', () => 'ok', { hasSideEffects: true, interactive: true });
    const tool = createScriptTool(registry(ask, confirm).gate(), { sideEffectingTools: ['ask_user', 'confirm'] });
    const result = await run(tool, 'return [(await callTool("ask_user", {})).error.code, (await callTool("confirm", {})).error.code]', {
      dryRun: { stepOutputs: {} },
    });
    expect(json(result.output)).toEqual(['tool_interactive', 'tool_interactive']);
    expect(result.effects).toEqual([]);
    expect(ask.calls).toEqual([]);
    expect(confirm.calls).toEqual([]);
  });

  it('does not run a composite in a dry run: it is listed as one that would run, and its steps are not called', async () => {
    const read = mockTool('read', () => 'contents');
    const reg = registry(read);
    const stepGate = reg.gate();
    const composite = new ComposableToolBuilder(stepGate).build('summarise', 'summarise', { type: 'object' }, {
      steps: [{ name: 'r', tool: 'read', inputMapping: {} }],
    });
    reg.add(composite);
    expect(composite.hasSideEffects).toBe(false);
    const tool = createScriptTool(stepGate);
    const result = await run(tool, 'return (await callTool("summarise", { topic: "x" })).text', { dryRun: { stepOutputs: {} } });
    expect(result).toMatchObject({ success: true, output: 'dry run: "summarise" was not run' });
    expect(result.effects).toEqual([{ step: 'call 1', tool: 'summarise', wouldRun: true, args: { topic: 'x' } }]);
    expect(read.calls).toEqual([]);
  });
});

describe('run_js ends with the run', () => {
  it("ends a call that never settles with the run's time-out, not a call time-out the script could carry on from", async () => {
    const hang = mockTool('hang', () => new Promise(() => {}));
    const tool = createScriptTool(registry(hang).gate(), { timeoutMs: 1500 });
    const result = await run(tool, 'const r = await callTool("hang", {}); return r.error ? r.error.code : "answered";');
    expect(result.details).toMatchObject({ code: 'script_timeout', timeoutMs: 1500, abandoned: [{ step: 'call 1', tool: 'hang' }] });
  });

  it('lists at most 20 abandoned calls, with the count of them all', async () => {
    const hang = mockTool('hang', () => new Promise(() => {}));
    const tool = createScriptTool(registry(hang).gate());
    const result = await run(tool, 'for (let i = 0; i < 25; i++) callTool("hang", { i }); await null; throw new Error("gave up");');
    expect(result.details?.code).toBe('script_error');
    expect(result.details?.abandoned).toEqual(Array.from({ length: 20 }, (_, i) => ({ step: `call ${i + 1}`, tool: 'hang' })));
    expect(result.details?.abandonedCount).toBe(25);
  });

  it('lists exactly 20 abandoned calls without a count, and none when there are none', async () => {
    const hang = mockTool('hang', () => new Promise(() => {}));
    const tool = createScriptTool(registry(hang).gate());
    const twenty = await run(tool, 'for (let i = 0; i < 20; i++) callTool("hang", { i }); await null; throw new Error("gave up");');
    expect(twenty.details?.abandoned).toHaveLength(20);
    expect(twenty.details).not.toHaveProperty('abandonedCount');
    const none = await run(tool, 'throw new Error("gave up");');
    expect(none.details?.code).toBe('script_error');
    expect(none.details).not.toHaveProperty('abandoned');
    expect(none.details).not.toHaveProperty('abandonedCount');
  });

  it('says a script waits on a promise that never settles', async () => {
    const result = await run(createScriptTool(registry().gate()), 'await new Promise(() => {}); return 1');
    expect(result.details).toEqual({ code: 'script_error', message: 'the script awaits a promise that never settles' });
  });

  it.each([
    [1000, '1 s'],
    [1500, '1500 ms'],
    [300, '300 ms'],
  ])('names a %i ms time limit as "%s" when the script runs past it', async (timeoutMs, said) => {
    const tool = createScriptTool(registry().gate(), { timeoutMs });
    const result = await run(tool, 'while (true) {}');
    expect(result.details).toMatchObject({ code: 'script_timeout', timeoutMs });
    expect(result.error).toContain(`The script ran past its ${said} limit.`);
  });

  it('names the memory limit in MB when the script runs past it', async () => {
    const tool = createScriptTool(registry().gate(), { memoryLimitBytes: 16 * 1024 * 1024 });
    const result = await run(tool, "return 'x'.repeat(64 * 1024 * 1024).length");
    expect(result.details).toMatchObject({ code: 'script_memory', memoryLimitBytes: 16_777_216 });
    expect(result.error).toContain('The script ran past its 16 MB memory limit.');
  });

  it('says why a returned value cannot be sent', async () => {
    const hang = mockTool('hang', () => new Promise(() => {}));
    const tool = createScriptTool(registry(hang).gate());
    const cyclic = await run(tool, 'const a = {}; a.a = a; return a');
    expect(cyclic.details).toEqual({ code: 'script_return_invalid', reason: 'circular reference' });
    expect(cyclic.error).toContain('cannot be sent as JSON (circular reference)');
    const pending = await run(tool, 'return [callTool("hang", {})]');
    expect(pending.details).toMatchObject({ code: 'script_return_invalid', reason: 'a promise that was not awaited' });
  });
});

describe('run_js when no sandbox is free', () => {
  /** A pool of one place, held by a script waiting on a tool until `release.open` is called. */
  async function heldPool(maxQueuedRuns: number) {
    const pool = createSandboxPool({ maxRuns: 1, maxQueuedRuns });
    const release = latch();
    const hold = mockTool('hold', () => release.opened);
    const tool = createScriptTool(registry(hold).gate(), { pool });
    await run(tool, 'return 1'); // a thread is started: the wait below is for a place
    const held = run(tool, 'return (await callTool("hold", {})).text');
    while (hold.calls.length === 0) await delay(5);
    return { pool, tool, release, held };
  }

  it('says the pool and its queue are full when they are', async () => {
    const { tool, release, held } = await heldPool(0);
    const refused = await run(tool, 'return 1');
    release.open('done');
    expect(refused.details).toMatchObject({ code: 'budget_exceeded', limit: 'sandboxes', reason: 'queue_full', maxRuns: 1, maxRunsPerScope: 1, maxQueuedRuns: 0 });
    expect(refused.error).toBe(
      'The sandbox pool is full (1 runs at once, 1 for one session) and so is its queue; this run was not started. Run fewer scripts at once, or do more in one script.',
    );
    expect((await held).output).toBe('done');
  });

  it('says no sandbox came free within the time limit when the wait ran out', async () => {
    const { pool, release, held } = await heldPool(3);
    const waiter = createScriptTool(registry().gate(), { pool, timeoutMs: 150 });
    const late = await run(waiter, 'return 1');
    release.open('done');
    expect(late.details).toMatchObject({ code: 'budget_exceeded', limit: 'sandboxes', reason: 'wait_timeout', maxRuns: 1, maxQueuedRuns: 3 });
    expect(late.error).toBe(
      "No place in the sandbox pool came free within the run's 150 ms limit (1 runs at once, 1 for one session); this run was not started. Run fewer scripts at once, or do more in one script.",
    );
    expect((await held).output).toBe('done');
  });
});

describe('run_js errors point at the place and say what to change', () => {
  const tool = createScriptTool(registry().gate());
  const fixIt = 'Fix the code and send it again.';

  it('says where a thrown error was thrown, with the line shown', async () => {
    const result = await run(tool, 'const a = 1;\nthrow new Error("boom");');
    expect(result.error).toBe(`The script threw at line 2, column 16: Error: boom.\n    throw new Error("boom");\n                   ^\n${fixIt}`);
    expect(result.details).toEqual({ code: 'script_error', message: 'Error: boom', line: 2, column: 16 });
  });

  it('says where a syntax error is, with the line shown', async () => {
    const result = await run(tool, 'const a = 1;\nconst b = ;');
    expect(result.error).toBe(
      `The script has a syntax error at line 2, column 11: SyntaxError: unexpected token in expression: ';'.\n    const b = ;\n              ^\n${fixIt}`,
    );
  });

  it('names only the line when the script ends mid-statement', async () => {
    const result = await run(tool, 'const a = 1;\nreturn a +\n\n');
    expect(result.error).toBe(
      `The script has a syntax error at line 2: SyntaxError: the script ends in the middle of a statement or expression.\n    return a +\n${fixIt}`,
    );
    expect(result.details).toEqual({ code: 'script_error', message: 'SyntaxError: the script ends in the middle of a statement or expression', line: 2 });
  });

  it('gives a thrown value that is not an error without a name or a place', async () => {
    const result = await run(tool, 'const a = 1;\nthrow "plain"');
    expect(result.error).toBe(`The script threw: Thrown value: plain.\n${fixIt}`);
    expect(result.details).toEqual({ code: 'script_error', message: 'Thrown value: plain' });
  });

  it('gives an error whose name is empty by its message alone', async () => {
    const result = await run(tool, 'const e = new Error("nameless");\ne.name = "";\nthrow e;');
    expect(result.details).toMatchObject({ code: 'script_error', message: 'nameless' });
    expect(result.error).toMatch(/^The script threw at line 1, column 20: nameless\.\n/);
  });
});

describe('run_js hints at what a sandbox does not have', () => {
  const tool = createScriptTool(registry().gate());
  const modules = 'Modules cannot be imported in run_js; callTool is the only interface. ';
  const globals = 'run_js has only standard JavaScript and callTool: no require, import, process, fetch, timers or console. ';
  const hintOf = async (code: string) => {
    const result = await run(tool, code);
    expect(result.details?.code).toBe('script_error');
    return /\n([^\n]*)Fix the code and send it again\.$/.exec(result.error ?? '')?.[1];
  };

  it('says modules cannot be imported when an import or export line fails to parse', async () => {
    expect(await hintOf('import fs from "fs";\nreturn 1')).toBe(modules);
    expect(await hintOf('   import fs from "fs";\nreturn 1')).toBe(modules);
    expect(await hintOf('const a = 1;\nimport fs from "fs";')).toBe(modules);
    expect(await hintOf('const a = 1;\nexport const b = a;')).toBe(modules);
  });

  it('gives no module hint for a syntax error elsewhere, or for an error that is not a syntax error', async () => {
    expect(await hintOf('const s = "import x"; const b = ;')).toBe('');
    expect(await hintOf('imports = 1 +;')).toBe('');
    expect(await hintOf('const t = `\nexport x`;\nthrow new Error("plain");')).toBe('');
  });

  it('says what the sandbox has when the script reaches for a host global', async () => {
    expect(await hintOf('process.exit()')).toBe(globals);
    expect(await hintOf('const fs = require("fs");')).toBe(globals);
    expect(await hintOf('throw new Error("could not load module fs")')).toBe(globals);
  });

  it('tells a SyntaxError the running script threw (JSON.parse of text that is not JSON) from a syntax error of the script', async () => {
    const tool = createScriptTool(registry(mockTool('read', () => 'hello, not JSON')).gate());
    const result = await run(tool, 'const r = await callTool("read", {});\nconst data = JSON.parse(r.text);\nreturn data;');
    expect(result.details).toMatchObject({ code: 'script_error', line: 2 });
    expect(result.error).toMatch(/^The script threw at line 2, column \d+: SyntaxError: /);
    expect(result.error).not.toMatch(/syntax error at/);
    expect(result.error).toContain("most often JSON.parse of a tool's text that is not JSON");
    // A syntax error of the script itself is still one, and gets no such hint.
    const broken = await run(tool, 'const a = 1;\nconst b = ;');
    expect(broken.error).toMatch(/^The script has a syntax error at line 2/);
    expect(broken.error).not.toContain('JSON.parse');
  });

  it('gives no hint for an ordinary undefined name, or for words that only look like a missing global', async () => {
    expect(await hintOf('foo.bar()')).toBe('');
    expect(await hintOf(`throw new Error("'process' is not defined")`)).toBe('');
    expect(await hintOf(`throw new ReferenceError("see 'process' is not defined")`)).toBe('');
  });
});
