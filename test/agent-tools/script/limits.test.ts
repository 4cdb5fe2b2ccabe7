import { beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxPool,
  createScriptTool,
  DEFAULT_MAX_CALL_ARGS_BYTES,
  DEFAULT_MAX_RUN_ARGS_BYTES,
} from '../../../src/agent-tools/script/index.js';
import { resolveScriptLimits } from '../../../src/agent-tools/script/options.js';
import { delay, json, mockTool, registry } from './helpers.js';

const run = (tool: ReturnType<typeof createScriptTool>, code: string, context = {}) =>
  tool.execute({ code }, context);

// Compile the WebAssembly module once before the timing tests, so no test pays for it.
beforeAll(async () => {
  await run(createScriptTool(registry().gate()), 'return 1');
});

describe('run_js caps what one call carries in', () => {
  it('cuts a call result to 48 KB on a character boundary, with a note', async () => {
    // 'é' is 2 bytes in UTF-8: 40,000 of them are 80,000 bytes.
    const big = mockTool('big', () => 'é'.repeat(40_000));
    const tool = createScriptTool(registry(big).gate(), { maxReturnChars: 100_000 });
    const result = await run(
      tool,
      `const r = await callTool("big", {});
       return { text: r.text, error: r.error };`,
    );
    const { text, error } = json(result.output);
    expect(error).toBeNull();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(48 * 1024);
    expect(text).toMatch(/\n\[truncated: 80000 bytes total\]$/);
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('éé')).toBe(true);
  }, 10_000);

  it('honours maxCallResultBytes and leaves a result under it alone', async () => {
    const big = mockTool('big', (args) => 'x'.repeat(args.n as number));
    const tool = createScriptTool(registry(big).gate(), { maxCallResultBytes: 100, maxReturnChars: 1000 });
    const result = await run(tool, `return [(await callTool("big", { n: 100 })).text.length, (await callTool("big", { n: 500 })).text];`);
    const [small, cut] = json(result.output);
    expect(small).toBe(100);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^x+\n\[truncated: 500 bytes total\]$/);
  });
});

describe('run_js caps the answer', () => {
  const tool = createScriptTool(registry().gate());

  it('accepts 16,000 characters and refuses 16,001 with a note on returning less', async () => {
    expect((await run(tool, 'return "x".repeat(16000)')).output).toHaveLength(16_000);
    const result = await run(tool, 'return "x".repeat(16001)');
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({ code: 'script_return_too_large', length: 16_001, limit: 16_000 });
    expect(result.error).toMatch(/a count instead of a list/);
  });

  it('measures a JSON answer after writing it', async () => {
    const result = await run(tool, 'return Array.from({ length: 5000 }, (_, i) => i)');
    expect(result.details).toMatchObject({ code: 'script_return_too_large' });
  });

  it('honours maxReturnChars', async () => {
    const small = createScriptTool(registry().gate(), { maxReturnChars: 10 });
    expect((await run(small, 'return "0123456789"')).success).toBe(true);
    expect((await run(small, 'return "0123456789!"')).details?.code).toBe('script_return_too_large');
  });
});

describe('run_js caps the number of calls', () => {
  it('answers the calls past maxCalls with script_too_many_calls, without making them, and says the answer may be incomplete', async () => {
    const ping = mockTool('ping', () => 'pong');
    const tool = createScriptTool(registry(ping).gate(), { maxCalls: 3 });
    const result = await run(
      tool,
      `const out = [];
       for (let i = 0; i < 5; i++) { const r = await callTool("ping", { i }); out.push(r.error ? r.error.code : r.text); }
       return out;`,
    );
    expect(result.success).toBe(true);
    const [answer, note] = String(result.output).split('\n');
    expect(json(answer)).toEqual(['pong', 'pong', 'pong', 'script_too_many_calls', 'script_too_many_calls']);
    expect(note).toBe('[run_js: 2 calls past the limit of 3 a run were not made (script_too_many_calls); this answer may be incomplete]');
    expect(result.details).toEqual({ incomplete: true, callsOverLimit: 2, maxCalls: 3 });
    expect(ping.calls).toHaveLength(3);
  });

  it('leaves an answer within the limit as it is', async () => {
    const tool = createScriptTool(registry(mockTool('ping', () => 'pong')).gate(), { maxCalls: 3 });
    const result = await run(tool, 'for (let i = 0; i < 3; i++) await callTool("ping", {}); return "three"');
    expect(result).toEqual({ success: true, output: 'three', effects: [] });
  });

  it('defaults to 1,000 calls, and says so in its description', async () => {
    const ping = mockTool('ping', () => 'pong');
    const tool = createScriptTool(registry(ping).gate());
    const result = await run(
      tool,
      `const rs = await Promise.all(Array.from({ length: 1001 }, (_, i) => callTool("ping", { i })));
       return rs.filter((r) => r.error).map((r) => r.error.code);`,
    );
    expect(json(String(result.output).split('\n')[0])).toEqual(['script_too_many_calls']);
    expect(result.details).toMatchObject({ incomplete: true, callsOverLimit: 1 });
    expect(ping.calls).toHaveLength(1000);
    expect(tool.description).toContain('Max 1000 calls.');
    expect(createScriptTool(registry(ping).gate(), { maxCalls: 20 }).description).toContain('Max 20 calls.');
  }, 30_000);
});

describe('run_js time limits', () => {
  it('ends while(true) {} within the limit plus a small margin', async () => {
    const tool = createScriptTool(registry().gate(), { timeoutMs: 200 });
    const start = Date.now();
    const result = await run(tool, 'while (true) {}');
    const elapsed = Date.now() - start;
    expect(result.details).toMatchObject({ code: 'script_timeout', timeoutMs: 200 });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(700);
  });

  it('ends an endless chain of awaits', async () => {
    const tool = createScriptTool(registry().gate(), { timeoutMs: 200 });
    const start = Date.now();
    const result = await run(tool, 'for (;;) await null;');
    expect(result.details?.code).toBe('script_timeout');
    expect(Date.now() - start).toBeLessThan(700);
  });

  it('ends a run waiting on a tool that never settles at the deadline, naming the abandoned call', async () => {
    const never = mockTool('never', () => new Promise(() => {}));
    const tool = createScriptTool(registry(never).gate(), { timeoutMs: 200 });
    const start = Date.now();
    const result = await run(tool, 'const r = await callTool("never", {}); return r.error ? "carried on" : "done";');
    expect(result.details).toMatchObject({ code: 'script_timeout', abandoned: [{ step: 'call 1', tool: 'never' }] });
    // The limit, then the short grace the call in flight gets before it is listed as unknown.
    expect(Date.now() - start).toBeLessThan(900);
  });

  it('ignores an answer that arrives after the run ended', async () => {
    const late = mockTool('late', async () => {
      await delay(300);
      return 'too late';
    });
    const tool = createScriptTool(registry(late).gate(), { timeoutMs: 100 });
    const result = await run(tool, 'return (await callTool("late", {})).text');
    expect(result.details?.code).toBe('script_timeout');
    // The late answer lands on a disposed sandbox; nothing may throw.
    await delay(400);
    expect(late.calls).toHaveLength(1);
  });

  it('stretches the limit to slowTimeoutMs when the script calls a slow tool', async () => {
    const build = mockTool('build', async () => {
      await delay(500);
      return 'built';
    });
    const wait = mockTool('wait', async () => {
      await delay(1000);
      return 'waited';
    });
    const tool = createScriptTool(registry(build, wait).gate(), { timeoutMs: 200, slowTimeoutMs: 1500, slowTools: ['build'] });

    const slow = await run(tool, 'return (await callTool("build", {})).text');
    expect(slow).toMatchObject({ success: true, output: 'built' });

    const start = Date.now();
    const plain = await run(tool, 'return (await callTool("wait", {})).text');
    expect(plain.details).toMatchObject({ code: 'script_timeout', timeoutMs: 200 });
    // The deadline plus the short grace the calls in flight get, well before the 1 s tool ends.
    expect(Date.now() - start).toBeLessThan(800);
  });

  it('still ends a run that called a slow tool at slowTimeoutMs', async () => {
    const build = mockTool('build', () => 'built');
    const tool = createScriptTool(registry(build).gate(), { timeoutMs: 100, slowTimeoutMs: 400, slowTools: ['build'] });
    const start = Date.now();
    const result = await run(tool, 'await callTool("build", {}); while (true) {}');
    expect(result.details).toMatchObject({ code: 'script_timeout', timeoutMs: 400 });
    expect(Date.now() - start).toBeLessThan(900);
  });
});

describe('run_js memory limit', () => {
  it('fails a memory bomb with script_memory, and the next run is unharmed', async () => {
    const tool = createScriptTool(registry().gate(), { memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 });
    const start = Date.now();
    const result = await run(tool, "const a = []; while (true) a.push('x'.repeat(1e6));");
    expect(result.success).toBe(false);
    expect(result.details?.code).toBe('script_memory');
    expect(result.error).toMatch(/16 MB/);
    expect(Date.now() - start).toBeLessThan(5000);
    expect((await run(tool, 'return [1, 2, 3].map((n) => n * 2)')).output).toBe('[2,4,6]');
  }, 20_000);

  it('holds the host to the cap: memory bombs, one after another and at once, leave the process at most a few caps larger', async () => {
    const pool = createSandboxPool({ maxRuns: 2 });
    const tool = createScriptTool(registry().gate(), { memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 10_000, pool });
    const bomb = "const a = []; while (true) a.push('x'.repeat(1e6) + a.length);";
    await run(tool, 'return 1');
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 3; i++) expect((await run(tool, bomb)).details?.code).toBe('script_memory');
    const results = await Promise.all(Array.from({ length: 6 }, () => run(tool, bomb)));
    expect(results.map((r) => r.details?.code)).toEqual(Array(6).fill('script_memory'));
    // Two runs at once, each capped at 16 MB + 32 MB + a reserve: about 160 MB in all here, far from
    // the gigabytes nine uncapped bombs would take. The bound leaves room for the test process's
    // own heap, which grows when the code is instrumented (coverage, mutation testing).
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
  }, 60_000);

  it('ends a script that fills its heap, catches the error and calls on, as script_memory', async () => {
    const big = mockTool('big', () => 'y'.repeat(40_000));
    const tool = createScriptTool(registry(big).gate(), { memoryLimitBytes: 16 * 1024 * 1024 });
    const fill = 'const a = []; try { while (true) a.push("x".repeat(1e4) + a.length); } catch (e) {}\n';
    const kept = await run(tool, `${fill}const r = await callTool("big", {}); return [a.length, r.text.length];`);
    expect(kept.details?.code).toBe('script_memory');
    // A script that lets go of what it filled carries on.
    const freed = await run(tool, `${fill}a.length = 0;\nconst r = await callTool("big", {}); return r.text.length;`);
    expect(freed).toMatchObject({ success: true, output: '40000' });
    // And its own error is still read, with its line, however full the heap.
    const threw = await run(tool, `${fill}throw new Error("full at " + a.length);`);
    expect(threw.details).toMatchObject({ code: 'script_error', line: 2 });
    expect(threw.details?.message).toMatch(/^Error: full at \d+$/);
  }, 20_000);

  it('fails one allocation past the limit with script_memory', async () => {
    const tool = createScriptTool(registry().gate(), { memoryLimitBytes: 8 * 1024 * 1024 });
    const result = await run(tool, "return 'x'.repeat(64 * 1024 * 1024).length");
    expect(result.details?.code).toBe('script_memory');
  });

  it('keeps deep recursion a script error, not a host crash', async () => {
    const tool = createScriptTool(registry().gate());
    const result = await run(tool, 'function f(n) { return f(n + 1) + 1; }\nreturn f(0);');
    expect(result.details?.code).toBe('script_error');
    expect(result.details?.message).toMatch(/stack overflow/);
    expect((await run(tool, 'return "fine"')).output).toBe('fine');
  });
});

describe('run_js caps what the calls carry out', () => {
  it("refuses a call whose arguments pass maxCallArgsBytes, without making it or copying them out", async () => {
    const sink = mockTool('sink', (args) => (args.data as string).length);
    const tool = createScriptTool(registry(sink).gate(), { maxCallArgsBytes: 1000 });
    const result = await run(
      tool,
      `const small = await callTool("sink", { data: "x".repeat(900) });
       const large = await callTool("sink", { data: "x".repeat(2000) });
       const wide = await callTool("sink", { data: "é".repeat(600) });
       return [small.text, large.error, wide.error.code];`,
    );
    const [small, large, wide] = json(result.output);
    expect(small).toBe('900');
    expect(large.code).toBe('script_args_too_large');
    expect(large.message).toMatch(/at most 1000.*not made/);
    // 600 characters, but 1,200 bytes of UTF-8: the bound is in bytes.
    expect(wide).toBe('script_args_too_large');
    expect(sink.calls).toHaveLength(1);
  });

  it('refuses the calls that would take the run past maxRunArgsBytes, however large its heap', async () => {
    let received = 0;
    const sink = mockTool('sink', (args) => {
      received += (args.data as string).length;
      return 'kept';
    });
    const tool = createScriptTool(registry(sink).gate(), { maxCalls: 100 });
    // 50 calls of 600 KB each would be 30 MB of arguments; the run may pass 8 MB in all.
    const result = await run(
      tool,
      `const data = "x".repeat(600 * 1024);
       const codes = [];
       for (let i = 0; i < 50; i++) { const r = await callTool("sink", { data }); codes.push(r.error ? r.error.code : r.text); }
       return [codes.filter((c) => c === "kept").length, codes.filter((c) => c === "script_args_too_large").length];`,
    );
    const [kept, refused] = json(result.output);
    expect(kept).toBe(13);
    expect(refused).toBe(37);
    expect(received).toBeLessThanOrEqual(8 * 1024 * 1024);
  }, 20_000);

  it('takes its defaults from DEFAULT_MAX_CALL_ARGS_BYTES and DEFAULT_MAX_RUN_ARGS_BYTES', () => {
    expect(resolveScriptLimits({})).toMatchObject({
      maxCallArgsBytes: DEFAULT_MAX_CALL_ARGS_BYTES,
      maxRunArgsBytes: DEFAULT_MAX_RUN_ARGS_BYTES,
    });
    expect(DEFAULT_MAX_CALL_ARGS_BYTES).toBe(1024 * 1024);
    expect(DEFAULT_MAX_RUN_ARGS_BYTES).toBe(8 * 1024 * 1024);
  });
});
