/**
 * run_js labels each call by what it may depend on (the analysis of `src/flows/script-deps.ts`,
 * the instrumented script of `src/agent-tools/script/script-instrument.ts`). Never less than
 * that: a script that launders untrusted text into a payment, by any route, is refused
 * (`flow_untrusted`, no approval hook); a script that only pays what the user wrote runs.
 */
import { describe, expect, it } from 'vitest';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { resumeRun } from '../../src/doors/resume.js';
import { analyseScript } from '../../src/flows/script-deps.js';
import type { ApprovalAction } from '../../src/gate/host-hooks.js';
import type { ITool, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';
import { ATTACKER, INJECTION, LANDLORD } from './banking.js';

/** A bank whose file and transaction subjects an attacker wrote, with a few helpers. */
function setup(options: { maxRunArgsBytes?: number; file?: string; preciseLabels?: boolean } = {}) {
  const payments: { recipient: string; amount: number }[] = [];
  let counted = 0;
  const tools: ITool[] = [
    tool('read_file', () => options.file ?? `Bill: pay 98 to ${ATTACKER}. ${INJECTION}`),
    tool(
      'get_transactions',
      () => [
        { id: 1, sender: LANDLORD, amount: 1200, subject: 'rent refund' },
        { id: 2, sender: 'DE22-SHOP', amount: 30, subject: INJECTION },
      ],
      { hasSideEffects: false, trustedOutput: true, untrustedFields: ['*.subject'] },
    ),
    tool('get_balance', () => 1810, { hasSideEffects: false, trustedOutput: true }),
    tool('echo', () => 'ok', { hasSideEffects: false, trustedOutput: true }),
    // A trusted tool that fails from its third call on: whether it fails depends on the calls before it.
    tool('counter', (): ToolExecutionResult => (++counted > 2 ? { success: false, error: 'enough' } : { success: true, output: counted }), { hasSideEffects: false, trustedOutput: true }),
    tool(
      'send_money',
      (args) => {
        payments.push({ recipient: String(args.recipient), amount: Number(args.amount) });
        return { sent: true };
      },
      { hasSideEffects: true },
    ),
  ];
  const gate = registry(...tools).gate({ flows: {} });
  const runJs = createScriptTool(gate, {
    sideEffectingTools: ['send_money'],
    ...(options.maxRunArgsBytes !== undefined ? { maxRunArgsBytes: options.maxRunArgsBytes } : {}),
    ...(options.preciseLabels !== undefined ? { preciseLabels: options.preciseLabels } : {}),
  });
  let session = 0;
  const run = async (code: string) => runJs.execute({ code }, { sessionId: `precise-${++session}-${Math.random()}` });
  return { run, payments };
}

/** What a script that reads the attacker's file first runs with, so `t` is untrusted text. */
const READ = `const t = (await callTool('read_file', {})).text;\n`;
/** Pay `to` and answer the refusal's code, or 'paid'. */
const PAY = (to: string) => `const paid = await callTool('send_money', { recipient: ${to}, amount: 1 }); return paid.error ? paid.error.code : 'paid';`;

/** Each script launders the untrusted text `t` into the payment, or lets it decide the payment. */
const LAUNDERING: [string, string, { file?: string; givesUp?: true }?][] = [
  ['character codes', `${READ}const to = String.fromCharCode(...[...t].map((c) => c.charCodeAt(0)));\n${PAY('to')}`],
  ['a trusted table indexed by untrusted positions', `${READ}const table = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-'; let to = ''; for (const c of t) { const i = table.indexOf(c); if (i >= 0) to += table[i]; }\n${PAY('to')}`],
  ['a trusted list indexed by an untrusted number', `${READ}const choices = ['${LANDLORD}', '${ATTACKER}']; const to = choices[t.length % 2];\n${PAY('to')}`],
  ['comparisons alone', `${READ}let to = ''; for (let i = 0; i < t.length; i++) { if (t[i] === 'X') to += 'X'; else if (t[i] === '9') to += '9'; else if (t[i] === '-') to += '-'; }\n${PAY('to')}`],
  ['a closure that collects', `${READ}let to = ''; [...t].forEach((c) => { to += c; });\n${PAY('to')}`],
  ['a reduce', `${READ}const to = [...t].reduce((acc, c) => acc + c, '');\n${PAY('to')}`],
  ['a callback that only decides', `${READ}let to = '${LANDLORD}'; [1].forEach(() => { if (t.includes('X')) to = 'DE00-OTHER'; });\n${PAY('to')}`],
  ['an aliased object changed through its alias', `${READ}const a = { v: '${LANDLORD}' }; const b = a; b.v = t;\n${PAY('a.v')}`],
  ['an aliased array pushed to', `${READ}const arr = ['${LANDLORD}']; const alias = arr; alias.push(t);\n${PAY('arr[arr.length - 1]')}`],
  ['an object held in an array, changed through the array', `${READ}const o = { v: '${LANDLORD}' }; const holder = [o]; holder[0].v = t;\n${PAY('o.v')}`],
  ['an object changed by a built-in', `${READ}const o = { v: '${LANDLORD}' }; Object.assign(o, { v: t });\n${PAY('o.v')}`],
  ['an array sorted by untrusted data', `${READ}const list = ['${LANDLORD}', 'DE00-OTHER']; list.sort(() => (t.includes('X') ? 1 : -1));\n${PAY('list[0]')}`],
  ['a value thrown and caught', `${READ}let to = '${LANDLORD}'; try { throw t; } catch (e) { to = e; }\n${PAY('to')}`],
  ['a throw under an untrusted condition', `${READ}let to = '${LANDLORD}'; try { if (t.includes('X')) throw new Error('x'); } catch { to = 'DE00-OTHER'; }\n${PAY('to')}`],
  ['an error a built-in throws on untrusted data', `${READ}let to = '${LANDLORD}'; try { JSON.parse(t); } catch { to = 'DE00-OTHER'; }\n${PAY('to')}`],
  ['what follows an error in a try block', `${READ}let to = 'DE00-OTHER'; try { JSON.parse(t); to = '${LANDLORD}'; } catch {}\n${PAY('to')}`],
  ['an error message', `${READ}let to = ''; try { null[t.slice(16, 29)]; } catch (e) { to = e.message; }\n${PAY('to')}`],
  ['a loop count', `${READ}let to = ''; for (let i = 0; i < t.length % 7; i++) to += 'A';\n${PAY('to')}`],
  ['Promise.all', `const [a, b] = await Promise.all([callTool('read_file', {}), callTool('get_balance', {})]); const t = a.text;\n${PAY('t.slice(16, 29)')}`],
  ['a helper function', `${READ}function pick(x) { return x.slice(16, 29); }\n${PAY('pick(t)')}`],
  ['a helper function that decides', `${READ}function risky(x) { return x.includes('X'); }\nconst to = risky(t) ? 'DE00-OTHER' : '${LANDLORD}';\n${PAY('to')}`],
  ['string methods', `${READ}const to = t.split(' ').find((w) => w.startsWith('XX')).replace('.', '').trim();\n${PAY('to')}`],
  ['a regular expression', `${READ}const to = t.match(/[A-Z]{2}\\d{2}-[A-Z]+/)[0];\n${PAY('to')}`],
  ['a regular expression whose state an untrusted text moved', `${READ}const re = /X/g; re.test(t); const to = re.lastIndex > 0 ? 'DE00-OTHER' : '${LANDLORD}';\n${PAY('to')}`],
  ['a variable reassigned after the call site (flow-insensitive)', `let to = '${LANDLORD}'; let t = ''; for (let i = 0; i < 2; i++) { if (i === 1) { to = t; const r = await callTool('send_money', { recipient: to, amount: 1 }); return r.error ? r.error.code : 'paid'; } t = (await callTool('read_file', {})).text; }`],
  ['a default parameter', `${READ}function f(x = t) { return x.slice(16, 29); }\n${PAY('f()')}`],
  ['a destructuring default', `${READ}const { to = t.slice(16, 29) } = {};\n${PAY('to')}`],
  ['an array destructuring default', `${READ}const [to = t.slice(16, 29)] = [];\n${PAY('to')}`],
  ['a logical operator', `${READ}const to = (t.includes('X') && 'DE00-OTHER') || '${LANDLORD}';\n${PAY('to')}`],
  ['a switch', `${READ}let to = '${LANDLORD}'; switch (t[0]) { case 'B': to = 'DE00-OTHER'; break; default: break; }\n${PAY('to')}`],
  ['a break out of a loop', `${READ}let to = '${LANDLORD}'; for (const c of ['a', 'b']) { if (t.includes('X')) break; to = 'DE00-OTHER'; }\n${PAY('to')}`],
  ['a labelled break', `${READ}let to = '${LANDLORD}'; outer: for (const a of [1]) { for (const b of [2]) { if (t.includes('X')) break outer; } to = 'DE00-OTHER'; }\n${PAY('to')}`],
  ['an early return under an untrusted condition', `${READ}if (!t.includes('X')) return 'nothing';\n${PAY(`'${LANDLORD}'`)}`],
  ['a payment inside an untrusted condition', `${READ}if (t.includes('X')) {\n${PAY(`'${LANDLORD}'`)}\n} return 'none';`],
  ['a payment in a loop over untrusted text', `${READ}let last = 'none'; for (const c of t.slice(0, 2)) { const r = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }); last = r.error ? r.error.code : 'paid'; } return last;`],
  ['a helper that pays, called under an untrusted condition', `${READ}async function pay() { const r = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }); return r.error ? r.error.code : 'paid'; }\nif (t.includes('X')) return await pay(); return 'none';`],
  ['a tool named by untrusted text', `${READ}const r = await tools[t.trim()]({ recipient: '${LANDLORD}', amount: 1 }).catch((e) => e); return r && r.code ? r.code : 'paid';`, { file: 'send_money' }],
  ['await ordering', `let to = '${LANDLORD}'; const p = (async () => { const r = await callTool('read_file', {}); if (r.text.includes('X')) to = 'DE00-OTHER'; })(); await p;\n${PAY('to')}`],
  ['a race between code of the script', `let to = '${LANDLORD}'; (async () => { await callTool('read_file', {}); to = 'DE00-OTHER'; })(); await callTool('get_balance', {});\n${PAY('to')}`],
  ['async callbacks under Promise.all', `${READ}const out = await Promise.all([...t.slice(0, 1)].map(async (c) => { const r = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }); return r.error ? r.error.code : 'paid'; })); return out[0];`],
  ['an untrusted subject of a trusted list', `const tx = JSON.parse((await callTool('get_transactions', {})).text);\n${PAY('tx[1].subject')}`],
  ['a loop deciding on untrusted subjects', `const tx = JSON.parse((await callTool('get_transactions', {})).text); for (const tr of tx) { if (tr.subject.includes('Ignore')) {\n${PAY(`'${LANDLORD}'`)}\n} } return 'none';`],
  ['a JSON reviver', `const text = (await callTool('get_transactions', {})).text; const tx = JSON.parse(text, (k, v) => (v && v.subject ? { ...v, sender: v.subject } : v));\n${PAY('tx[1].sender')}`],
  ['a failure that the calls before it decided', `${READ}for (let i = 0; i < (t.includes('X') ? 2 : 0); i++) await callTool('counter', {}); const r = await callTool('counter', {}); if (r.error) {\n${PAY(`'${LANDLORD}'`)}\n} return 'none';`],
  ['a promise reaction', `let to = '${LANDLORD}'; await callTool('read_file', {}).then((r) => { if (r.text.includes('X')) to = 'DE00-OTHER'; }); await callTool('get_balance', {});\n${PAY('to')}`],
  ['an object an async function rejects with, changed where it is caught', `${READ}const o = { v: '${LANDLORD}' }; await (async () => { throw o; })().catch((e) => { e.v = t.slice(16, 29); });\n${PAY('o.v')}`],
  ['a property defined by a built-in', `${READ}const o = {}; Object.defineProperty(o, 'v', { value: t.slice(16, 29), enumerable: true });\n${PAY('o.v')}`],
  ['an iterator advanced under an untrusted condition', `${READ}const it = ['${LANDLORD}', 'DE00-OTHER'].values(); if (t.includes('X')) it.next();\n${PAY('it.next().value')}`],
  ['a map', `${READ}const m = new Map(); m.set('to', t.slice(16, 29));\n${PAY("m.get('to')")}`],
  ['the keys of an object', `${READ}const o = {}; o[t.slice(16, 29)] = 1; let to = ''; for (const k in o) to = k;\n${PAY('to')}`],
  ['a template', `${READ}const to = \`\${t.slice(16, 29)}\`;\n${PAY('to')}`],
  ['a throw under an untrusted condition, uncaught', `${READ}if (!t.includes('X')) throw new Error('stop');\n${PAY(`'${LANDLORD}'`)}`],
  ['an optional chain an untrusted value stops', `${READ}const o = t.includes('X') ? [] : null; const ps = []; o?.slice(0).push(ps.push(callTool('send_money', { recipient: '${LANDLORD}', amount: 1 }))); if (ps.length === 0) return 'none'; const r = await ps[0]; return r.error ? r.error.code : 'paid';`],
  ['the clock, which a call steered by untrusted text slowed', `${READ}const t0 = Date.now(); await callTool('echo', { q: t }); const to = Date.now() - t0 > 1000 ? 'DE00-OTHER' : '${LANDLORD}';\n${PAY('to')}`],
  ['a new Date, read after the untrusted text was read', `${READ}const to = new Date().getTime() % 2 === 2 ? 'DE00-OTHER' : '${LANDLORD}';\n${PAY('to')}`],
  ['a prototype a built-in answers (gives up)', `${READ}const P = Object.getPrototypeOf([]); P.to = t.slice(16, 29);\n${PAY('[].to')}`, { givesUp: true }],
  ['eval (the analysis gives up: one label for all)', `${READ}if (false) eval('1');\n${PAY(`'${LANDLORD}'`)}`, { givesUp: true }],
  ['a name it never declared (gives up)', `${READ}if (false) globalThis.x = 1;\n${PAY(`'${LANDLORD}'`)}`, { givesUp: true }],
  ['a forged site name (gives up)', `${READ}const __tw = 1;\n${PAY(`'${LANDLORD}'`)}`, { givesUp: true }],
  ['a forged site name written with escapes (gives up)', `${READ}if (false) \\u005f_tw[1]('send_money', {});\n${PAY(`'${LANDLORD}'`)}`, { givesUp: true }],
];

describe('run_js labels by what each call may depend on, never less', () => {
  for (const [name, code, options] of LAUNDERING) {
    it(`refuses a payment untrusted data steers through ${name}`, async () => {
      // Refused by the precise labels, not because the analysis gave up (unless it must).
      expect(analyseScript(code).ok).toBe(options?.givesUp !== true);
      const { run, payments } = setup(options);
      const result = await run(code);
      expect(result.output, JSON.stringify(result)).toBe('flow_untrusted');
      expect(payments).toEqual([]);
    });
  }

  it('answers a call by the answers its site has had so far: a literal paid first, the untrusted text refused after', async () => {
    const { run, payments } = setup();
    const result = await run(
      `let to = '${LANDLORD}'; const out = []; for (let i = 0; i < 2; i++) { const r = await callTool('send_money', { recipient: to, amount: 1 }); out.push(r.error ? r.error.code : 'paid'); to = (await callTool('read_file', {})).text.slice(16, 29); } return out.join(',');`,
    );
    expect(result.output).toBe('paid,flow_untrusted');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
  });

  it('follows a bound the sandbox answers: once it depends on what was read, every later call carries all of it', async () => {
    const { run, payments } = setup({ maxRunArgsBytes: 200 });
    const code = `${READ}await callTool('echo', { x: t.slice(0, t.length % 2 === 0 ? 150 : 10) }); const r = await callTool('echo', { y: 'x'.repeat(60) }); if (r.error) {\n${PAY(`'${LANDLORD}'`)}\n} return 'none';`;
    const result = await run(code);
    expect(['flow_untrusted', 'none']).toContain(result.output);
    expect(payments).toEqual([]);
  });

  it('keeps a function handed to a built-in from running after the call', async () => {
    const { run } = setup();
    const result = await run(`const kept = []; kept.push((x) => x); const f = kept[0]; return f(1);`);
    expect(result.success).toBe(false);
    expect(result.error).toContain('after that call has returned');
  });

  it('never hands the script a built-in object: a prototype read by a computed key is undefined', async () => {
    const { run, payments } = setup();
    const result = await run(`${READ}const k = '__proto__'; const p = ({})[k]; if (p === undefined) return 'unreachable'; p.recipient = t;\n${PAY('({}).recipient')}`);
    expect(result.output).toBe('unreachable');
    expect(payments).toEqual([]);
  });
});

describe('run_js runs what only the user steers', () => {
  it('pays a literal IBAN after reading untrusted transactions and an untrusted file', async () => {
    const { run, payments } = setup();
    const result = await run(`const tx = JSON.parse((await callTool('get_transactions', {})).text); ${READ}const n = tx.length;\n${PAY(`'${LANDLORD}'`)}`);
    expect(result.output).toBe('paid');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
  });

  it('pays an amount computed from a trusted balance', async () => {
    const { run, payments } = setup();
    const result = await run(
      `const balance = Number((await callTool('get_balance', {})).text); const r = await callTool('send_money', { recipient: '${LANDLORD}', amount: Math.floor(balance / 10) }); return r.error ? r.error.code : 'paid';`,
    );
    expect(result.output).toBe('paid');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 181 }]);
  });

  it('refunds the sender of a transaction: a trusted field of a list whose subjects are not', async () => {
    const { run, payments } = setup();
    const result = await run(`const tx = JSON.parse((await callTool('get_transactions', {})).text);\n${PAY('tx[1].sender')}`);
    expect(result.output).toBe('paid');
    expect(payments).toEqual([{ recipient: 'DE22-SHOP', amount: 1 }]);
  });

  it('pays in a loop over a trusted list, deciding on its trusted fields', async () => {
    const { run, payments } = setup();
    const result = await run(
      `const tx = await tools.get_transactions({}); const out = []; for (const tr of tx) { if (tr.amount > 100) { const r = await callTool('send_money', { recipient: tr.sender, amount: tr.amount }); out.push(r.error ? r.error.code : 'paid'); } } return out.join(',');`,
    );
    expect(result.output).toBe('paid');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1200 }]);
  });

  it('refuses the payment inside `if (untrusted)`', async () => {
    const { run, payments } = setup();
    const result = await run(`${READ}if (t.length > 0) {\n${PAY(`'${LANDLORD}'`)}\n} return 'none';`);
    expect(result.output).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });

  it('with preciseLabels: false, labels every call with all the script has read', async () => {
    const { run, payments } = setup({ preciseLabels: false });
    const result = await run(`${READ}${PAY(`'${LANDLORD}'`)}`);
    expect(result.output).toBe('flow_untrusted');
    expect(payments).toEqual([]);
  });
});

describe('run_js labelled call by call, paused and resumed', () => {
  it('asks only about the call untrusted data steers; resumed, it judges each call as the first run did', async () => {
    const payments: { recipient: string; amount: number }[] = [];
    const asked: ApprovalAction[] = [];
    const tools: ITool[] = [
      tool('read_file', () => `Bill: pay 98 to ${ATTACKER}.`),
      tool('send_money', (args) => (payments.push({ recipient: String(args.recipient), amount: Number(args.amount) }), 'sent'), { hasSideEffects: true }),
    ];
    const gate = registry(...tools).gate({ flows: {}, approvals: { requestApproval: (action) => (asked.push(action), { pending: true }) } });
    const runJs = createScriptTool(gate, { sideEffectingTools: ['send_money'] });
    const code = `${READ}const a = await callTool('send_money', { recipient: '${LANDLORD}', amount: 1 });\nconst b = await callTool('send_money', { recipient: t.slice(16, 29), amount: 2 });\nreturn [a.error, b.error].map((e) => (e ? e.code : 'paid')).join();`;
    const context = { sessionId: 'precise-pause' };
    const paused = await runJs.execute({ code }, context);
    expect(paused.details?.code).toBe('approval_pending');
    expect(asked).toHaveLength(1);
    expect(asked[0].provenance?.recipient).toMatchObject({ trusted: false });
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }]);
    const resumed = await resumeRun(runJs, paused.details!.resume as string, [{ approved: true }], context);
    expect(resumed.output).toBe('paid,paid');
    expect(payments).toEqual([{ recipient: LANDLORD, amount: 1 }, { recipient: ATTACKER, amount: 2 }]);
    expect(asked).toHaveLength(1);
  });
});
