/**
 * MCP: a 10-file investigation over the real filesystem server (on a temporary copy of
 * bench/fixtures/repo), done two ways that reach the same answer (checked):
 *
 * - direct: the model is offered the server's own tools and reads one file per turn (10 tool
 *   calls, each a model turn), then answers;
 * - proxy: the model is offered what `toolweave mcp` serves over the same server (its tools plus
 *   run_pipeline, compose, run_js and get_observation, and the proxy's usage guide as the system
 *   text) and makes one run_js call that reads the ten files and returns the answer.
 *
 * Tokens are counted with o200k_base under whole-conversation accounting: every turn re-sends the
 * system text, every offered tool definition and every message so far (bench/conversation/).
 *
 * In the same run, the proxy's added latency per call: the same small read_text_file called
 * directly on the upstream server and through the proxy, interleaved, so both see the same machine.
 *
 * Run: npm run build && npx tsx bench/mcp.ts
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ITool } from '../dist/index.js';
import { mcpTools } from '../dist/mcp/index.js';
import { change, Conversation, FIXTURE_REPO, printTable, totalTokens, type Tally } from './conversation/index.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const BIN = path.join(REPO, 'dist/cli/toolweave.js');
/** The ten files the investigation reads. */
const FILES = ['billing/account', 'billing/invoice', 'billing/ledger', 'billing/plans', 'billing/refunds', 'billing/tax', 'api/cart', 'api/orders', 'api/profile', 'api/search'].map((f) => `src/${f}.js`);
const TASK = `List the TODO notes in these files, one line each as "<file>:<line>: <note>": ${FILES.join(', ')}.`;
/** Calls timed each way for the latency figure (after a warm-up). */
const LATENCY_CALLS = 60;
const WARM_UP_CALLS = 5;

/** The answer, from the files' texts: every TODO note, with its file and line. */
function answerFrom(texts: readonly string[]): string {
  return FILES.flatMap((file, i) =>
    texts[i].split('\n').flatMap((line, n) => {
      const note = /TODO:?\s*(.*)$/u.exec(line);
      return note ? [`${file}:${n + 1}: ${note[1]}`] : [];
    }),
  ).join('\n');
}

/** The script the model sends in the proxy way: it computes the same answer inside the sandbox. */
const SCRIPT = `const files = ${JSON.stringify(FILES)};
const read = await Promise.all(files.map((path) => callTool('read_text_file', { path })));
const notes = [];
read.forEach((r, i) => {
  if (r.error) { notes.push(files[i] + ': ' + r.error.code); return; }
  r.text.split('\\n').forEach((line, n) => {
    const note = /TODO:?\\s*(.*)$/.exec(line);
    if (note) notes.push(files[i] + ':' + (n + 1) + ': ' + note[1]);
  });
});
return notes.join('\\n');`;

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'toolweave-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  return client;
}

async function direct(tools: ITool[]): Promise<{ tally: Tally; answer: string }> {
  const conversation = new Conversation({ system: 'You investigate a code base with the tools given.', tools, task: TASK });
  const texts: string[] = [];
  for (const file of FILES) texts.push(await conversation.call('read_text_file', { path: file }));
  const answer = answerFrom(texts);
  return { tally: conversation.answer(answer), answer };
}

async function proxied(tools: ITool[], system: string): Promise<{ tally: Tally; answer: string }> {
  const conversation = new Conversation({ system, tools, task: TASK });
  const answer = await conversation.call('run_js', { intention: 'list the TODO notes of ten files', code: SCRIPT });
  return { tally: conversation.answer(answer), answer };
}

/** Milliseconds per call of `tool`, interleaved with the other way's calls by the caller. */
async function timed(tool: ITool, args: Record<string, unknown>): Promise<number> {
  const start = performance.now();
  const result = await tool.execute(args, {});
  const ms = performance.now() - start;
  if (!result.success) throw new Error(`${tool.name} failed: ${result.error}`);
  return ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-bench-mcp-'));
  await cp(FIXTURE_REPO, root, { recursive: true });
  const upstream = await connect(process.execPath, [FS_SERVER, root], root);
  const proxy = await connect(process.execPath, [BIN, 'mcp', '--trust-annotations', '--', process.execPath, FS_SERVER, root], root);
  try {
    const upstreamTools = await mcpTools(upstream, { trustAnnotations: true });
    const proxyTools = await mcpTools(proxy, { trustAnnotations: true });
    const expected = answerFrom(await Promise.all(FILES.map((f) => readFile(path.join(root, f), 'utf8'))));

    const a = await direct(upstreamTools);
    const b = await proxied(proxyTools, proxy.getInstructions() ?? '');
    for (const [way, run] of [['direct', a], ['proxy', b]] as const) {
      if (run.answer !== expected) throw new Error(`the ${way} way answered\n${run.answer}\nexpected\n${expected}`);
    }
    console.log(`## A 10-file investigation over the filesystem server (o200k_base, whole conversation)\n`);
    console.log(`Answer (both ways): ${expected.split('\n').length} TODO notes in ${FILES.length} files.\n`);
    printTable(
      ['way', 'tools offered', 'turns', 'tool calls', 'input tokens', 'output tokens', 'total tokens', 'vs direct'],
      [
        ['direct: read_text_file x10', upstreamTools.length, a.tally.turns, a.tally.toolCalls, a.tally.inputTokens, a.tally.outputTokens, totalTokens(a.tally), ''],
        ['proxy: one run_js', proxyTools.length, b.tally.turns, b.tally.toolCalls, b.tally.inputTokens, b.tally.outputTokens, totalTokens(b.tally), change(totalTokens(a.tally), totalTokens(b.tally))],
      ],
    );

    // Latency: the same small read, directly and through the proxy, interleaved.
    const read = (tools: ITool[]) => tools.find((t) => t.name === 'read_text_file')!;
    const args = { path: 'VERSION' };
    for (let i = 0; i < WARM_UP_CALLS; i++) {
      await timed(read(upstreamTools), args);
      await timed(read(proxyTools), args);
    }
    const straight: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < LATENCY_CALLS; i++) {
      straight.push(await timed(read(upstreamTools), args));
      through.push(await timed(read(proxyTools), args));
    }
    const [ms1, ms2] = [median(straight), median(through)];
    console.log(`\n## The proxy's added latency per call (read_text_file, ${LATENCY_CALLS} calls each way, interleaved, medians)\n`);
    printTable(
      ['way', 'median ms per call', 'ratio'],
      [
        ['upstream server directly', ms1.toFixed(2), '1.00x'],
        ['through toolweave mcp', ms2.toFixed(2), `${(ms2 / ms1).toFixed(2)}x`],
      ],
    );
    console.log(`\nAdded by the proxy: ${(ms2 - ms1).toFixed(2)} ms per call (median).`);
  } finally {
    await proxy.close();
    await upstream.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
