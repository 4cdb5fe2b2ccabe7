/**
 * Forging from one run, on recordings the real proxy made (`toolweave mcp --record`, the bin over
 * Streamable HTTP, in front of the real memory server, driven by the SDK's Client): each run_js
 * run is recorded with an id its calls carry; a run whose calls form a chain, a loop or a fan-out
 * becomes a composite that `toolweave check` passes against the live server; a run whose calls
 * depend on its data is refused with the reason, and nothing is written.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeFromRun, readRecordings, recordedRuns, type RecordedRun, type RecordedSession } from '../../src/index.js';
import { copyProject, processesLeft, REPO, type Project } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, runBin, type HttpProxy } from '../cli/proxy-process.js';

const MEMORY_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

let project: Project;
let proxy: HttpProxy;
let client: Client;
let recordings: string;
let configFile: string;
let sessions: RecordedSession[];
let runs: RecordedRun[];

/** The scripts the client runs, by what they show. */
const SCRIPTS = {
  chain: 'const s = JSON.parse((await callTool("search_nodes", { query: "engineer" })).text);\nconst o = await callTool("open_nodes", { names: [s.entities[0].name] });\nreturn o.text;',
  loop: 'const s = JSON.parse((await callTool("search_nodes", { query: "engineer" })).text);\nconst out = [];\nfor (const e of s.entities) out.push(JSON.parse((await callTool("open_nodes", { names: [e.name] })).text));\nreturn out;',
  fanOut: 'const [a, b] = await Promise.all([callTool("open_nodes", { names: ["Alice"] }), callTool("search_nodes", { query: "Bob" })]);\nreturn [a.text.length, b.text.length];',
  branches: 'const s = JSON.parse((await callTool("search_nodes", { query: "engineer" })).text);\nif (s.entities.length > 2) {\n  await callTool("open_nodes", { names: [s.entities[0].name] });\n}\nreturn s.entities.length;',
  partial: 'const s = JSON.parse((await callTool("search_nodes", { query: "engineer" })).text);\nfor (const e of s.entities.slice(0, 2)) await callTool("open_nodes", { names: [e.name] });\nreturn "done";',
  wentPast: 'await callTool("add_observations", { observations: [{ entityName: "Nobody", contents: ["x"] }] });\nreturn (await callTool("read_graph", {})).text.length;',
  refusedPast: 'await callTool("open_nodes", { names: "not a list" });\nreturn (await callTool("read_graph", {})).text.length;',
} as const;

/** A run_pipeline run: two reads, neither reading the other. */
const PIPELINE = { steps: [{ tool: 'search_nodes', args: { query: 'Carol' } }, { tool: 'read_graph', args: {} }] };

beforeAll(async () => {
  project = await copyProject('toolweave-from-run-');
  recordings = path.join(project.root, '.recordings');
  configFile = path.join(project.root, 'toolweave.json');
  const memory = { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: path.join(project.root, 'memory.jsonl') }, trustAnnotations: true };
  // add_observations may be called from a script: one that fails upstream is recorded inside its run.
  await writeFile(configFile, JSON.stringify({ servers: { memory }, sideEffectingTools: ['add_observations'] }));
  proxy = await proxyOverHttp(['--config', configFile, '--record', recordings]);
  client = await httpClient(proxy.url);
  const people = ['Alice', 'Bob', 'Carol'].map((name) => ({ name, entityType: 'engineer', observations: [`${name} writes code`] }));
  const made = CallToolResultSchema.parse(await client.callTool({ name: 'create_entities', arguments: { entities: people } }));
  expect(made.isError).not.toBe(true);
  for (const code of Object.values(SCRIPTS)) {
    const answer = CallToolResultSchema.parse(await client.callTool({ name: 'run_js', arguments: { code } }, undefined, { timeout: 60_000 }));
    expect(answer.isError, (answer.content[0] as { text: string }).text).not.toBe(true);
  }
  const pipeline = CallToolResultSchema.parse(await client.callTool({ name: 'run_pipeline', arguments: PIPELINE }, undefined, { timeout: 60_000 }));
  expect(pipeline.isError).not.toBe(true);
  const read = await readRecordings(recordings);
  sessions = read.output!.sessions;
  runs = recordedRuns(sessions);
}, 90_000);
afterAll(async () => {
  await client?.close();
  await proxy?.stop();
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

/** The id of the run of `script`. */
function runOf(script: keyof typeof SCRIPTS): string {
  const run = runs.find((r) => (r.run.args as { code?: string }).code === SCRIPTS[script]);
  expect(run).toBeDefined();
  return run!.run.run!;
}

describe('the recording of a run', () => {
  it('records each run_js run with an id, and its calls with the same id, in the order made', () => {
    expect(runs).toHaveLength(Object.keys(SCRIPTS).length + 1);
    const loop = runs.find((r) => r.run.run === runOf('loop'))!;
    expect(loop.run).toMatchObject({ tool: 'run_js', isRun: true, ok: true, args: { code: SCRIPTS.loop } });
    expect(loop.calls.map((call) => [call.tool, call.step, call.door])).toEqual([
      ['search_nodes', 'call 1', 'run_js'],
      ['open_nodes', 'call 2', 'run_js'],
      ['open_nodes', 'call 3', 'run_js'],
      ['open_nodes', 'call 4', 'run_js'],
    ]);
    // The run's record comes after its calls (records are written as calls end), and ids differ between runs.
    expect(loop.calls.every((call) => call.seq < loop.run.seq)).toBe(true);
    expect(new Set(runs.map((r) => r.run.run)).size).toBe(runs.length);
    // The direct call is no run's.
    const direct = sessions[0].calls.find((call) => call.tool === 'create_entities')!;
    expect(direct).not.toHaveProperty('run');
  });
});

describe('forgeFromRun', () => {
  it('forges a chain: a copy from an earlier output is a reference, the text it was given an input field', () => {
    const forged = forgeFromRun(sessions, runOf('chain'));
    expect(forged.success).toBe(true);
    expect(forged.output!.spec.steps).toEqual([
      { name: 'search_nodes', tool: 'search_nodes', inputMapping: { query: '$input.query' } },
      { name: 'open_nodes', tool: 'open_nodes', inputMapping: { names: ['$steps.search_nodes.entities[0].name'] } },
    ]);
    expect(forged.output!.inputSchema).toMatchObject({ properties: { query: { type: 'string' } }, required: ['query'] });
    expect(forged.output!.examples).toEqual([expect.objectContaining({ input: { query: 'engineer' }, output: { entities: [expect.objectContaining({ name: 'Alice' })], relations: [] } })]);
    expect(forged.output!.description).toContain(`Forged from run ${runOf('chain')} of run_js`);
  });

  it('forges a loop over every item of an earlier list as for_each', () => {
    const forged = forgeFromRun(sessions, runOf('loop'));
    expect(forged.success).toBe(true);
    expect(forged.output!.spec.steps).toEqual([
      { name: 'search_nodes', tool: 'search_nodes', inputMapping: { query: '$input.query' } },
      { name: 'open_nodes', combinator: 'for_each', items: '$steps.search_nodes.entities', template: { name: 'open_nodes_item', tool: 'open_nodes', inputMapping: { names: ['$item.name'] } } },
    ]);
    expect((forged.output!.examples[0].output as unknown[]).length).toBe(3);
  });

  it('forges a fan-out of pure calls that read nothing of each other as one gather', () => {
    const forged = forgeFromRun(sessions, runOf('fanOut'));
    expect(forged.success).toBe(true);
    expect(forged.output!.spec.steps).toEqual([
      { name: 'gathered', combinator: 'gather', calls: {
        open_nodes: { tool: 'open_nodes', inputMapping: { names: '$input.names' } },
        search_nodes: { tool: 'search_nodes', inputMapping: { query: '$input.query' } },
      } },
    ]);
    expect(forged.output!.examples[0]).toMatchObject({ input: { names: ['Alice'], query: 'Bob' }, output: { open_nodes: { entities: [{ name: 'Alice' }] }, search_nodes: { entities: [{ name: 'Bob' }] } } });
  });

  it('forges a run_pipeline run the same way', () => {
    const run = runs.find((r) => r.run.tool === 'run_pipeline')!;
    expect(run.calls.map((call) => [call.tool, call.door])).toEqual([['search_nodes', 'run_pipeline'], ['read_graph', 'run_pipeline']]);
    const forged = forgeFromRun(sessions, run.run.run!);
    expect(forged.success).toBe(true);
    expect(forged.output!.spec.steps).toEqual([
      { name: 'gathered', combinator: 'gather', calls: {
        search_nodes: { tool: 'search_nodes', inputMapping: { query: '$input.query' } },
        read_graph: { tool: 'read_graph', inputMapping: {} },
      } },
    ]);
  });

  it('refuses a run whose calls depend on its data, saying why', () => {
    const branches = forgeFromRun(sessions, runOf('branches'));
    expect(branches).toMatchObject({ success: false, details: { code: 'run_not_composable', reason: 'branches', construct: 'if', line: 2 } });
    expect(branches.error).toMatch(/decides by its data which calls it makes \(if at line 2\)/u);
    const partial = forgeFromRun(sessions, runOf('partial'));
    expect(partial).toMatchObject({ success: false, details: { code: 'run_not_composable', reason: 'partial_loop', items: [0, 1], listLength: 3 } });
    expect(partial.error).toMatch(/2 calls of open_nodes take items 0, 1 of the 3-item list search_nodes\.entities returned/u);
    const wentPast = forgeFromRun(sessions, runOf('wentPast'));
    expect(wentPast).toMatchObject({ success: false, details: { code: 'run_not_composable', reason: 'call_failed', call: 1, tool: 'add_observations' } });
    // A call the gate refused (its arguments do not match the tool's schema) reached no tool: its run's record counts it.
    const refusedRun = runs.find((r) => r.run.run === runOf('refusedPast'))!;
    expect(refusedRun.run.failedUnrecorded).toBe(1);
    expect(refusedRun.calls.map((call) => call.tool)).toEqual(['read_graph']);
    expect(forgeFromRun(sessions, runOf('refusedPast'))).toMatchObject({ success: false, details: { code: 'run_not_composable', reason: 'call_failed', refused: 1 } });
    expect(runs.find((r) => r.run.run === runOf('loop'))!.run).not.toHaveProperty('failedUnrecorded');
    const missing = forgeFromRun(sessions, 'run-nope-1');
    expect(missing).toMatchObject({ success: false, details: { code: 'run_not_found' } });
    expect(missing.error).toContain(runOf('loop'));
  });
});

describe('toolweave forge --from-run', () => {
  it('writes the composite, which toolweave check passes against the live server; refuses a branching run and writes nothing', async () => {
    const out = path.join(project.root, 'forged');
    for (const script of ['chain', 'loop', 'fanOut'] as const) {
      const run = await runBin(['forge', '--from-run', recordings, '--run', runOf(script), '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^forged \\S+ from run ${runOf(script)}: \\d steps -> `, 'u'));
    }
    const files = (await readdir(out)).sort();
    expect(files).toHaveLength(3);
    await writeFile(configFile, JSON.stringify({ ...JSON.parse(await readFile(configFile, 'utf8')), composites: ['forged/*.json'] }));
    const check = await runBin(['check', '--config', configFile]);
    expect(check.stdout.trim().split('\n').filter((line) => line.includes('composite')).sort()).toEqual(files.map((file) => `ok   composite ${file.replace(/\.json$/u, '')}: 1 examples`).sort());
    expect(check.code).toBe(0);

    const refusedOut = path.join(project.root, 'refused');
    const refused = await runBin(['forge', '--from-run', recordings, '--run', runOf('branches'), '--out', refusedOut]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^toolweave forge: run_not_composable: Run \S+ cannot be forged: the script decides by its data/u);
    expect(existsSync(refusedOut)).toBe(false);
  }, 120_000);
});
