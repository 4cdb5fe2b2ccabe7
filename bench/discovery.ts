/**
 * Discovery over the nine-server catalog (the committed snapshot of what the real servers list,
 * test/fixtures/catalog.json; bench/code-only.ts starts the servers themselves):
 *
 * - declarations: the time to render the whole catalog as TypeScript (the bar: 50 ms), and its
 *   size in o200k_base tokens against the JSON definitions a client is sent for the same tools;
 * - search: the time to build the index and to answer one query (the bar: 5 ms), over the
 *   needs of bench/catalog/needs.ts;
 * - ranking: how often a right tool is in the top 3 for those needs (the bar: 90%), against two
 *   baselines measured in the same run over the same catalog: a substring filter (the tools whose
 *   name or description holds the query) and word overlap (the most query words found in the name
 *   and description).
 *
 * Times are the fastest of several runs and the median: the fastest is what the code costs, the
 * median what a shared machine gave. Exits non-zero if a bar is missed.
 *
 * Run: npm run build && npx tsx bench/discovery.ts
 */
import { buildToolIndex, createToolCatalog, renderDeclarations, searchTools, type ITool } from '../dist/index.js';
import { hitRate, NEEDS } from './catalog/needs.js';
import { servedCatalog, type CatalogTool } from './catalog/snapshot.js';
import { countTokens, percent, printTable } from './conversation/index.js';

const RENDER_BAR_MS = 50;
const SEARCH_BAR_MS = 5;
const HIT_BAR = 0.9;
const RENDER_RUNS = 30;
const SEARCH_ROUNDS = 20;

const catalog = servedCatalog();
const failures: string[] = [];

function stats(times: readonly number[]): { min: number; median: number; p95: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], p95: sorted[Math.floor(sorted.length * 0.95)] };
}

function timed<T>(fn: () => T): [T, number] {
  const started = performance.now();
  const value = fn();
  return [value, performance.now() - started];
}

// ---------------------------------------------------------------------------------------------
// Declarations

const renderTimes: number[] = [];
let declarations = '';
for (let i = 0; i < RENDER_RUNS; i++) {
  const [text, ms] = timed(() => renderDeclarations(catalog));
  declarations = text;
  renderTimes.push(ms);
}
const render = stats(renderTimes);
const definitions = JSON.stringify(catalog.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })));
const [definitionTokens, declarationTokens] = [countTokens(definitions), countTokens(declarations)];

console.log(`## Declarations of the ${catalog.length}-tool catalog\n`);
printTable(
  ['what', 'o200k_base tokens', 'vs JSON definitions', 'render ms (fastest)', 'render ms (median)'],
  [
    ['JSON definitions (name, description, inputSchema)', definitionTokens, '1.00x', '', ''],
    ['TypeScript declarations (renderDeclarations)', declarationTokens, `${(declarationTokens / definitionTokens).toFixed(2)}x`, render.min.toFixed(2), render.median.toFixed(2)],
  ],
);
if (render.min > RENDER_BAR_MS) failures.push(`rendering the catalog took ${render.min.toFixed(1)} ms at best; the bar is ${RENDER_BAR_MS} ms`);

// ---------------------------------------------------------------------------------------------
// Search

const buildTimes: number[] = [];
let index = buildToolIndex(catalog);
for (let i = 0; i < RENDER_RUNS; i++) {
  const [built, ms] = timed(() => buildToolIndex(catalog));
  index = built;
  buildTimes.push(ms);
}
const queryTimes: number[] = [];
for (let round = 0; round < SEARCH_ROUNDS; round++) {
  for (const need of NEEDS) queryTimes.push(timed(() => index.search(need.need, 5))[1]);
}
// What a script's searchTools is answered with: the catalog keeps its index, each hit is declared.
const kept = createToolCatalog(() => catalog as unknown as ITool[]);
kept.search('warm up');
const keptTimes: number[] = [];
for (let round = 0; round < SEARCH_ROUNDS; round++) {
  for (const need of NEEDS) keptTimes.push(timed(() => kept.search(need.need, 5))[1]);
}
// The pure function: the index built for the one search.
const pureTimes = NEEDS.map((need) => timed(() => searchTools(catalog, need.need, 5))[1]);
const [build, query, withDeclarations, pure] = [stats(buildTimes), stats(queryTimes), stats(keptTimes), stats(pureTimes)];

console.log(`\n## Search over the ${catalog.length}-tool catalog (${NEEDS.length} needs x ${SEARCH_ROUNDS} rounds)\n`);
printTable(
  ['step', 'fastest ms', 'median ms', 'p95 ms', 'median vs the 5 ms bar'],
  [
    ['build the index (once per catalog version)', build.min.toFixed(3), build.median.toFixed(3), build.p95.toFixed(3), ''],
    ['one query on a built index', query.min.toFixed(3), query.median.toFixed(3), query.p95.toFixed(3), `${(query.median / SEARCH_BAR_MS).toFixed(3)}x`],
    ['catalog.search: a query, its hits declared', withDeclarations.min.toFixed(3), withDeclarations.median.toFixed(3), withDeclarations.p95.toFixed(3), `${(withDeclarations.median / SEARCH_BAR_MS).toFixed(3)}x`],
    ['searchTools(tools, query): build, rank, declare', pure.min.toFixed(3), pure.median.toFixed(3), pure.p95.toFixed(3), `${(pure.median / SEARCH_BAR_MS).toFixed(3)}x`],
  ],
);
if (withDeclarations.median > SEARCH_BAR_MS) failures.push(`a search took ${withDeclarations.median.toFixed(2)} ms (median); the bar is ${SEARCH_BAR_MS} ms`);

// ---------------------------------------------------------------------------------------------
// Ranking

/** The tools whose name or description holds the whole query, in catalog order. */
function substringFilter(tools: readonly CatalogTool[]) {
  return (query: string, limit: number) => tools.filter((tool) => `${tool.name} ${tool.description}`.toLowerCase().includes(query.toLowerCase())).slice(0, limit);
}

/** The tools with the most query words (three letters or more) in their name and description. */
function wordOverlap(tools: readonly CatalogTool[]) {
  return (query: string, limit: number) => {
    const wanted = query.toLowerCase().split(/[^a-z0-9]+/u).filter((word) => word.length >= 3);
    return tools
      .map((tool, order) => {
        const text = `${tool.name} ${tool.description}`.toLowerCase();
        return { name: tool.name, order, score: wanted.filter((word) => text.includes(word)).length };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, limit);
  };
}

const ways = [
  ['substring filter (baseline)', hitRate(substringFilter(catalog))],
  ['word overlap (baseline)', hitRate(wordOverlap(catalog))],
  ['BM25 (buildToolIndex)', hitRate((query, limit) => index.search(query, limit))],
] as const;
const baseline = ways[1][1].hits;
console.log(`\n## Ranking: a right tool in the top 3, for ${NEEDS.length} needs written against the catalog\n`);
printTable(
  ['way', 'hits', 'hit rate', 'vs word overlap'],
  ways.map(([way, rate]) => [way, `${rate.hits}/${rate.total}`, percent((rate.hits / rate.total) * 100), baseline ? `${(rate.hits / baseline).toFixed(2)}x` : '']),
);
const bm25 = ways[2][1];
for (const miss of bm25.misses) console.log(`- BM25 missed "${miss.need}": ${miss.found.join(', ') || 'nothing'} (wanted ${miss.wanted.join(' or ')})`);
if (bm25.hits / bm25.total < HIT_BAR) failures.push(`the ranking hit ${percent((bm25.hits / bm25.total) * 100)}; the bar is ${percent(HIT_BAR * 100)}`);

if (failures.length) {
  console.error(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exit(1);
}
console.log(`\nAll bars met: render ${render.min.toFixed(1)} ms <= ${RENDER_BAR_MS} ms, search ${withDeclarations.median.toFixed(3)} ms <= ${SEARCH_BAR_MS} ms, hit rate ${percent((bm25.hits / bm25.total) * 100)} >= ${percent(HIT_BAR * 100)}.`);
