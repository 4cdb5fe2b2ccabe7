/**
 * The toolweave demo: real filesystem tools over a temporary copy of a small project
 * (examples/fixtures/project), so running it never changes the repository.
 *
 *   a) a composite tool built from four tool calls: its spec, as JSON, and the trace of its run
 *   b) the model turns it saves, counted from that trace
 *   c) the gate refusing a side-effecting step the host has not listed
 *   d) a dry run: what an edit would do, with nothing changed
 *
 * Run: `npm run demo`. It exits non-zero if any of these did not happen as described, so it is
 * also a smoke test (test/examples/demo.test.ts runs it).
 */
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ComposableToolBuilder,
  createStepGate,
  type ComposableToolSpec,
  type EffectRecord,
  type ITool,
  type ToolExecutionResult,
  type TraceEntry,
} from '../src/index.js';
import { createFsTools } from './tools/fs-tools.js';

/** The fixture project the demo copies. */
export const FIXTURE_PROJECT = fileURLToPath(new URL('./fixtures/project/', import.meta.url));

/** The spec of a): four steps, each reading the input or an earlier step, and the output's shape. */
export const INVESTIGATE_CACHE_SPEC: ComposableToolSpec = {
  steps: [
    { name: 'files', tool: 'list_dir', inputMapping: { path: '$input.dir' } },
    { name: 'uses', tool: 'grep_files', inputMapping: { pattern: '${$input.symbol}\\(', path: '$input.dir', glob: '*.js' } },
    { name: 'source', tool: 'read_file', inputMapping: { path: '${$input.dir}/cache.js' } },
    { name: 'tests', tool: 'run_tests', inputMapping: {} },
  ],
  output: { files: '$steps.files', uses: '$steps.uses', definition: '$steps.source', tests: '$steps.tests' },
};

/** Where the demo prints. */
export type Log = (line: string) => void;

/**
 * Run the demo over a temporary copy of the fixture project.
 *
 * @param log - where to print (default `console.log`)
 * @returns the exit code: 0 when every expected behaviour was seen, 1 otherwise
 */
export async function main(log: Log = console.log): Promise<number> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-demo-'));
  try {
    await cp(FIXTURE_PROJECT, root, { recursive: true });
    const problems = await runDemo(root, log);
    log('');
    if (problems.length === 0) {
      log('demo: every expected behaviour was seen');
      return 0;
    }
    for (const problem of problems) log(`demo: UNEXPECTED: ${problem}`);
    return 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A host: the tools, a gate over them, and a builder bound to the host's chainable list. */
function createHost(root: string, sideEffectingTools: string[]) {
  const registry = new Map<string, ITool>(createFsTools(root).map((t) => [t.name, t]));
  // The permission check sees every call the gate runs; this one allows all and keeps the resolved args.
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  const gate = createStepGate({
    resolve: (name) => registry.get(name),
    permissionManager: {
      isExecutionAllowed: (tool, args) => {
        calls.push({ tool: tool.name, args });
        return { isAllowed: true };
      },
    },
  });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools });
  return { builder, calls };
}

async function runDemo(root: string, log: Log): Promise<string[]> {
  const problems: string[] = [];
  const expect = (condition: boolean, problem: string) => {
    if (!condition) problems.push(problem);
  };

  // ---------------------------------------------------------------------------------------
  log('a) investigate_cache: one composite tool, four steps, every call through the gate');
  // The spec is plain JSON: it could as well be read from a file, or written by a model.
  log('   its spec (ComposableToolSpec):');
  for (const line of specJson(INVESTIGATE_CACHE_SPEC).split('\n')) log(`     ${line}`);
  const host = createHost(root, []); // this host lists no side-effecting tool as chainable
  const investigate = host.builder.build(
    'investigate_cache',
    'List a folder, find the uses of a function in it, read the cache module, and run the tests.',
    { type: 'object', properties: { dir: { type: 'string' }, symbol: { type: 'string' } }, required: ['dir', 'symbol'] } as const,
    INVESTIGATE_CACHE_SPEC,
  );
  const input = { dir: 'src/app', symbol: 'cacheKey' };
  log(`   investigate_cache(${JSON.stringify(input)})`);
  const investigated = await investigate.execute(input, {});
  const trace = traceOf(investigated);
  printTrace(log, trace, host.calls);
  const output = investigated.output as { files?: string; uses?: string; definition?: string; tests?: { passed?: boolean; failures?: string[] } } | undefined;
  log(`   output.files:      ${short(output?.files?.split('\n').join(', '))}`);
  // Every use but the definition itself is a caller.
  const callers = (output?.uses?.split('\n') ?? []).filter((line) => line !== '' && !line.includes('function cacheKey('));
  log(`   output.uses:       the definition and ${callers.length} callers, among them ${short(callers.find((l) => l.includes('cacheKey(region')))}`);
  const definition = output?.definition?.trimEnd().split('\n') ?? [];
  log(`   output.definition: ${definition.length} lines of cache.js, among them: ${definition.find((l) => l.startsWith('export function cacheKey'))}`);
  log(`   output.tests:      passed ${output?.tests?.passed}; ${output?.tests?.failures?.[0] ?? ''}`);
  expect(investigated.success, `investigate_cache failed: ${investigated.error}`);
  expect(trace.map((e) => e.tool).join() === 'list_dir,grep_files,read_file,run_tests', 'the trace does not show the four steps in order');
  expect(callers.length === 3, `expected 3 callers of cacheKey, got ${callers.length}`);
  expect(output?.tests?.passed === false, 'the tests should fail before the fix in d)');
  expect(investigate.hasSideEffects === false, 'investigate_cache should be pure (all its steps are)');

  // ---------------------------------------------------------------------------------------
  log('');
  log('b) calls saved');
  const toolCalls = trace.filter((e) => e.tool !== undefined && !e.skipped).length;
  log(`   step by step: ${toolCalls} tool calls = ${toolCalls} model turns; composite: 1 call = 1 turn`);
  expect(toolCalls === 4, `expected 4 tool calls in the trace, counted ${toolCalls}`);

  // ---------------------------------------------------------------------------------------
  log('');
  log('c) a side-effecting step the host has not listed is refused, at build and at run time');
  const target = 'notes/cache-uses.txt';
  const saveSpec: ComposableToolSpec = {
    steps: [
      { name: 'uses', tool: 'grep_files', inputMapping: { pattern: 'cacheKey\\(', path: 'src' } },
      { name: 'save', tool: 'write_file', inputMapping: { path: target, content: '$prev' } },
    ],
  };
  // At configuration time: validate lists the problem, and build refuses to make the tool.
  const checked = host.builder.validate(saveSpec, { name: 'save_cache_uses' });
  log(`   validate: ${checked.valid ? 'valid' : checked.errors?.join('; ')}`);
  let built = true;
  try {
    host.builder.build('save_cache_uses', 'Find the uses of cacheKey and save them to a notes file.', { type: 'object' }, saveSpec);
  } catch {
    built = false;
  }
  log(`   build: ${built ? 'built' : 'refused (SpecError)'}`);
  // At run time, every step is checked before the first runs: nothing is read, nothing written.
  host.calls.length = 0;
  const refused = await host.builder.runPipeline(saveSpec, {}, {});
  printTrace(log, traceOf(refused), host.calls);
  const written = await exists(path.join(root, target));
  log(`   run: ${refused.details?.code} at step "${refused.details?.step}", before any step ran (${host.calls.length} calls)`);
  log(`   ${target} exists: ${written ? 'yes' : 'no (nothing was written)'}`);
  expect(!checked.valid && !built, 'the unlisted write_file was not refused at build time');
  expect(!refused.success && refused.details?.code === 'step_not_chainable', `expected step_not_chainable, got ${refused.details?.code ?? 'success'}`);
  expect(host.calls.length === 0, 'a step ran before the refusal');
  expect(!written, `${target} was written although write_file is not listed`);

  // ---------------------------------------------------------------------------------------
  log('');
  log('d) a dry run: edit_file is listed this time, but nothing is changed');
  const editing = createHost(root, ['edit_file']);
  const file = 'src/app/report.js';
  const fix: ComposableToolSpec = {
    steps: [
      { name: 'wrong', tool: 'grep_files', inputMapping: { pattern: 'cacheKey\\(region, user\\)', path: 'src' } },
      { name: 'fix', tool: 'edit_file', inputMapping: { path: '$input.file', find: 'cacheKey(region, user)', replace: 'cacheKey(user, region)' } },
      { name: 'verify', tool: 'run_tests', inputMapping: {} },
    ],
  };
  const before = await readFile(path.join(root, file), 'utf8');
  const dry = await editing.builder.runPipeline(fix, { file }, {}, {
    dry: { stepOutputs: { fix: `replaced 1 occurrence in ${file}` } },
  });
  const after = await readFile(path.join(root, file), 'utf8');
  printTrace(log, traceOf(dry), editing.calls);
  const effects: EffectRecord[] = dry.effects ?? [];
  for (const effect of effects) {
    log(`   effect: step "${effect.step}" (${effect.tool}) wouldRun: ${effect.wouldRun === true}, args:`);
    log(`     ${JSON.stringify(effect.args)}`);
  }
  const verdict = dry.output as { passed?: boolean; failures?: string[] } | undefined;
  log(`   run_tests is pure, so it ran for real: passed ${verdict?.passed}; ${verdict?.failures?.[0] ?? ''}`);
  log(`   ${file} unchanged: ${before === after ? 'yes' : 'NO'}`);
  expect(dry.success, `the dry run failed: ${dry.error}`);
  expect(effects.length === 1 && effects[0].wouldRun === true && effects[0].tool === 'edit_file', 'the dry run did not list edit_file as an effect that would run');
  expect(before === after, `${file} changed during the dry run`);
  expect(verdict?.passed === false, 'the tests should still fail: the edit was not applied');

  log('   the same pipeline, for real:');
  const real = await editing.builder.runPipeline(fix, { file }, {});
  const realVerdict = real.output as { passed?: boolean } | undefined;
  log(`   effects: ${(real.effects ?? []).map((e) => `${e.step} (${e.tool}) ran: ${e.ran === true}`).join(', ')}; run_tests passed: ${realVerdict?.passed}`);
  expect(real.success && realVerdict?.passed === true, 'the real run should fix the caller and pass the tests');
  expect(real.effects?.[0]?.ran === true, 'the real run should record edit_file as ran');

  return problems;
}

/** A spec as JSON, one step a line so that the four fit on a screen. */
function specJson(spec: ComposableToolSpec): string {
  const { steps, ...rest } = spec;
  const fields = [
    `"steps": [\n${steps.map((step) => `  ${JSON.stringify(step)}`).join(',\n')}\n]`,
    ...Object.entries(rest).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`),
  ];
  return `{\n${fields.map((field) => field.replace(/^/gmu, '  ')).join(',\n')}\n}`;
}

function traceOf(result: ToolExecutionResult): TraceEntry[] {
  const trace = result.details?.trace;
  return Array.isArray(trace) ? (trace as TraceEntry[]) : [];
}

/**
 * One line per trace entry. The resolved args come from the host's permission check, which saw
 * the calls in the order the gate ran them; a refused or dry step never reached it.
 */
function printTrace(log: Log, trace: TraceEntry[], calls: { tool: string; args: Record<string, unknown> }[]): void {
  let next = 0;
  trace.forEach((entry, i) => {
    const reachedGate = !entry.dry && !entry.skipped && (entry.ok || !REFUSED_BEFORE_GATE.has(entry.code ?? ''));
    const call = reachedGate && calls[next]?.tool === entry.tool ? calls[next++] : undefined;
    const args = call ? short(call.args, 56) : entry.dry ? '(dry: not run)' : '(not run)';
    const status = entry.ok ? (entry.dry ? 'ok (dry)' : 'ok') : `refused: ${entry.code}`;
    log(`   ${i + 1}. ${pad(entry.step, 8)} ${pad(entry.tool ?? '', 11)} ${pad(args, 56)}  ${status}`);
  });
}

/** Codes a step gets from the chainability rule, before the gate runs anything. */
const REFUSED_BEFORE_GATE = new Set(['step_missing', 'step_not_chainable', 'side_effects_undeclared', 'composition_cycle', 'dry_run_needs_output']);

function short(value: unknown, max = 72): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

// Run when invoked directly (`tsx examples/demo.ts`), not when imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
