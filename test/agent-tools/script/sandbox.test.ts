import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBUG_SYNC, TestQuickJSWASMModule } from 'quickjs-emscripten';
import { createSandboxPool, createScriptTool } from '../../../src/agent-tools/script/index.js';
import { compiledModule, newSandboxInstance } from '../../../src/agent-tools/script/quickjs-module.js';
import { runScript } from '../../../src/agent-tools/script/run.js';
import type { SandboxCall, SandboxModule, SandboxRequest } from '../../../src/agent-tools/script/run-contract.js';
import { channelFor, delay, json, mockTool, registry } from './helpers.js';

const run = (tool: ReturnType<typeof createScriptTool>, code: string) => tool.execute({ code }, {});

describe('the sandbox has no way out but callTool', () => {
  const echo = mockTool('echo', (args) => args);
  const tool = createScriptTool(registry(echo).gate());

  it.each([
    ['process', 'return process.env', /'process' is not defined/],
    ['require', 'return require("fs")', /'require' is not defined/],
    ['dynamic import', 'return await import("fs")', /could not load module 'fs'/],
    ['static import', 'import fs from "fs";\nreturn 1', /SyntaxError/],
    ['Function constructor', 'return globalThis.constructor.constructor("return process")()', /'process' is not defined/],
    ['this.constructor.constructor', 'return this.constructor.constructor("return process")()', /'process' is not defined/],
    ['callTool.constructor', 'return callTool.constructor("return require")()', /'require' is not defined/],
    ['fetch', 'return await fetch("https://example.com")', /'fetch' is not defined/],
  ])('%s is a script error', async (_name, code, message) => {
    const result = await run(tool, code);
    expect(result.success).toBe(false);
    expect(result.details?.code).toBe('script_error');
    expect(result.details?.message).toMatch(message);
    expect(result.error).toMatch(/Fix the code/);
  });

  it('names what is missing when a script reaches for a host global', async () => {
    const result = await run(tool, 'setTimeout(() => {}, 10);');
    expect(result.error).toMatch(/no require, import, process, fetch, timers or console/);
  });

  it('has no timers, console, or host objects, and its global object is its own', async () => {
    const result = await run(
      tool,
      `const global = this.constructor.constructor("return this")();
       return {
         timers: [typeof setTimeout, typeof setInterval, typeof setImmediate, typeof queueMicrotask],
         host: [typeof console, typeof process, typeof require, typeof Buffer, typeof WebAssembly],
         sameGlobal: global === globalThis,
         globals: Object.getOwnPropertyNames(globalThis).filter((k) => /^(process|require|global|module|callTool)$/.test(k)),
       };`,
    );
    const out = json(result.output);
    expect(out.timers.slice(0, 3)).toEqual(['undefined', 'undefined', 'undefined']);
    expect(out.host).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
    expect(out.sameGlobal).toBe(true);
    expect(out.globals).toEqual(['callTool']);
  });

  it('cannot change the host: prototype pollution stays inside', async () => {
    const result = await run(
      tool,
      `Object.prototype.polluted = "yes"; Array.prototype.map = null; JSON.stringify = () => "hijacked";
       const r = await callTool("echo", { a: 1 });
       return r.text;`,
    );
    // The script broke its own JSON.stringify after the prelude captured the real one.
    expect(result).toMatchObject({ success: true, output: '{"a":1}' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof [].map).toBe('function');
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    expect(echo.calls.at(-1)).toEqual({ a: 1 });
  });

  it('cannot replace callTool', async () => {
    const result = await run(tool, 'try { callTool = () => 1; } catch (e) {}\nreturn typeof callTool("echo", {}).then;');
    expect(result.output).toBe('function');
  });

  it('keeps the code behind its globals out of reach: an index the script sets on a prototype neither stands in for it nor sees it', async () => {
    // A getter standing in for the code of callTool: the script's own function would answer its calls.
    const standIn = await run(
      tool,
      `for (const proto of [Array.prototype, Object.prototype]) for (const key of ["0", "1", "2"])
         Object.defineProperty(proto, key, { get() { return { callAt: () => "forged", tools: { echo: () => "forged" } }; }, configurable: true });
       let made;
       try { made = callTool("echo", {}) === "forged" || tools.echo({}) === "forged"; } catch (e) { made = "threw"; }
       return String(made)`,
    );
    expect(['false', 'threw']).toContain(standIn.output);
    // A setter that would be handed the code itself, with what answers and numbers every call.
    const seen = await run(
      tool,
      `let stolen;
       for (const proto of [Array.prototype, Object.prototype]) for (const key of ["0", "1", "2"])
         Object.defineProperty(proto, key, { set(value) { stolen = value; }, configurable: true });
       try { callTool("echo", {}); tools.echo({}); } catch (e) {}
       return typeof stolen === "object" && stolen !== null ? Object.keys(stolen).join() : typeof stolen`,
    );
    expect(seen.output).not.toMatch(/callAt|take|deliver|tools/);
  });

  it('starts every run fresh: globals do not survive', async () => {
    await run(tool, 'globalThis.leftover = 41;');
    expect((await run(tool, 'return typeof leftover')).output).toBe('undefined');
  });

  it('starts every run on a reused thread and instance fresh: nothing a script changed survives it', async () => {
    const pool = createSandboxPool({ threads: 1 });
    const one = createScriptTool(registry(echo).gate(), { pool });
    await run(
      one,
      `Object.prototype.leak = 1; Array.prototype.push = null; JSON.parse = () => "hijacked";
       Symbol.for("shared").description; globalThis.callToolCopy = callTool; return 1`,
    );
    const after = await run(
      one,
      `return [typeof ({}).leak, typeof [].push, JSON.parse("[1]")[0], typeof globalThis.callToolCopy, (await callTool("echo", { a: 1 })).text]`,
    );
    expect(json(after.output)).toEqual(['undefined', 'function', 1, 'undefined', '{"a":1}']);
    expect(pool.stats().threads).toBe(1);
  });
});

describe('runScript disposes everything', () => {
  let module: TestQuickJSWASMModule;
  let instance: SandboxModule;
  beforeAll(async () => {
    // The debug build checks for leaked handles when a runtime is freed.
    const debug = await newSandboxInstance(64 * 1024 * 1024, undefined, DEBUG_SYNC);
    module = new TestQuickJSWASMModule(debug.quickjs);
    instance = { quickjs: module, malloc: debug.malloc, free: debug.free, heap: debug.heap };
  });
  afterAll(() => module.disposeAll());

  const request = (code: string, extra: Partial<SandboxRequest> = {}): SandboxRequest => ({
    code,
    // The debug build is slow: a second leaves every case but the timeouts well inside its limit.
    timeLimitMs: () => 1000,
    memoryLimitBytes: 32 * 1024 * 1024,
    maxReturnChars: 1000,
    maxCalls: 50,
    maxCallArgsBytes: 1024,
    maxRunArgsBytes: 4096,
    maxCallResultBytes: 1024,
    ...extra,
  });
  // A channel per run, as a worker's answers carry their run: a late answer never reaches the next run.
  const answer = () => channelFor(async (call) => {
    if (call.name === 'never') return new Promise<never>(() => {});
    if (call.name === 'slow') await delay(50);
    if (call.name === 'late') await delay(1500);
    return { text: `answer from ${call.name}`, error: null };
  });

  it.each([
    ['a plain answer', 'return 1 + 1', 'returned'],
    ['calls, awaited and concurrent', 'await callTool("a", {}); return (await Promise.all([callTool("slow", {}), callTool("b", {})])).map((r) => r.text)', 'returned'],
    ['an abandoned call', 'callTool("slow", {}); return "early"', 'returned'],
    ['calls past the bounds', 'const rs = await Promise.all(Array.from({ length: 60 }, (_, i) => callTool("a", { pad: "x".repeat(i * 10) }))); return rs.filter((r) => r.error).length', 'returned'],
    ['a throw', 'await callTool("a", {}); throw new Error("x")', 'threw'],
    ['a syntax error', 'const = 1', 'threw'],
    ['a timeout in a loop', 'while (true) {}', 'timeout'],
    ['a timeout waiting on a call', 'await callTool("never", {})', 'timeout'],
    ['a late answer', 'await callTool("late", {})', 'timeout'],
    ['a stalled script', 'await new Promise(() => {})', 'stalled'],
    ['a cyclic answer', 'const a = {}; a.a = a; return a', 'return_invalid'],
    ['an answer holding a call not awaited', 'return [callTool("a", {})]', 'return_pending'],
    ['a long answer', 'return "x".repeat(2000)', 'return_too_large'],
    ['an allocation past the limit', 'return "x".repeat(64 * 1024 * 1024)', 'memory'],
  ])('after %s', async (_name, code, kind) => {
    // A second is the limit the time-outs are made to pass; the others get room for a loaded machine.
    const result = await runScript(instance, request(code, kind === 'timeout' ? {} : { timeLimitMs: () => 10_000 }), answer());
    expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe(kind);
    // Freeing a runtime with a live handle fails an assertion in QuickJS: a clean dispose is the check.
    expect(result.moduleBroken).toBe(false);
    expect([...module.runtimes].every((runtime) => !runtime.alive)).toBe(true);
  });

  it('leaves no memory allocated after all those runs', async () => {
    await delay(1600); // let the late answers land on their disposed runs
    // (TestQuickJSWASMModule's own runtime count never drops in 0.32: newRuntime drops the hook
    // that would remove a disposed runtime, so the leak check is asked directly.)
    expect(module.getFFI().QTS_RecoverableLeakCheck()).toBe(0);
    expect([...module.runtimes].every((runtime) => !runtime.alive)).toBe(true);
  });

  it('reports a failure of the module itself as crashed and leaves the module alone', async () => {
    const failing: SandboxModule = {
      quickjs: {
        newRuntime: () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      },
      malloc: () => 8,
      free: () => undefined,
      heap: { exhausted: false },
    };
    const result = await runScript(failing, request('return 1'), answer());
    expect(result.outcome).toEqual({ kind: 'crashed', message: 'Maximum call stack size exceeded' });
    expect(result.moduleBroken).toBe(true);
  });

  it('names the calls a run abandoned', async () => {
    const result = await runScript(instance, request('callTool("a", {}); await callTool("never", {})', { timeLimitMs: () => 500 }), answer());
    expect(result.outcome.kind).toBe('timeout');
    expect(result.abandoned).toEqual([{ index: 2, name: 'never' }]);
  });

  it('reads its limit at every check, so the host can stretch it mid-run, and reports its start', async () => {
    let limitMs = 100;
    let startedAt = 0;
    const before = Date.now();
    const result = await runScript(
      instance,
      request('const r = await callTool("build", {}); let i = 0; while (i < 1e5) i++; return r.text', {
        timeLimitMs: () => limitMs,
        onStart: (at) => {
          startedAt = at;
        },
      }),
      channelFor(async () => {
        limitMs = 2000;
        await delay(300);
        return { text: 'built', error: null };
      }),
    );
    expect(result.outcome).toEqual({ kind: 'returned', text: 'built' });
    expect(result.timeLimitMs).toBe(2000);
    expect(startedAt).toBeGreaterThanOrEqual(before);
  });

  it('turns a call handler that throws into an error the script reads', async () => {
    const result = await runScript(
      instance,
      request('return (await callTool("x", {})).error.code'),
      channelFor(() => {
        throw new Error('handler bug');
      }),
    );
    expect(result.outcome).toEqual({ kind: 'returned', text: 'step_threw' });
  });

  it('sends the args as JSON text and numbers the calls, refusing past its bounds without sending', async () => {
    const seen: SandboxCall[] = [];
    const result = await runScript(
      instance,
      request(
        `const out = [];
         out.push(await callTool("a", { x: [1, "two"] }));
         out.push(await callTool("b"));
         out.push(await callTool("big", { s: "é".repeat(600) }));
         out.push(await callTool("c", [1]));
         for (let i = 0; i < 4; i++) out.push(await callTool("fill", { s: "y".repeat(900) }));
         return out.map((r) => r.error ? r.error.code : r.text)`,
        { maxCalls: 7, maxRunArgsBytes: 2048 },
      ),
      channelFor(async (call) => {
        seen.push(call);
        return { text: 'ok', error: null };
      }),
    );
    // "é" is two UTF-8 bytes: 1,208 bytes of JSON, past the 1,024 a call may pass, though 608
    // characters. Each fill is 908 bytes: the third would bring the run to 2,741, past its 2,048.
    // The eighth call is past maxCalls.
    expect(result.outcome).toEqual({
      kind: 'returned',
      text: JSON.stringify(['ok', 'ok', 'script_args_too_large', 'ok', 'ok', 'ok', 'script_args_too_large', 'script_too_many_calls']),
    });
    expect(seen.slice(0, 3)).toEqual([
      { index: 1, mode: 'call', name: 'a', args: '{"x":[1,"two"]}' },
      { index: 2, mode: 'call', name: 'b', args: '{}' },
      { index: 4, mode: 'call', name: 'c', args: null },
    ]);
    expect(seen.map((call) => call.index)).toEqual([1, 2, 4, 5, 6]);
  });
});

describe('the sandbox under many calls and a growing heap', () => {
  // A thread of their own: these scripts compute for a second without awaiting, which the slice
  // would stop if another test's run waited for the same thread.
  const pool = createSandboxPool({ threads: 1 });
  const tool = createScriptTool(registry(mockTool('ping', () => 'pong')).gate(), { maxCalls: 50, pool });

  it('takes 100,000 calls fired without await as the script: the first 50 made, the rest refused, no host error', async () => {
    const result = await run(tool, 'for (let i = 0; i < 100000; i++) callTool("ping", { i }); return "fired"');
    expect(result).toMatchObject({ success: true, output: expect.stringMatching(/^fired\n\[run_js: 99950 calls past the limit of 50/) });
    const collect = `const rs = await Promise.all(Array.from({ length: 100000 }, (_, i) => callTool("ping", { i })));
       return [rs.filter((r) => r.text === "pong").length, rs.filter((r) => r.error && r.error.code === "script_too_many_calls").length];`;
    const roomy = createScriptTool(registry(mockTool('ping', () => 'pong')).gate(), { memoryLimitBytes: 256 * 1024 * 1024, maxCalls: 50, pool });
    const roomyResult = await run(roomy, collect);
    expect(roomyResult.success, JSON.stringify(roomyResult)).toBe(true);
    expect(json(String(roomyResult.output).split("\n")[0])).toEqual([50, 99_950]);
    // Holding all 100,000 at once does not fit 64 MB: QuickJS then throws null, read as the memory limit.
    expect((await run(tool, collect)).details?.code).toBe('script_memory');
  }, 30_000);

  it('keeps its module sound when the script fills memory after an await (no host error, nothing left behind)', async () => {
    const instance = await newSandboxInstance(64 * 1024 * 1024, await compiledModule());
    const limits = { memoryLimitBytes: 48 * 1024 * 1024, maxReturnChars: 100, maxCalls: 10, maxCallArgsBytes: 1024, maxRunArgsBytes: 4096, maxCallResultBytes: 1024 };
    const grow = 'await callTool("a", {}); const a = []; for (let i = 0; i < 30; i++) a.push("x".repeat(1e6) + i); return a.length';
    for (let round = 0; round < 3; round++) {
      const result = await runScript(instance, { code: grow, timeLimitMs: () => 10_000, ...limits }, channelFor(() => ({ text: 'ok', error: null })));
      expect(result).toMatchObject({ outcome: { kind: 'returned', text: '30' }, moduleBroken: false });
    }
    expect(instance.output).toEqual([]);
  });

  it('compiles the QuickJS module once per process, and fixes each instance memory at its cap', async () => {
    const module = await compiledModule();
    expect(await compiledModule()).toBe(module);
    expect(module).toBeInstanceOf((globalThis as unknown as { WebAssembly: { Module: new () => object } }).WebAssembly.Module);
    const instance = await newSandboxInstance(16 * 1024 * 1024, module);
    const runtime = instance.quickjs.newRuntime();
    const vm = runtime.newContext();
    // 16 MB of base and 16 MB of heap: a 40 MB string cannot fit, and the heap is marked full.
    const result = vm.evalCode('"x".repeat(40 * 1024 * 1024).length');
    expect(result.error && vm.dump(result.error)).toMatchObject({ message: 'out of memory' });
    result.error?.dispose();
    expect(instance.heap.exhausted).toBe(true);
    vm.dispose();
    runtime.dispose();
  });

  it("captures the module's own output (an abort says why) instead of writing it to the host's stderr", async () => {
    const instance = await newSandboxInstance(16 * 1024 * 1024, await compiledModule());
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const runtime = instance.quickjs.newRuntime();
      const vm = runtime.newContext();
      vm.newObject(); // left alive: freeing the runtime now fails QuickJS's own assertion
      vm.dispose();
      expect(() => runtime.dispose()).toThrow(/Aborted/);
    } finally {
      process.stderr.write = write;
    }
    expect(instance.output.join('\n')).toMatch(/^Aborted\(Assertion failed: list_empty/);
    expect(written).toEqual([]);
  });
});
