/**
 * Tokens and bytes a model is sent, counted with the real tokenizer (o200k_base), for six large
 * tasks and two small controls over the fixture repository (bench/fixtures/repo, copied to a
 * temporary folder for every conversation). Each task is done three ways that reach the same
 * final answer (checked):
 *
 * - direct: the base tools only, one call per turn, full results;
 * - pipeline: the base tools and run_pipeline, predictable sequences batched;
 * - script: the base tools wrapped with observations, run_js and get_observation.
 *
 * The bar, for the six large cases together: the script way sends at least 30% fewer tokens and
 * at least 30% fewer bytes than direct calls, both at once. The small controls: a small result
 * comes back unchanged through the observation wrapper. Exits non-zero if either fails.
 *
 * Run: npm run build && npx tsx bench/tokens.ts
 */
import {
  change,
  Conversation,
  countBytes,
  countTokens,
  definitionOf,
  percent,
  printTable,
  reductionPercent,
  requestJson,
  sumTallies,
  totalBytes,
  totalTokens,
  withFixtureCopy,
  FIXTURE_REPO,
  type CallRecord,
  type Tally,
} from './conversation/index.js';
import { createFsTools } from '../examples/tools/fs-tools.js';
import { CASES, type TaskCase } from './tasks/index.js';
import { offer, type WayName } from './tasks/ways.js';

const WAYS: readonly WayName[] = ['direct', 'pipeline', 'script'];
/** The bar on the six large cases, for tokens and bytes at once. */
const BAR_PERCENT = 30;
/** The most bytes a small result may grow by through the wrapper (framing only). */
const SMALL_RESULT_FRAMING_BYTES = 8;

interface Run {
  tally: Tally;
  answer: string;
  calls: CallRecord[];
}

async function runCase(task: TaskCase, way: WayName): Promise<Run> {
  return withFixtureCopy(async ({ root, tools }) => {
    const offered = offer(way, tools);
    const conversation = new Conversation({ system: offered.system, tools: offered.tools, task: task.task });
    const answer = await task.ways[way](conversation);
    const tally = conversation.answer(answer);
    const problem = await task.verify?.(root);
    if (problem) throw new Error(`case ${task.id} (${way}): ${problem}`);
    return { tally, answer, calls: conversation.calls };
  });
}

const failures: string[] = [];
const runs = new Map<number, Record<WayName, Run>>();
for (const task of CASES) {
  const byWay = {} as Record<WayName, Run>;
  for (const way of WAYS) byWay[way] = await runCase(task, way);
  runs.set(task.id, byWay);
  const answers = new Set(WAYS.map((w) => byWay[w].answer));
  if (answers.size !== 1) {
    failures.push(`case ${task.id}: the three ways answered differently:\n${WAYS.map((w) => `  ${w}: ${JSON.stringify(byWay[w].answer)}`).join('\n')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Per case

console.log('\nTokens (o200k_base) and bytes a model is sent and writes, per case and way');
console.log('(input: every request of every turn, the whole conversation re-sent; output: tool calls and the final answer)\n');
const row = (label: string, way: string, t: Tally) => [label, way, t.inputTokens, t.outputTokens, totalTokens(t), totalBytes(t), t.turns, t.toolCalls];
const header = ['case', 'way', 'input tokens', 'output tokens', 'total tokens', 'bytes', 'turns', 'tool calls'];
const rows: (string | number)[][] = [];
for (const task of CASES) {
  const byWay = runs.get(task.id)!;
  for (const way of WAYS) rows.push(row(`${task.id}. ${task.name}`, way, byWay[way].tally));
}
printTable(header, rows);

// ---------------------------------------------------------------------------------------------
// The six large cases together

const large = CASES.filter((t) => t.large);
const totals = Object.fromEntries(WAYS.map((w) => [w, sumTallies(large.map((t) => runs.get(t.id)![w].tally))])) as Record<WayName, Tally>;
console.log(`\nThe ${large.length} large cases together\n`);
printTable(
  ['way', 'input tokens', 'output tokens', 'total tokens', 'bytes', 'turns', 'tool calls', 'tokens vs direct', 'bytes vs direct'],
  WAYS.map((w) => {
    const t = totals[w];
    const tok = w === 'direct' ? '' : change(totalTokens(totals.direct), totalTokens(t));
    const byt = w === 'direct' ? '' : change(totalBytes(totals.direct), totalBytes(t));
    return [w, t.inputTokens, t.outputTokens, totalTokens(t), totalBytes(t), t.turns, t.toolCalls, tok, byt];
  }),
);

const tokenCut = reductionPercent(totalTokens(totals.direct), totalTokens(totals.script));
const byteCut = reductionPercent(totalBytes(totals.direct), totalBytes(totals.script));
const barMet = tokenCut >= BAR_PERCENT && byteCut >= BAR_PERCENT;
console.log(`\nBar (script way vs direct, six large cases): tokens ${percent(tokenCut)} fewer, bytes ${percent(byteCut)} fewer; both >= ${BAR_PERCENT}%: ${barMet ? 'PASS' : 'FAIL'}`);
const pipeTokenCut = reductionPercent(totalTokens(totals.direct), totalTokens(totals.pipeline));
const pipeByteCut = reductionPercent(totalBytes(totals.direct), totalBytes(totals.pipeline));
console.log(`Pipeline way (for comparison): tokens ${percent(pipeTokenCut)} fewer, bytes ${percent(pipeByteCut)} fewer`);
if (!barMet) failures.push(`the bar is not met: tokens ${percent(tokenCut)}, bytes ${percent(byteCut)} (need >= ${BAR_PERCENT}% each)`);

// Where the cost sits: what every turn pays before any message, and the cases without the log.
console.log('\nWhat every turn pays before the first message (system text and tool definitions)\n');
printTable(['way', 'tokens', 'bytes', 'tools offered'], WAYS.map((w) => {
  // Definitions only: nothing runs over the committed fixture.
  const o = offer(w, createFsTools(FIXTURE_REPO));
  const body = requestJson(o.system, o.tools.map(definitionOf), []);
  return [w, countTokens(body), countBytes(body), o.tools.length];
}));
{
  // The three definitions a model is sent on every turn whatever the task, bounded together:
  // name, description and inputSchema of run_pipeline, run_js and get_observation.
  const tools = [...offer('pipeline', createFsTools(FIXTURE_REPO)).tools, ...offer('script', createFsTools(FIXTURE_REPO)).tools];
  const own = ['run_pipeline', 'run_js', 'get_observation'].map((name) => tools.find((t) => t.name === name)!);
  const sizes = own.map((t) => countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
  const sum = sizes.reduce((a, b) => a + b, 0);
  console.log(`\nrun_pipeline, run_js and get_observation definitions: ${own.map((t, i) => `${t.name} ${sizes[i]}`).join(' + ')} = ${sum} tokens (bound: 250)`);
  if (sum > 250) failures.push(`the run_pipeline, run_js and get_observation definitions are ${sum} tokens, over 250`);
}
const withoutLog = large.filter((t) => t.id !== 2);
const direct5 = sumTallies(withoutLog.map((t) => runs.get(t.id)!.direct.tally));
const script5 = sumTallies(withoutLog.map((t) => runs.get(t.id)!.script.tally));
console.log(`\nFor information, the large cases without the build log (case 2): script way tokens ${percent(reductionPercent(totalTokens(direct5), totalTokens(script5)))} fewer, bytes ${percent(reductionPercent(totalBytes(direct5), totalBytes(script5)))} fewer`);

// ---------------------------------------------------------------------------------------------
// Small controls: a small result must come back unchanged through the wrapper.

console.log('\nSmall controls: the tool result the model reads, direct vs script way (observation wrapper on)\n');
const controlRows: (string | number)[][] = [];
for (const task of CASES.filter((t) => !t.large)) {
  const byWay = runs.get(task.id)!;
  const direct = byWay.direct.calls[0];
  const script = byWay.script.calls[0];
  const grew = countBytes(script.text) - countBytes(direct.text);
  const same = script.text === direct.text;
  const ok = same && grew <= SMALL_RESULT_FRAMING_BYTES;
  controlRows.push([`${task.id}. ${task.name}`, countBytes(direct.text), countBytes(script.text), grew, same ? 'yes' : 'no', ok ? 'PASS' : 'FAIL']);
  if (!ok) failures.push(`case ${task.id}: the small result changed through the wrapper (${JSON.stringify(direct.text)} -> ${JSON.stringify(script.text)})`);
  controlRows[controlRows.length - 1].push(change(totalTokens(byWay.direct.tally), totalTokens(byWay.script.tally)));
}
printTable(['control', 'result bytes, direct', 'result bytes, script way', 'grew by', 'unchanged', 'check', 'whole task, tokens vs direct'], controlRows);

if (failures.length) {
  console.log(`\nFAIL:\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nAll checks passed: the three ways agree on every answer, the edit task leaves the tests passing, the bar is met, the small results are unchanged.');
}
