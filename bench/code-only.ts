/**
 * Code-only over a large catalog: the nine real MCP servers of bench/catalog/servers.ts (160
 * tools), started from a toolweave config in a temporary folder (the filesystem server's folder
 * holds a copy of bench/fixtures/repo). Every server's annotations are trusted and every tool is
 * listed as one a script may call, so all 160 stay reachable behind run_js. Measured in one run:
 *
 * 1. What a client lists, in o200k_base tokens per turn: each definition as a model is sent it
 *    (name, description, parameters; bench/conversation/request.ts) and the server's instructions
 *    (a host puts them in the system text, sent every turn):
 *    - the nine servers directly, every definition;
 *    - `toolweave mcp --config`: the same tools and run_pipeline, compose, run_js, get_observation;
 *    - `toolweave mcp --config --code-only`: run_js and get_observation. The bar: 1,000 tokens.
 * 2. A task that needs two tools the model has not seen (find the .js files of a folder, read
 *    them all: the TODO notes of src/billing), as a whole conversation under the accounting of the
 *    other token benches (every turn re-sends the system text, every definition and every message):
 *    - every definition listed: the nine servers directly, one tool call per turn;
 *    - code-only: one run_js call whose script finds both tools with searchTools, checks their
 *      declarations, and calls them with tools.<name>. The bar: 95% fewer input tokens.
 *    This row needs searchTools, describeTools and tools.<name> inside run_js's sandbox; the bench
 *    asks the sandbox first, and says so and leaves the row out when they are not there.
 *
 * Exits non-zero if a bar is missed or an answer is wrong.
 *
 * Run: npm run build && npx tsx bench/code-only.ts
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ITool } from '../dist/index.js';
import { mcpTools } from '../dist/mcp/index.js';
import { startServer, type StartedServer } from './catalog/list.js';
import { CATALOG_SERVERS, catalogConfig } from './catalog/servers.js';
import { servedCatalog } from './catalog/snapshot.js';
import { Conversation, countTokens, definitionOf, FIXTURE_REPO, printTable, reductionPercent, totalTokens, type Tally } from './conversation/index.js';

const BIN = fileURLToPath(new URL('../dist/cli/toolweave.js', import.meta.url));
const LIST_BAR_TOKENS = 1000;
const TASK_BAR_PERCENT = 95;
const START_TIMEOUT_MS = 120_000;

const failures: string[] = [];
const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-code-only-'));
const project = path.join(root, 'filesystem');
await cp(FIXTURE_REPO, project, { recursive: true });
const billing = path.join(project, 'src/billing');
const TASK = `List the TODO notes in the JavaScript files under ${billing}, one line each as "<file>:<line>: <note>", files in order.`;
const SYSTEM = 'You work on a project with the tools given.';

// Every tool of the catalog may be called from a script: the host lists them all.
const config = catalogConfig(root, { sideEffectingTools: servedCatalog().map((tool) => tool.name) });
for (const server of Object.values(config.servers as Record<string, Record<string, unknown>>)) server.trustAnnotations = true;
const configFile = path.join(root, 'toolweave.json');
await writeFile(configFile, JSON.stringify(config, null, 2));

/** The answer: each TODO note of the files read, as `<file>:<line>: <note>` (file relative to the project). */
function notesOf(files: readonly { file: string; text: string }[]): string {
  return files
    .flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, n) => {
        const note = /TODO:?\s*(.*)$/u.exec(line);
        return note ? [`${path.relative(project, file)}:${n + 1}: ${note[1]}`] : [];
      }),
    )
    .join('\n');
}

/** read_multiple_files's text: `<path>:\n<content>\n` per file, joined by `\n---\n`. */
function filesOf(text: string): { file: string; text: string }[] {
  return text.split('\n---\n').map((part) => {
    const end = part.indexOf(':\n');
    return { file: part.slice(0, end), text: part.slice(end + 2) };
  });
}

/** The script the model sends in the code-only way: find the two tools, check them, use them. */
const SCRIPT = `const folder = ${JSON.stringify(billing)};
const [finders, readers] = await Promise.all([
  searchTools('find files whose names match a glob pattern', 5),
  searchTools('read several files at once', 5),
]);
const find = finders.find((t) => /\\bpath: string/.test(t.declaration) && /\\bpattern: string/.test(t.declaration));
const read = readers.find((t) => /\\bpaths: string\\[\\]/.test(t.declaration));
if (!find || !read) throw new Error('not found: ' + JSON.stringify([finders.map((t) => t.name), readers.map((t) => t.name)]));
const listing = await tools[find.name]({ path: folder, pattern: '**/*.js' });
const files = String(listing).split('\\n').filter((line) => line.endsWith('.js')).sort();
const text = String(await tools[read.name]({ paths: files }));
const project = ${JSON.stringify(project + path.sep)};
const notes = [];
for (const part of text.split('\\n---\\n')) {
  const end = part.indexOf(':\\n');
  const file = part.slice(0, end).replace(project, '');
  part.slice(end + 2).split('\\n').forEach((line, n) => {
    const note = /TODO:?\\s*(.*)$/.exec(line);
    if (note) notes.push(file + ':' + (n + 1) + ': ' + note[1]);
  });
}
return notes.join('\\n');`;

/** A client of `toolweave mcp --config <file> [...extra]`, run from the built bin. */
async function proxy(extra: string[]): Promise<Client> {
  const client = new Client({ name: 'toolweave-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', configFile, ...extra], cwd: root, env: getDefaultEnvironment(), stderr: 'ignore' }),
    { timeout: START_TIMEOUT_MS },
  );
  return client;
}

/** What a model is sent every turn for `tools` and `instructions`. */
function perTurn(tools: readonly ITool[], instructions: string): { definitions: number; instructions: number; total: number } {
  const definitions = tools.length ? countTokens(JSON.stringify(tools.map(definitionOf))) : 0;
  const said = instructions ? countTokens(instructions) : 0;
  return { definitions, instructions: said, total: definitions + said };
}

let started: StartedServer[] = [];
const clients: Client[] = [];
try {
  // -------------------------------------------------------------------------------------------
  // 1. What a client lists

  started = await Promise.all(CATALOG_SERVERS.map((server) => startServer(server, root, START_TIMEOUT_MS)));
  const direct: ITool[] = (
    await Promise.all(started.map(({ server, client }) => mcpTools(client, { server: server.name, trustAnnotations: true, ...(server.prefix ? { prefix: server.name } : {}) })))
  ).flat();
  const all = await proxy([]);
  clients.push(all);
  const allTools = await mcpTools(all, { trustAnnotations: true });
  const allTurn = perTurn(allTools, all.getInstructions() ?? '');
  await all.close();
  const codeOnly = await proxy(['--code-only']);
  clients.push(codeOnly);
  const codeOnlyTools = await mcpTools(codeOnly, { trustAnnotations: true });
  const instructions = codeOnly.getInstructions() ?? '';
  const codeOnlyTurn = perTurn(codeOnlyTools, instructions);
  const directTurn = perTurn(direct, '');

  console.log(`## What a client lists: ${direct.length} tools of ${started.length} servers (o200k_base tokens per turn)\n`);
  const row = (way: string, tools: readonly ITool[], turn: ReturnType<typeof perTurn>) => [
    way,
    tools.length,
    turn.definitions,
    turn.instructions,
    turn.total,
    `${((turn.total / directTurn.total) * 100).toFixed(1)}%`,
  ];
  printTable(
    ['way', 'tools listed', 'definitions', 'instructions', 'per turn', 'of direct'],
    [row('the nine servers directly', direct, directTurn), row('toolweave mcp --config', allTools, allTurn), row('toolweave mcp --config --code-only', codeOnlyTools, codeOnlyTurn)],
  );
  console.log(`\nrun_js's description under --code-only:\n\n${codeOnlyTools.find((t) => t.name === 'run_js')?.description}\n`);
  if (codeOnlyTurn.total > LIST_BAR_TOKENS) failures.push(`code-only lists ${codeOnlyTurn.total} tokens per turn; the bar is ${LIST_BAR_TOKENS}`);

  // -------------------------------------------------------------------------------------------
  // 2. A task that needs two tools the model has not seen

  const billingFiles = (await readdir(billing)).filter((f) => f.endsWith('.js')).sort().map((f) => path.join(billing, f));
  const expected = notesOf(await Promise.all(billingFiles.map(async (file) => ({ file, text: await readFile(file, 'utf8') }))));

  const baseline = new Conversation({ system: SYSTEM, tools: direct, task: TASK });
  const listing = await baseline.call('search_files', { path: billing, pattern: '**/*.js' });
  const found = listing.split('\n').filter((line) => line.endsWith('.js')).sort();
  const read = await baseline.call('read_multiple_files', { paths: found });
  const baselineAnswer = notesOf(filesOf(read));
  const baselineTally = baseline.answer(baselineAnswer);
  if (baselineAnswer !== expected) failures.push(`every definition listed: the answer was\n${baselineAnswer}\nexpected\n${expected}`);

  const rows: (string | number)[][] = [taskRow('every definition listed, one call per turn', direct.length, baselineTally, baselineTally)];
  const runJs = codeOnlyTools.find((t) => t.name === 'run_js')!;
  const probe = await runJs.execute({ code: 'return [typeof searchTools, typeof describeTools, typeof tools].join(" ");' }, {});
  const kinds = probe.success ? String(probe.output) : `run_js failed: ${probe.error}`;
  const ready = /^function function (object|function)$/u.test(kinds);
  if (ready) {
    const conversation = new Conversation({ system: `${SYSTEM}\n\n${instructions}`, tools: codeOnlyTools, task: TASK });
    const answer = await conversation.call('run_js', { code: SCRIPT });
    const tally = conversation.answer(answer);
    if (answer !== expected) failures.push(`code-only: the answer was\n${answer}\nexpected\n${expected}`);
    rows.push(taskRow('code-only: one run_js (searchTools, tools.x)', codeOnlyTools.length, tally, baselineTally));
    const saved = reductionPercent(baselineTally.inputTokens, tally.inputTokens);
    if (saved < TASK_BAR_PERCENT) failures.push(`code-only sent ${saved.toFixed(1)}% fewer input tokens; the bar is ${TASK_BAR_PERCENT}%`);
  }
  console.log(`## The TODO notes of src/billing: find the files, read them all (o200k_base, whole conversation)\n`);
  console.log(`Answer: ${expected.split('\n').length} notes in ${billingFiles.length} files.\n`);
  printTable(['way', 'tools listed', 'turns', 'tool calls', 'input tokens', 'output tokens', 'total tokens', 'input vs listed'], rows);
  if (!ready) {
    console.log(
      `\nThe code-only row is left out: run_js's sandbox does not offer discovery yet (typeof searchTools, describeTools, tools: ${kinds}). ` +
        'It runs the script above once the sandbox has searchTools, describeTools and tools.<name>.',
    );
  }
} finally {
  await Promise.all([...clients, ...started.map((s) => s.client)].map((client) => client.close().catch(() => undefined)));
  await rm(root, { recursive: true, force: true });
}

function taskRow(way: string, listed: number, tally: Tally, baseline: Tally): (string | number)[] {
  const input = tally === baseline ? '' : `-${reductionPercent(baseline.inputTokens, tally.inputTokens).toFixed(1)}%`;
  return [way, listed, tally.turns, tally.toolCalls, tally.inputTokens, tally.outputTokens, totalTokens(tally), input];
}

if (failures.length) {
  console.error(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exit(1);
}
console.log('\nAll bars met.');
