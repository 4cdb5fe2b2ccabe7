/**
 * Finding where a script decides by its data which calls it makes: a branch whose body calls,
 * returns, breaks or continues; a call behind `? :`, `&&`, `||` or `??`; a list filtered or
 * searched. A guard that only throws, a value picked, and words inside strings or comments are not.
 */
import { describe, expect, it } from 'vitest';
import { findScriptBranch } from '../../src/forge/script-branches.js';

describe('findScriptBranch', () => {
  it('finds a branch whose body calls, returns, breaks or continues, with its line', () => {
    expect(findScriptBranch('const r = await callTool("a", {});\nif (r.text) {\n  await callTool("b", {});\n}')).toEqual({ construct: 'if', line: 2 });
    expect(findScriptBranch('const r = await callTool("a", {});\nif (!r.text) return 0;\nawait callTool("b", {});')).toEqual({ construct: 'if', line: 2 });
    expect(findScriptBranch('for (const x of xs) {\n  if (x.skip) continue;\n  await tools.b({ x });\n}')).toEqual({ construct: 'if', line: 2 });
    expect(findScriptBranch('switch (kind) { case "a": await callTool("a", {}); }')).toEqual({ construct: 'switch', line: 1 });
    expect(findScriptBranch('let n = 0;\nwhile (n < 3) { await callTool("a", {}); n++; }')).toEqual({ construct: 'while', line: 2 });
    expect(findScriptBranch('try { x(); } catch (e) { await callTool("fallback", {}); }')).toEqual({ construct: 'catch', line: 1 });
  });

  it('finds a call behind a condition operator, and a list filtered by its data', () => {
    expect(findScriptBranch('const r = ok ? await callTool("a", {}) : null;')).toEqual({ construct: '? :', line: 1 });
    expect(findScriptBranch('const r = cached ?? await tools.read({ path });')).toEqual({ construct: '??', line: 1 });
    expect(findScriptBranch('ok && await callTool("a", {});')).toEqual({ construct: '&&', line: 1 });
    expect(findScriptBranch('const ts = files.filter((f) => f.endsWith(".ts"));\nfor (const f of ts) await callTool("read", { path: f });')).toEqual({ construct: '.filter(', line: 1 });
  });

  it('lets guards that only throw, values picked, optional chaining, and words in strings and comments be', () => {
    expect(findScriptBranch('const r = await callTool("a", {});\nif (r.error) throw new Error(r.error.message);\nreturn r.text || "";')).toBeUndefined();
    expect(findScriptBranch('const r = await callTool("a", { q: "if (x) return callTool()" }); // if (y) { return }\nreturn r?.text ?? "none";')).toBeUndefined();
    expect(findScriptBranch('/* while (true) { callTool("x") } */ const t = `${a ? "b" : "c"}`; return t;')).toBeUndefined();
  });
});
