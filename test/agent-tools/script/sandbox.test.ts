import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBUG_SYNC, newQuickJSWASMModule, TestQuickJSWASMModule } from 'quickjs-emscripten';
import { createScriptTool } from '../../../src/agent-tools/script/index.js';
import { refusedCall } from '../../../src/agent-tools/script/call-result.js';
import { runScript, type SandboxRequest } from '../../../src/agent-tools/script/sandbox.js';
import { delay, json, mockTool, registry } from './helpers.js';

const run = (tool: ReturnType<typeof createScriptTool>, code: string) => tool.execute({ intention: 'test', code }, {});

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

  it('starts every run fresh: globals do not survive', async () => {
    await run(tool, 'globalThis.leftover = 41;');
    expect((await run(tool, 'return typeof leftover')).output).toBe('undefined');
  });
});

describe('runScript disposes everything', () => {
  let module: TestQuickJSWASMModule;
  beforeAll(async () => {
    // The debug build checks for leaked handles when a runtime is freed.
    module = new TestQuickJSWASMModule(await newQuickJSWASMModule(DEBUG_SYNC));
  });
  afterAll(() => module.disposeAll());


  const request = (code: string, extra: Partial<SandboxRequest> = {}): SandboxRequest => ({
    code,
    timeLimitMs: () => 300,
    memoryLimitBytes: 32 * 1024 * 1024,
    maxReturnChars: 1000,
    ...extra,
  });
  const answer = async (call: { name: string }) => {
    if (call.name === 'never') return new Promise<never>(() => {});
    if (call.name === 'slow') await delay(50);
    if (call.name === 'late') await delay(400);
    return { text: `answer from ${call.name}`, error: null };
  };

  it.each([
    ['a plain answer', 'return 1 + 1', 'returned'],
    ['calls, awaited and concurrent', 'await callTool("a", {}); return (await Promise.all([callTool("slow", {}), callTool("b", {})])).map((r) => r.text)', 'returned'],
    ['an abandoned call', 'callTool("slow", {}); return "early"', 'returned'],
    ['a throw', 'await callTool("a", {}); throw new Error("x")', 'threw'],
    ['a syntax error', 'const = 1', 'threw'],
    ['a timeout in a loop', 'while (true) {}', 'timeout'],
    ['a timeout waiting on a call', 'await callTool("never", {})', 'timeout'],
    ['a late answer', 'await callTool("late", {})', 'timeout'],
    ['a stalled script', 'await new Promise(() => {})', 'stalled'],
    ['a cyclic answer', 'const a = {}; a.a = a; return a', 'return_invalid'],
    ['a long answer', 'return "x".repeat(2000)', 'return_too_large'],
    ['an allocation past the limit', 'return "x".repeat(64 * 1024 * 1024)', 'memory'],
  ])('after %s', async (_name, code, kind) => {
    const result = await runScript(module, request(code), answer);
    expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe(kind);
    // Freeing a runtime with a live handle fails an assertion in QuickJS: a clean dispose is the check.
    expect(result.moduleBroken).toBe(false);
    expect([...module.runtimes].every((runtime) => !runtime.alive)).toBe(true);
  });

  it('leaves no memory allocated after all those runs', async () => {
    await delay(500); // let the late answers land on their disposed runs
    // (TestQuickJSWASMModule's own runtime count never drops in 0.32: newRuntime drops the hook
    // that would remove a disposed runtime, so the leak check is asked directly.)
    expect(module.getFFI().QTS_RecoverableLeakCheck()).toBe(0);
    expect([...module.runtimes].every((runtime) => !runtime.alive)).toBe(true);
  });

  it('reports a failure of the module itself as crashed and leaves the module alone', async () => {
    const failing = {
      newRuntime: () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const result = await runScript(failing, request('return 1'), answer);
    expect(result.outcome).toEqual({ kind: 'crashed', message: 'Maximum call stack size exceeded' });
    expect(result.moduleBroken).toBe(true);
  });

  it('names the calls a run abandoned', async () => {
    const result = await runScript(module, request('callTool("a", {}); await callTool("never", {})', { timeLimitMs: () => 100 }), answer);
    expect(result.outcome.kind).toBe('timeout');
    expect(result.abandoned).toEqual([{ index: 2, name: 'never' }]);
  });

  it('reads its limit at every check, so the host can stretch it mid-run, and reports its start', async () => {
    let limitMs = 100;
    let startedAt = 0;
    const before = Date.now();
    const result = await runScript(
      module,
      request('const r = await callTool("build", {}); let i = 0; while (i < 1e5) i++; return r.text', {
        timeLimitMs: () => limitMs,
        onStart: (at) => {
          startedAt = at;
        },
      }),
      async () => {
        limitMs = 2000;
        await delay(300);
        return { text: 'built', error: null };
      },
    );
    expect(result.outcome).toEqual({ kind: 'returned', text: 'built' });
    expect(result.timeLimitMs).toBe(2000);
    expect(startedAt).toBeGreaterThanOrEqual(before);
  });

  it('turns a call handler that throws into an error the script reads', async () => {
    const result = await runScript(module, request('return (await callTool("x", {})).error.code'), () => {
      throw new Error('handler bug');
    });
    expect(result.outcome).toEqual({ kind: 'returned', text: 'step_threw' });
  });

  it('passes the args as parsed JSON and numbers the calls', async () => {
    const seen: unknown[] = [];
    const result = await runScript(module, request('await callTool("a", { x: [1, "two"] }); await callTool("b"); return "ok"'), async (call) => {
      seen.push(call);
      return refusedCall('step_missing', 'none');
    });
    expect(result.outcome.kind).toBe('returned');
    expect(seen).toEqual([
      { index: 1, name: 'a', args: { x: [1, 'two'] } },
      { index: 2, name: 'b', args: {} },
    ]);
  });
});
