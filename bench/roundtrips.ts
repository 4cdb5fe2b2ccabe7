/**
 * Round trips and re-sent context for two typical workloads, direct calls against one call to a
 * host-built composite (ComposableToolBuilder, offered beside the base tools):
 *
 * (a) the 4-step investigation: list_dir -> grep_files -> read_file -> calculator;
 * (b) the edit-and-test task of 15 direct calls: 3 lists, a test run, 4 reads, 5 edits, a test
 *     run, a write; as a composite: gather(lists, test run, reads), then try_and_check(edits,
 *     test run), then write.
 *
 * Every turn sends the whole conversation (system text, every tool definition, every message);
 * tokens are counted with o200k_base. The tools really run on a temporary copy of the fixture;
 * the edit task really edits it, and its tests really pass at the end (checked).
 *
 * Run: npm run build && npx tsx bench/roundtrips.ts
 */
import type { ITool } from '../dist/index.js';
import { Conversation, percent, printTable, reductionPercent, totalBytes, totalTokens, withFixtureCopy, type Tally } from './conversation/index.js';
import { editAndTest, FILES, FOLDERS, NOTE_PATH, renameSummary, verifyRename } from './tasks/case-4-edit-and-test.js';
import { connectionsAnswer, HANDLER_PATTERN, investigation } from './tasks/case-5-investigation.js';
import type { ScriptedModel } from './tasks/case.js';
import { buildComposites } from './tasks/composites.js';
import { BASE_SYSTEM } from './tasks/ways.js';

type Way = 'direct' | 'composite';

interface Workload {
  name: string;
  task: string;
  ways: Record<Way, ScriptedModel>;
  verify?(root: string): Promise<string | undefined>;
}

const WORKLOADS: Workload[] = [
  {
    name: '(a) 4-step investigation',
    task: investigation.task,
    ways: {
      direct: investigation.ways.direct,
      async composite(c) {
        const text = await c.call('count_and_multiply', { dir: 'src/api', pattern: HANDLER_PATTERN, factor_file: 'config/pool_size' });
        const out = JSON.parse(text) as { count: number; factor: string; product: number };
        return connectionsAnswer(out.count, Number(out.factor.trim()), out.product);
      },
    },
  },
  {
    name: '(b) edit-and-test, 15 direct calls',
    task: editAndTest.task,
    ways: {
      direct: editAndTest.ways.direct,
      async composite(c) {
        // The task names the files and how often each uses the name; one call does it all.
        const uses: Record<string, number> = { 'src/lib/users.js': 2 };
        const edits = FILES.flatMap((path) => Array.from({ length: uses[path] ?? 1 }, () => ({ path, find: 'fetchUser', replace: 'loadUser' })));
        const summary = renameSummary(edits.length, FILES);
        const text = await c.call('edit_and_test', { list: FOLDERS, read: FILES, edits, note: { path: NOTE_PATH, content: `${summary}\n` } });
        const out = JSON.parse(text) as { tests: { passed: boolean } };
        if (!out.tests.passed) throw new Error('the tests still fail');
        return summary;
      },
    },
    verify: verifyRename,
  },
];

/** The tools with a counter of every run, the composites' inner runs included. */
function counted(tools: readonly ITool[]): { tools: ITool[]; runs: () => number } {
  let runs = 0;
  return {
    tools: tools.map((t) => ({ ...t, execute: (args, context) => (runs++, t.execute(args, context)) })),
    runs: () => runs,
  };
}

interface Outcome {
  tally: Tally;
  answer: string;
  toolRuns: number;
}

async function run(workload: Workload, way: Way): Promise<Outcome> {
  return withFixtureCopy(async ({ root, tools: base }) => {
    const { tools, runs } = counted(base);
    const offered = way === 'direct' ? tools : [...tools, ...buildComposites(tools)];
    const conversation = new Conversation({ system: BASE_SYSTEM, tools: offered, task: workload.task });
    const answer = await workload.ways[way](conversation);
    const tally = conversation.answer(answer);
    const problem = await workload.verify?.(root);
    if (problem) throw new Error(`${workload.name} (${way}): ${problem}`);
    return { tally, answer, toolRuns: runs() };
  });
}

const failures: string[] = [];
const rows: (string | number)[][] = [];
const summaries: string[] = [];
for (const workload of WORKLOADS) {
  const direct = await run(workload, 'direct');
  const composite = await run(workload, 'composite');
  if (direct.answer !== composite.answer) failures.push(`${workload.name}: the answers differ: ${JSON.stringify(direct.answer)} vs ${JSON.stringify(composite.answer)}`);
  for (const [way, o] of [['direct', direct], ['composite', composite]] as const) {
    const t = o.tally;
    rows.push([workload.name, way, t.toolCalls, o.toolRuns, t.turns, t.inputTokens, t.outputTokens, totalTokens(t), totalBytes(t)]);
  }
  summaries.push(
    `${workload.name}: ${direct.tally.turns} -> ${composite.tally.turns} turns, ` +
      `input tokens ${percent(reductionPercent(direct.tally.inputTokens, composite.tally.inputTokens))} fewer, ` +
      `total tokens ${percent(reductionPercent(totalTokens(direct.tally), totalTokens(composite.tally)))} fewer, ` +
      `bytes ${percent(reductionPercent(totalBytes(direct.tally), totalBytes(composite.tally)))} fewer`,
  );
}

console.log('\nRound trips and re-sent context: direct calls vs one call to a host-built composite');
console.log('(every turn re-sends system text, tool definitions and every message; o200k_base tokens)\n');
printTable(['workload', 'way', 'model tool calls', 'tools run', 'turns', 'input tokens (all turns)', 'output tokens', 'total tokens', 'bytes'], rows);
console.log('');
for (const line of summaries) console.log(line);

if (failures.length) {
  console.log(`\nFAIL:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nBoth ways reach the same answer; the edit task leaves every test passing and the note written.');
}
