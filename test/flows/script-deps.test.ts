/**
 * The analysis of a run_js script (`src/flows/script-deps.ts`) and the script it instruments
 * (`src/agent-tools/script/script-instrument.ts`): what it gives up on, the built-in names it
 * guards against the sandbox's own built-ins, and that an instrumented script does what it did.
 */
import { parse } from 'acorn';
import { newQuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten';
import { describe, expect, it } from 'vitest';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { instrumentScript } from '../../src/agent-tools/script/script-instrument.js';
import { analyseScript } from '../../src/flows/script-deps.js';
import { PROTO_OBJECT_NAMES } from '../../src/flows/script-globals.js';
import { registry, tool } from '../helpers/tools.js';

/** Each script, and what the analysis says when it gives up on it. */
const GIVES_UP: [string, RegExp][] = [
  ['eval("1")', /eval/],
  ['with ({}) {}', /parse|With/],
  ['return this', /ThisExpression/],
  ['function f() { return arguments } return f()', /arguments/],
  ['class A {}', /class/],
  ['function* g() {}', /generator/],
  ['const o = { get x() { return 1 } }', /getter/],
  ['const o = { m() { return 1 } }', /method/],
  ['const f = () => 1; const g = f', /used as a value/],
  ['const a = [() => 1]', /function used as a value/],
  ['const f = Math.max', /built-in function used as a value/],
  ['Math.x = 1', /built-in changed/],
  ['const k = "max"; Math[k](1)', /computed/],
  // A prototype every array shares: a field written on it would reach every array unseen.
  ['const P = Object.getPrototypeOf([]); P.x = 1', /Object.getPrototypeOf, which the analysis does not follow/],
  ['new Promise(() => 1)', /new|value/],
  ['const o = {}; const k = "a"; o[k]()', /method named by data/],
  ['const o = {}; o.constructor', /constructor/],
  ['const o = {}; o.__proto__', /__proto__/],
  ['const o = {}; o?.map', /optional read/],
  ['const { map } = []', /pattern/],
  ['const c = callTool', /callTool is used other than called/],
  ['const t = tools; t.x()', /tools is used other than called/],
  ['[1].map((x) => x, await 1)', /await inside a call/],
  ['if (true) { function f() {} }', /block/],
  ['try {} catch (e) { var e = 1 }', /hidden/],
  ['const __tw = 1', /reserved/],
  ['const callTool = 1', /declares callTool/],
  ['const a = 1 <!-- 2', /HTML-like/],
  ['const a = "\u2028"', /line separators/],
  ['return globalThis', /globalThis/],
  ['return Function("1")', /Function/],
  ['return Reflect.ownKeys({})', /Reflect/],
  ['return new Proxy({}, {})', /Proxy|new/],
  ['return Symbol.iterator', /Symbol/],
  ['x = 1', /never declared/],
  ['L: function f() {}', /function declared/],
  ['})(); (async () => {', /one function body|parse/],
];

describe('the analysis gives up on what it cannot follow soundly', () => {
  for (const [code, reason] of GIVES_UP) {
    it(`gives up on ${JSON.stringify(code)}`, () => {
      const found = analyseScript(code);
      expect(found.ok).toBe(false);
      if (!found.ok) expect(found.reason).toMatch(reason);
    });
  }

  it('gives up on a script built to make it slow (it runs on the host thread), and on one past its length bound', () => {
    // Each call's arguments are built from the answer before: every statement's sources grow with the script.
    const chained = (n: number): string =>
      Array.from({ length: n }, (_, i) => `let r${i} = await callTool('t', { x: 1 });\n`).join('') +
      'let acc = 0;\n' +
      Array.from({ length: n }, (_, i) => `if (r${i}.text) acc += r${(i * 7) % n}.text.length;\n`).join('') +
      "await callTool('pay', { acc });";
    expect(analyseScript(chained(10)).ok).toBe(true);
    const slow = analyseScript(chained(200));
    expect(slow.ok === false && slow.reason).toMatch(/too long to analyse/);
    const long = analyseScript(`const s = '${'x'.repeat(64_000)}';`);
    expect(long.ok === false && long.reason).toMatch(/longer than 64000/);
  });

  it('follows a script that awaits inside a function it hands to a built-in: the function runs concurrently', () => {
    const found = analyseScript('return Promise.all([1].map(async (x) => (await callTool("a", {})).text))');
    expect(found.ok && found.concurrent).toBe(true);
  });
});

describe('the names a built-in holds an object under', () => {
  it("cover every method and object-valued accessor of the sandbox's built-in prototypes", async () => {
    const quickjs = await newQuickJSWASMModule(RELEASE_SYNC);
    const vm = quickjs.newContext();
    const found = vm.evalCode(`(function () {
      const getProto = Object.getPrototypeOf, ownKeys = Reflect.ownKeys, getDesc = Object.getOwnPropertyDescriptor;
      const protos = new Set();
      const add = (p) => { while (p && !protos.has(p)) { protos.add(p); p = getProto(p); } };
      for (const name of Object.getOwnPropertyNames(globalThis)) { const v = globalThis[name]; if (typeof v === 'function' && v.prototype) add(v.prototype); }
      for (const s of [function () {}, async function () {}, function* () {}, async function* () {}, [][Symbol.iterator](), ''[Symbol.iterator](), new Map().entries(), new Set().values(), /a/[Symbol.matchAll]('a'), Promise.resolve(), new Uint8Array(1), [].values().map((x) => x)]) add(getProto(s));
      const names = [];
      for (const p of protos) for (const k of ownKeys(p)) {
        if (typeof k !== 'string') continue;
        const d = getDesc(p, k);
        const object = 'value' in d ? typeof d.value === 'function' || (typeof d.value === 'object' && d.value !== null) : true;
        if (object) names.push(k);
      }
      return JSON.stringify(names);
    })()`);
    const names = JSON.parse(vm.getString(vm.unwrapResult(found))) as string[];
    vm.dispose();
    // Accessors that answer a primitive (a length, a flag, a source text) need no guard.
    const primitiveAccessors = new Set(['length', 'size', 'byteLength', 'byteOffset', 'maxByteLength', 'flags', 'source', 'global', 'ignoreCase', 'multiline', 'sticky', 'unicode', 'unicodeSets', 'dotAll', 'hasIndices', 'description', 'detached', 'growable', 'resizable', 'lineNumber', 'columnNumber', 'fileName']);
    expect(names.filter((name) => !PROTO_OBJECT_NAMES.has(name) && !primitiveAccessors.has(name))).toEqual([]);
  });
});

/** Scripts that use what the instrumented script rewrites: sites, functions handed to built-ins, methods read. */
const SCRIPTS = [
  `return [3, 1, 2].sort((a, b) => a - b).map((x) => x * 2).filter(Boolean).map(String).join(',');`,
  `const o = { values: [1, 2], link: 'L', items: { next: 3 } }; return [o.values.length, o.link, o.items.next, o['values'][1]].join();`,
  `const r = await callTool('echo', { x: 1 }); const v = await tools.echo({ y: 2 }); const w = await tools['echo']({ z: 3 }); return [r.text, JSON.stringify(v), JSON.stringify(w)].join('|');`,
  `const found = await searchTools('echo'); const described = await describeTools(['echo']); return [found.length > 0, described.length].join();`,
  `const [a, b] = await Promise.all([callTool('echo', { a: 1 }), callTool('echo', { b: 2 })]); return a.text + b.text;`,
  `return (await callTool('echo', {})).text.length;`,
  `const got = await callTool('echo', { q: 1 }).then((r) => r.text); return got;`,
  `const all = await Promise.all([1, 2].map(async (x) => (await callTool('echo', { x })).text)); return all.join();`,
  `let s = 0; outer: for (const i of [1, 2, 3]) { for (const j of [1, 2]) { if (j === 2) continue outer; s += i * j; } } switch (s) { case 6: s += 1; break; default: s = -1; } return s;`,
  `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); } const sq = (x) => x * x; return [fib(10), sq(4), [1, 2].reduce((a, b) => a + b, 0)].join();`,
  `try { JSON.parse('{'); } catch (e) { return e.name; }`,
  `const m = new Map([['a', 1]]); const out = []; m.forEach((v, k) => out.push(k + v)); return out.join() + [...m.keys()].join();`,
  `const { a, b: { c = 5 } = {}, ...rest } = { a: 1, d: 2 }; const [x, , y = 3] = [1, 2]; return [a, c, rest.d, x, y].join();`,
  `const text = 'a-b-c'; return text.split('-').map((p) => p.toUpperCase()).join('') + text.replace(/-/g, '') + (text.match(/b/) || [])[0];`,
  `const t = [1, 2, 3]; return [t?.length, t.at(-1), typeof [].map, typeof 'x'.link, Object.keys({ a: 1 }).join()].join();`,
];

describe('an instrumented script does what it did', () => {
  it('parses as the function it runs as, each site named once', () => {
    for (const code of SCRIPTS) {
      const instrumented = instrumentScript(code);
      expect(instrumented, code).toBeDefined();
      expect(() => parse(`(async (__tw) => {\n${instrumented!.code}\n})`, { ecmaVersion: 'latest' })).not.toThrow();
      expect(instrumented!.kinds.length).toBe((code.match(/callTool\(|tools[.[]|searchTools\(|describeTools\(/g) ?? []).length);
    }
  });

  it('answers what the script answers uninstrumented (a method read as a value reads as undefined)', async () => {
    const echo = tool('echo', (args) => args, { hasSideEffects: false, trustedOutput: true });
    const gate = registry(echo).gate({ flows: {} });
    const followed = createScriptTool(gate);
    const plain = createScriptTool(gate, { preciseLabels: false });
    for (const code of SCRIPTS) {
      const a = await followed.execute({ code }, { sessionId: 'same-a' });
      const b = await plain.execute({ code }, { sessionId: 'same-b' });
      const expected = code.includes("typeof [].map") ? { ...b, output: String(b.output).replace('function,function', 'undefined,undefined') } : b;
      expect({ success: a.success, output: a.output, error: a.error }, code).toEqual({ success: expected.success, output: expected.output, error: expected.error });
    }
  });

  it("reports an error's line and column in the script as written", async () => {
    const gate = registry(tool('echo', () => 'ok', { hasSideEffects: false, trustedOutput: true })).gate({ flows: {} });
    const code = `const a = 1;\nconst r = await callTool('echo', {}); const x = [1].map((v) => v); null.foo;\nreturn a;`;
    const followed = await createScriptTool(gate).execute({ code }, { sessionId: 'pos-a' });
    const plain = await createScriptTool(gate, { preciseLabels: false }).execute({ code }, { sessionId: 'pos-b' });
    expect(followed.details?.line).toBe(2);
    expect(followed.details?.column).toBe(plain.details?.column);
    expect(followed.error).toBe(plain.error);
  });
});
