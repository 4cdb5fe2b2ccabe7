/**
 * Observations: what shaping and paging cost, each figure a ratio against a baseline measured in
 * the same run.
 *
 * - Paging is linear in the page: paging through 4 MB against paging through 1 MB (target about
 *   4x), and one page at the end of 4 MB against one at the start (target about 1x).
 * - Grouping a 1 MB path list: the bar is 10 ms; printed beside the time of splitting the same
 *   text into lines (the least any grouping must do), for scale on this machine.
 * - A 1 MB adversarial result (long `/////… ` lines, which made the old path-list patterns
 *   backtrack quadratically) shaped for the model, against an ordinary 1 MB result (target about 1x).
 * - Paging 4 MB through Redis (a redis-server this bench starts on a free port, and stops)
 *   against the in-memory store: the price of sharing observations between processes.
 *
 * Timing on a shared machine is noisy, so verdicts are printed, never turned into an exit code.
 *
 * Run: npm run bench:observations
 */
import { Redis } from 'ioredis';
import {
  createGetObservationTool,
  createObservationStore,
  withObservations,
  type ObservationStore,
} from '../dist/index.js';
// Internal pieces the public entry does not export, measured on their own.
import { shapePathList } from '../dist/shaping/path-list.js';
import { splitLines } from '../dist/shaping/text-lines.js';
import { createRedisObservationStore } from '../dist/stores/redis.js';
import { mockTool } from '../test/agent-tools/observations/helpers.js';
import { startRedisServer } from '../test/stores/redis-server.js';
import { compare, printComparisons } from './measure.js';

const MB = 1024 * 1024;

/** About `bytes` of 50-byte numbered log lines (80 lines make a 4 KB page). */
function logText(bytes: number): string {
  const lines: string[] = [];
  for (let size = 0, index = 0; size < bytes; index++) {
    const line = `2024-05-01T12:00:00Z INFO job ${index}`.padEnd(49, '.');
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** About `bytes` of a path list over a few directories, in runs as `find` or `rg --files` print them. */
function pathListText(bytes: number): string {
  const dirs = ['src/app/chat', 'src/app/settings', 'src/lib/cache', 'src/lib/net', 'test/unit/app', 'packages/web/src/components/generated'];
  const lines: string[] = [];
  for (let size = 0, index = 0; size < bytes; index++) {
    const line = `${dirs[Math.floor(index / 50) % dirs.length]}/module-${index}.ts`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** A tool that returns `args.text`, for the wrapper to shape. */
const echo = mockTool((args) => ({ success: true, output: String(args.text) }));

/** Store `text` through the wrapper, as a model's call would, and return its id. */
async function storeThrough(store: ObservationStore, text: string): Promise<string> {
  const result = await withObservations(echo, store).execute({ text }, {});
  const observation = result.details?.observation as { id: string } | undefined;
  if (!observation) throw new Error(`not stored: ${String(result.output).split('\n').at(-1)}`);
  return observation.id;
}

/** Page through all of `id` with get_observation, 80 lines a call; returns the pages read. */
async function pageThrough(store: ObservationStore, id: string): Promise<number> {
  const tool = createGetObservationTool(store);
  let pages = 0;
  for (let offset = 0; ; ) {
    const page = await tool.execute({ ids: [id], offset }, {});
    if (!page.success) throw new Error(page.error);
    pages++;
    const next = /next offset (\d+)\]$/.exec(String(page.output));
    if (!next) return pages;
    offset = Number(next[1]);
  }
}

/** Read one page of `id` at `offset`. */
async function pageAt(store: ObservationStore, id: string, offset: number): Promise<void> {
  const page = await createGetObservationTool(store).execute({ ids: [id], offset }, {});
  if (!page.success) throw new Error(page.error);
}

const verdicts: boolean[] = [];

// ---------------------------------------------------------------------------------------------
// Paging, in memory

const memory = createObservationStore({ maxBytes: 64 * MB });
const oneMb = await storeThrough(memory, logText(MB));
const fourMbText = logText(4 * MB);
const fourMb = await storeThrough(memory, fourMbText);
const lastOffset = splitLines(fourMbText).length - 80;
console.log(`\nPaging: 1 MB is ${await pageThrough(memory, oneMb)} pages, 4 MB is ${await pageThrough(memory, fourMb)} pages of 80 lines`);
verdicts.push(
  printComparisons(
    'Paging through a whole body (in memory), 4 MB against 1 MB: linear in the size',
    [await compare('page through 4 MB vs 1 MB', () => pageThrough(memory, oneMb), () => pageThrough(memory, fourMb), { iterations: 1, rounds: 9, warmup: 2 })],
    5,
  ),
);
verdicts.push(
  printComparisons(
    'One page at the end of 4 MB against one at the start: a page costs the same anywhere',
    [await compare('page at the end vs at the start of 4 MB', () => pageAt(memory, fourMb, 0), () => pageAt(memory, fourMb, lastOffset), { iterations: 500 })],
    1.5,
  ),
);

// ---------------------------------------------------------------------------------------------
// Grouping a 1 MB path list

const paths = pathListText(MB);
const pathLines = splitLines(paths);
if (!shapePathList(pathLines).grouped) throw new Error('the path list did not group');
const grouping = await compare(
  `group a 1 MB path list (${pathLines.length} lines) vs split it into lines`,
  async () => splitLines(paths),
  async () => shapePathList(pathLines),
  { iterations: 10, rounds: 9, warmup: 2 },
);
const groupingMet = grouping.candidateMs <= 10;
verdicts.push(groupingMet);
console.log('\nGrouping a 1 MB path list');
console.log(`${pathLines.length} lines: ${grouping.candidateMs.toFixed(2)} ms (bar: <= 10 ms) ${groupingMet ? 'ok' : 'OVER'}; for scale, ${grouping.ratio.toFixed(1)}x the ${grouping.baselineMs.toFixed(2)} ms of splitting the same text into lines`);

// ---------------------------------------------------------------------------------------------
// Adversarial against ordinary results, shaped for the model

const wrapped = withObservations(echo, createObservationStore({ maxBytes: 64 * MB }));
const ordinary = logText(MB);
const adversarial = Array.from({ length: 5 }, () => `${'/'.repeat(MB / 5 - 2)} `).join('\n');
verdicts.push(
  printComparisons(
    'A 1 MB adversarial result (5 lines of "/////… ") against an ordinary 1 MB log, through withObservations',
    [await compare('adversarial vs ordinary, 1 MB', () => wrapped.execute({ text: ordinary }, {}), () => wrapped.execute({ text: adversarial }, {}), { iterations: 5, rounds: 9, warmup: 2 })],
    2,
  ),
);

// ---------------------------------------------------------------------------------------------
// Redis against memory

const server = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: server.port, enableOfflineQueue: false });
try {
  const redis = createRedisObservationStore({ client });
  const inRedis = await storeThrough(redis, fourMbText);
  verdicts.push(
    printComparisons(
      'Paging through 4 MB in Redis (loopback, two round trips a page) against the in-memory store',
      [await compare('page through 4 MB, Redis vs memory', () => pageThrough(memory, fourMb), () => pageThrough(redis, inRedis), { iterations: 1, rounds: 7, warmup: 1 })],
      40,
    ),
  );
  verdicts.push(
    printComparisons(
      'One Redis page at the end of 4 MB against one at the start',
      [await compare('Redis page at the end vs at the start of 4 MB', () => pageAt(redis, inRedis, 0), () => pageAt(redis, inRedis, lastOffset), { iterations: 100, rounds: 9 })],
      1.5,
    ),
  );
} finally {
  client.disconnect();
  await server.stop();
}

console.log(`\n${verdicts.every(Boolean) ? 'All observation targets met.' : 'Some observation targets were not met (see OVER above); timings on a shared machine are noisy.'}`);
