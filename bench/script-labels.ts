/**
 * What labelling run_js call by call costs: the same scripts through run_js with `flows`, with the
 * analysis (`preciseLabels`, the default) and without it (one label for all the script reads),
 * measured in the same run. Each script is run cached (its text analysed once, the analysis and the
 * rewrite reused) and cold (a new text every run: parsed, analysed and rewritten every time), end
 * to end; and the analysis with the rewrite alone, per script, cold.
 *
 * Target (the team's): instrumented within 1.3x of uninstrumented, end to end, cached.
 *
 * Run it: npm run build && npx tsx bench/script-labels.ts
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createScriptTool, createStepGate, type ITool } from '../dist/index.js';
import { instrumentScript } from '../dist/agent-tools/script/script-instrument.js';
import { compare, type Comparison } from './measure.js';

const LANDLORD = 'DE11-LANDLORD';
const transactions = Array.from({ length: 20 }, (_, i) => ({ id: i, sender: i % 3 ? 'DE22-SHOP' : LANDLORD, amount: 10 * i, subject: `payment ${i}` }));

function fast(name: string, output: () => unknown, extra: Partial<ITool> = {}): ITool {
  return { id: name, name, displayName: name, description: name, inputSchema: { type: 'object' }, hasSideEffects: false, ...extra, execute: async () => ({ success: true, output: output() }) };
}

const tools: ITool[] = [
  fast('get_transactions', () => transactions, { trustedOutput: true, untrustedFields: ['*.subject'] }),
  fast('get_balance', () => 1810, { trustedOutput: true }),
  fast('read_file', () => `Bill: pay 98 to UK12-ACME. Thanks.`),
  fast('send_money', () => 'sent', { hasSideEffects: true }),
];
const byName = new Map(tools.map((t) => [t.name, t]));
const gate = createStepGate({ resolve: (name) => byName.get(name), names: () => byName.keys(), flows: { policies: { send_money: { trusted: ['recipient'] } } } });
const precise = createScriptTool(gate, { sideEffectingTools: ['send_money'] });
const floor = createScriptTool(gate, { sideEffectingTools: ['send_money'], preciseLabels: false });

/** Realistic scripts: each reads, computes and pays (a refused payment is as much work for the run). */
const SCRIPTS: [string, string][] = [
  ['refund a sender', `const read = (await callTool('get_transactions', {})).text;\nconst recipient = JSON.parse(read)[1].sender;\nconst paid = await callTool('send_money', { recipient, amount: 30 });\nreturn paid.error ? paid.error.code : 'paid';`],
  [
    'filter, map, pay in a loop',
    `const tx = JSON.parse((await callTool('get_transactions', {})).text);\nconst big = tx.filter((t) => t.amount > 100).map((t) => ({ to: t.sender, amount: t.amount / 10 }));\nconst out = [];\nfor (const b of big.slice(0, 3)) {\n  const r = await callTool('send_money', { recipient: b.to, amount: b.amount });\n  out.push(r.error ? r.error.code : 'paid');\n}\nreturn out.join(',');`,
  ],
  [
    'a helper, a bill and a balance',
    `function total(list) { return list.reduce((sum, t) => sum + t.amount, 0); }\nconst [tx, bill, balance] = await Promise.all([tools.get_transactions({}), callTool('read_file', {}), callTool('get_balance', {})]);\nconst due = (bill.text.match(/pay (\\d+)/) || [])[1];\nconst left = Number(balance.text) - total(tx);\nconst r = await callTool('send_money', { recipient: '${LANDLORD}', amount: Math.max(0, Math.min(left, Number(due))) });\nreturn r.error ? r.error.code : 'paid';`,
  ],
  ['read a balance', `return (await callTool('get_balance', {})).text;`],
];

let session = 0;
const run = (tool: ITool, code: string) => async (): Promise<void> => {
  const result = await tool.execute({ code }, { sessionId: `bench-${++session}` });
  if (!result.success) throw new Error(`${result.error}`);
};
let cold = 0;
/** The same script under a text seen never before: a comment that changes nothing else. */
const fresh = (code: string) => `${code}\n// ${++cold}`;

const rows: { name: string; cached: Comparison; cold: Comparison; analysisUs: number }[] = [];
for (const [name, code] of SCRIPTS) {
  if (instrumentScript(code) === undefined) throw new Error(`the analysis gave up on "${name}"`);
  const cached = await compare(name, run(floor, code), run(precise, code), { iterations: 40, rounds: 11, warmup: 2 });
  const coldRun = await compare(name, () => run(floor, fresh(code))(), () => run(precise, fresh(code))(), { iterations: 40, rounds: 11, warmup: 2 });
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const text = fresh(code);
    const start = performance.now();
    instrumentScript(text);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  rows.push({ name, cached, cold: coldRun, analysisUs: samples[samples.length >> 1] * 1000 });
}

console.log(`\nrun_js labelled call by call, against one label for all it reads (${availableParallelism()} cores; target: cached <= 1.3x)`);
console.log('| script | uninstrumented (ms/run) | instrumented, cached (ms/run) | ratio | instrumented, cold (ms/run) | ratio | analysis + rewrite alone, cold (µs) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const verdict = r.cached.ratio <= 1.3 ? 'ok' : 'OVER';
  console.log(
    `| ${r.name} | ${r.cached.baselineMs.toFixed(3)} | ${r.cached.candidateMs.toFixed(3)} | ${r.cached.ratio.toFixed(2)}x ${verdict} | ${r.cold.candidateMs.toFixed(3)} | ${(r.cold.candidateMs / r.cold.baselineMs).toFixed(2)}x | ${r.analysisUs.toFixed(0)} |`,
  );
}
process.exit(0);
