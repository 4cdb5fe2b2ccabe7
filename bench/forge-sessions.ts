/**
 * Recorded sessions made of recurring task shapes with varied arguments, and noise calls between
 * them (some of which read a value a task produced, and feed nothing): the workload of `bench/forge.ts` and of the mining test. Each shape uses tools of its own,
 * so a forged composite is told apart by its tools. Deterministic for a seed.
 */
import type { CallRecord, RecordedSession } from '../src/index.js';

/** A task shape: its tools in order, and the calls of one occurrence. */
interface Shape {
  /** Its tools, in order, as a forged composite's steps name them. */
  tools: string[];
  /** The calls of one occurrence, with `n` making its values unique. */
  calls(n: number, random: () => number): { tool: string; args: Record<string, unknown>; output: unknown; hasSideEffects?: boolean }[];
}

const SHAPES: Shape[] = [
  // Back a file up: the write copies the read's whole text.
  {
    tools: ['read_file', 'write_file'],
    calls: (n) => [
      { tool: 'read_file', args: { path: `/repo/src/module${n}.ts` }, output: `export const value${n} = ${n};\n` },
      { tool: 'write_file', args: { path: `/backup/module${n}.ts`, content: `export const value${n} = ${n};\n` }, output: `wrote /backup/module${n}.ts`, hasSideEffects: true },
    ],
  },
  // Search, open the first hit (a field of a list item), summarize its text.
  {
    tools: ['search_docs', 'fetch_doc', 'summarize'],
    calls: (n) => [
      { tool: 'search_docs', args: { query: `topic ${n}`, limit: 5 }, output: { results: [{ id: `doc-${n}-a`, title: `About topic ${n}` }, { id: `doc-${n}-b`, title: `More on ${n}` }] } },
      { tool: 'fetch_doc', args: { id: `doc-${n}-a` }, output: { id: `doc-${n}-a`, body: `The body of document ${n}, at length.` } },
      { tool: 'summarize', args: { text: `The body of document ${n}, at length.`, words: 50 }, output: `Summary ${n}` },
    ],
  },
  // List a folder, then stat each entry: a for_each.
  {
    tools: ['list_dir', 'stat_path'],
    calls: (n, random) => {
      const entries = Array.from({ length: 2 + Math.floor(random() * 4) }, (_, i) => ({ path: `/data/set${n}/part${i}.csv` }));
      return [
        { tool: 'list_dir', args: { dir: `/data/set${n}` }, output: { entries } },
        ...entries.map((entry, i) => ({ tool: 'stat_path', args: { path: entry.path }, output: { size: 1000 + n * 10 + i, path: entry.path } })),
      ];
    },
  },
  // Look a user up, read their orders, mail them: the mail goes to the address given first.
  {
    tools: ['find_user', 'list_orders', 'send_mail'],
    calls: (n) => [
      { tool: 'find_user', args: { email: `user${n}@example.com` }, output: { user: { id: `u${1000 + n}`, name: `User ${n}` } } },
      { tool: 'list_orders', args: { user_id: `u${1000 + n}`, status: 'open' }, output: `order ${n}-1\norder ${n}-2` },
      { tool: 'send_mail', args: { to: `user${n}@example.com`, subject: 'Your open orders', body: `order ${n}-1\norder ${n}-2` }, output: `queued mail ${n}`, hasSideEffects: true },
    ],
  },
];

/** Shapes seen in fewer sessions than the threshold: they must not be forged. */
const RARE_SHAPES: Shape[] = [
  {
    tools: ['open_ticket', 'assign_ticket'],
    calls: (n) => [
      { tool: 'open_ticket', args: { title: `Broken build ${n}` }, output: { ticket: `T-${n}` } },
      { tool: 'assign_ticket', args: { ticket: `T-${n}`, to: 'oncall' }, output: 'assigned', hasSideEffects: true },
    ],
  },
  {
    tools: ['get_metric', 'plot_metric'],
    calls: (n) => [
      { tool: 'get_metric', args: { name: `latency_${n}` }, output: { series: `series-${n}` } },
      { tool: 'plot_metric', args: { series: `series-${n}` }, output: `plot ${n}` },
    ],
  },
];

/** The first string in an output: the output itself, or its first string field or item. */
function firstText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null) {
    for (const value of Object.values(output)) {
      const found = firstText(value);
      if (found) return found;
    }
  }
  return '';
}

/** What the workload holds: its sessions, and the tools of each shape that should be forged. */
export interface ForgeWorkload {
  sessions: RecordedSession[];
  /** The shapes seen in at least `minSessions` sessions, by their tools joined with `>`. */
  expected: Set<string>;
  /** The shapes seen in fewer, by their tools. */
  rare: Set<string>;
  /** Calls in all. */
  calls: number;
}

/**
 * About `totalCalls` calls in sessions of about `callsPerSession`: each session holds tasks of
 * random common shapes, with 1 to 3 noise calls between them; each rare shape is put in
 * `minSessions - 1` sessions (and one more occurrence in one of them).
 */
export function forgeWorkload(totalCalls: number, callsPerSession = 50, minSessions = 3, seed = 42): ForgeWorkload {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  let n = 0;
  const sessions: RecordedSession[] = [];
  const sessionCount = Math.max(minSessions, Math.round(totalCalls / callsPerSession));
  const rareIn = new Map<number, Shape[]>();
  RARE_SHAPES.forEach((shape, r) => {
    for (let i = 0; i < minSessions - 1; i++) {
      const at = (r * 7 + i * 3) % sessionCount;
      rareIn.set(at, [...(rareIn.get(at) ?? []), shape, ...(i === 0 ? [shape] : [])]);
    }
  });
  let calls = 0;
  for (let s = 0; s < sessionCount; s++) {
    const records: CallRecord[] = [];
    const add = (tool: string, args: Record<string, unknown>, output: unknown, hasSideEffects = false) =>
      records.push({ v: 1, seq: records.length, time: new Date(Date.UTC(2026, 11, 1, 0, 0, s, records.length)).toISOString(), scope: `session:${s}`, tool, step: tool, hasSideEffects, args, ok: true, output, ms: 1 });
    const noise = () => {
      for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
        const id = ++n;
        const pick = Math.floor(random() * 3);
        if (pick === 0) add('get_time', { zone: `zone-${id}` }, `noise-time-${id}`);
        else if (pick === 1) add('read_file', { path: `/noise/file-${id}.txt` }, `noise text ${id}`);
        else add('list_dir', { dir: `/noise/dir-${id}` }, { entries: [] });
      }
    };
    const tasks = [...(rareIn.get(s) ?? [])];
    while (records.length < callsPerSession) {
      noise();
      const shape = tasks.shift() ?? SHAPES[Math.floor(random() * SHAPES.length)];
      const made = shape.calls(++n, random);
      for (const c of made) add(c.tool, c.args, c.output, c.hasSideEffects);
      // In fewer sessions than the threshold, a call after each task reads a value it produced and
      // feeds nothing: noise linked to the chain, which must neither hide it nor be forged with it.
      if (s < minSessions - 1) add('count_words', { text: firstText(made[0].output) }, `${++n} words`);
    }
    noise();
    calls += records.length;
    sessions.push({ file: `session-${String(s).padStart(5, '0')}.jsonl`, calls: records });
  }
  return { sessions, expected: new Set(SHAPES.map((shape) => shape.tools.join('>'))), rare: new Set(RARE_SHAPES.map((shape) => shape.tools.join('>'))), calls };
}
