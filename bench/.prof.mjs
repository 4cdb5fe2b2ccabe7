import { ComposableToolBuilder, createStepGate } from '../dist/index.js';
const STEPS = Number(process.env.STEPS ?? 20);
const tools = Array.from({ length: STEPS }, (_, i) => ({ id: `inc${i}`, name: `inc${i}`, displayName: '', description: '', inputSchema: { type: 'object' }, hasSideEffects: false,
  execute: async (args) => ({ success: true, output: { n: args.n + 1 } }) }));
const registry = new Map(tools.map((t) => [t.name, t]));
const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n), ...(process.env.VERSION ? { version: () => 1 } : {}) }));
const c = builder.build('chain', 'x', { type: 'object', properties: { n: { type: 'number' } } }, { steps: tools.map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })) });
const ctx = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });
async function hand() { let v = { n: 0 }; const cx = ctx(); for (const t of tools) { const r = await t.execute({ n: v.n }, cx); if (!r.success) throw 1; v = r.output; } return v; }
const N = Number(process.env.N ?? 20000);
const mode = process.env.MODE ?? 'c';
for (let i = 0; i < N; i++) { if (mode === 'c') { const r = await c.execute({ n: 0 }, ctx()); if (!r.success) throw new Error(r.error); } else if (mode === 'h') await hand(); }
