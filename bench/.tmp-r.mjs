import { ComposableToolBuilder, createStepGate } from '/work/main/dist/index.js';
const STEPS = +process.env.STEPS || 20; const VERSION = process.env.V === '1';
const tools = Array.from({ length: STEPS }, (_, i) => ({ id: `inc${i}`, name: `inc${i}`, displayName: '', description: '', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => ({ success: true, output: { n: args.n + 1 } }) }));
const registry = new Map(tools.map((t) => [t.name, t]));
const gate = createStepGate({ resolve: (n) => registry.get(n), ...(VERSION ? { version: () => 1, budget: { calls: 10000 } } : {}) });
const inputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const tool = new ComposableToolBuilder(gate).build('c', 'c', inputSchema, { steps: tools.map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })) });
const context = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });
async function hand() { let value = { n: 0 }; const ctx = context(); for (let i = 0; i < STEPS; i++) { const r = await tools[i].execute({ n: value.n }, ctx); if (!r.success) throw new Error(r.error); value = r.output; } return value; }
async function eng() { const r = await tool.execute({ n: 0 }, context()); if (!r.success) throw new Error(r.error); return r.output; }
const iterations = Math.max(6, Math.round(10000 / STEPS));
async function time(fn) { const s = performance.now(); for (let i = 0; i < iterations; i++) await fn(); return (performance.now() - s) / iterations; }
for (let i = 0; i < 5; i++) { await time(hand); await time(eng); }
const a = [], b = [];
for (let r = 0; r < 21; r++) { a.push(await time(hand)); b.push(await time(eng)); }
const med = (x) => x.sort((p, q) => p - q)[10];
console.log(STEPS, VERSION ? 'ver' : 'plain', 'hand', (med(a) * 1e3).toFixed(2), 'us', 'engine', (med(b) * 1e3).toFixed(2), 'us', 'ratio', (med(b) / med(a)).toFixed(2), 'per-step', ((med(b) - med(a)) * 1e6 / STEPS).toFixed(0), 'ns');
process.exit(0);
