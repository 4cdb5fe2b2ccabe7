import { ComposableToolBuilder, createStepGate, type ITool } from '/work/main/dist/index.js';
const tools: ITool[] = Array.from({ length: 20 }, (_, i) => ({ id: `inc${i}`, name: `inc${i}`, displayName: '', description: '', inputSchema: { type: 'object' }, hasSideEffects: false,
  execute: async (args: any) => ({ success: true, output: { n: args.n + 1 } }) }));
const registry = new Map(tools.map((t) => [t.name, t]));
const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n) }));
const c = builder.build('chain', 'x', { type: 'object', properties: { n: { type: 'number' } } }, { steps: tools.map((t, i) => ({ tool: t.name, inputMapping: { n: i === 0 ? '$input.n' : '$prev.n' } })) });
const ctx = () => ({ sessionId: 's-1', requestId: 'r-42', tenant: 'acme', user: { id: 7, name: 'Ann', roles: ['dev'] }, locale: 'en' });
async function hand() { let v: any = { n: 0 }; const cx = ctx(); for (const t of tools) { const r = await t.execute({ n: v.n }, cx); if (!r.success) throw 1; v = r.output; } return v; }
const N = Number(process.env.N ?? 200000);
const mode = process.env.MODE ?? 'c';
let t0 = performance.now();
for (let i = 0; i < N; i++) { if (mode === 'c') { const r = await c.execute({ n: 0 }, ctx()); if (!r.success) throw new Error(r.error); } else await hand(); }
console.log(mode, ((performance.now() - t0) / N * 1000).toFixed(2), 'us/run');
