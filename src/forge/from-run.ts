/**
 * A composite from one recorded run: the calls a run_js script or a run_pipeline/compose tree made
 * (the records that carry its run's id), put through the same flow analysis and generalization as
 * mined chains. What the spec language says is a chain (a copy from an earlier output), a loop (one
 * call per item of an earlier list, every item, in order: for_each) and a fan-out (pure calls that
 * read nothing of each other: gather). One run cannot show what other data would have led to, so a
 * run whose calls depend on its data is refused with the reason, and nothing is forged: a script
 * that branches on what it read, calls over part of a list, or a failed call the run went past.
 */
import { failure } from '../codes.js';
import type { ComposableToolSpec, SpecNode } from '../spec/types.js';
import type { ToolExecutionResult } from '../tool.js';
import { traceFlow } from './flow.js';
import { generalizeChain, type ForgedComposite } from './generalize.js';
import { pathText, shapeOf, valueAt, type ChainShape } from './mine.js';
import type { RecordedSession } from './read-recordings.js';
import type { CallRecord } from './record-format.js';
import { findScriptBranch } from './script-branches.js';

/**
 * Options of {@link forgeFromRun}.
 *
 * @category Forge: composites from recordings
 */
export interface ForgeFromRunOptions {
  /** Names already taken (other composites, tools); the forged name avoids them and is added. */
  takenNames?: Set<string>;
  /** The most steps the composite may have (default 64); a run of more is refused. */
  maxSteps?: number;
}

/**
 * A run the recordings hold: its own record and the calls made inside it, in the order they were made.
 *
 * @category Forge: composites from recordings
 */
export interface RecordedRun {
  /** The session's file. */
  session: string;
  /** The record of the run itself (`isRun`): the door, its arguments, its answer. */
  run: CallRecord;
  /** The calls made inside it. */
  calls: CallRecord[];
}

/** The doors whose runs can be forged: their arguments say what the run was. */
const FORGEABLE_DOORS = new Set(['run_js', 'run_pipeline', 'compose']);
/** The most run ids a `run_not_found` message lists. */
const MAX_LISTED_RUNS = 10;

/**
 * Every run the sessions hold, in order, with the calls made inside it.
 *
 * @param sessions - recordings made with door wrapping (`toolweave mcp --record`)
 *
 * @category Forge: composites from recordings
 */
export function recordedRuns(sessions: readonly RecordedSession[]): RecordedRun[] {
  const runs: RecordedRun[] = [];
  for (const session of sessions) {
    const inside = new Map<string, CallRecord[]>();
    for (const call of session.calls) {
      if (call.run === undefined || call.isRun) continue;
      const calls = inside.get(call.run) ?? [];
      calls.push(call);
      inside.set(call.run, calls);
    }
    for (const call of session.calls) {
      if (call.isRun && call.run !== undefined) runs.push({ session: session.file, run: call, calls: inOrderMade(inside.get(call.run) ?? []) });
    }
  }
  return runs;
}

/**
 * The composite one successful recorded run generalizes to, or why it cannot be forged.
 *
 * Its calls become steps (copies as references, a loop over every item of an earlier list as
 * for_each, pure calls that read nothing of each other as one gather), the text values it was
 * given input fields, and the run its example.
 *
 * A run not found is `run_not_found`; one that failed, `run_failed`; one whose calls depend on its
 * data, `run_not_composable` with `details.reason` (`branches`, `partial_loop`, `call_failed`,
 * `no_calls`, `unknown_script`, `too_many_steps`) and a message that says why.
 *
 * @param sessions - the recordings
 * @param runId - the run's id (the `run` of its records)
 * @param options - the names taken and the bound on steps
 *
 * @category Forge: composites from recordings
 */
export function forgeFromRun(sessions: readonly RecordedSession[], runId: string, options: ForgeFromRunOptions = {}): ToolExecutionResult<ForgedComposite> {
  const runs = recordedRuns(sessions);
  const found = runs.find((run) => run.run.run === runId);
  if (!found) {
    const ids = runs.slice(-MAX_LISTED_RUNS).map((run) => `${run.run.run} (${run.run.tool}${run.run.ok ? '' : ', failed'})`);
    const listed = ids.length ? ` The recordings hold ${runs.length} runs${runs.length > ids.length ? `; the last ${ids.length}` : ''}: ${ids.join(', ')}.` : ' The recordings hold no runs: record with toolweave mcp --record, then run a script.';
    return failure('run_not_found', `No recorded run has the id "${runId}".${listed}`, { run: runId, runs: runs.length });
  }
  const { run, calls, session } = found;
  const refuse = (reason: string, message: string, extra: Record<string, unknown> = {}) => failure('run_not_composable', `Run ${runId} cannot be forged: ${message} Nothing was written.`, { run: runId, reason, ...extra });
  if (!run.ok) return failure('run_failed', `Run ${runId} (${run.tool}) did not succeed (${run.code ?? 'failed'}): forge from a run that did.`, { run: runId, ...(run.code ? { runCode: run.code } : {}) });
  if (!FORGEABLE_DOORS.has(run.tool) || run.argsCut !== undefined) {
    const why = run.argsCut !== undefined ? `its arguments (${run.argsChars} characters) were cut in the recording` : `it is a run of ${run.tool}, whose script is in the config, not in the recording`;
    return refuse('unknown_script', `${why}, so whether its calls depend on its data cannot be told. Forge from a run of run_js, run_pipeline or compose.`);
  }
  if (run.failedUnrecorded) {
    return refuse('call_failed', `${run.failedUnrecorded} of its calls failed before reaching a tool (refused by the gate) and the run went on: what a run does past a failure depends on the failure, which a spec cannot say.`, { refused: run.failedUnrecorded });
  }
  if (calls.length === 0) return refuse('no_calls', 'it made no call to a tool.');
  const failed = calls.findIndex((call) => !call.ok);
  if (failed >= 0) {
    const call = calls[failed];
    return refuse('call_failed', `its call ${failed + 1} (${call.tool}, ${call.code ?? 'failed'}) failed and the run went on: what a run does past a failure depends on the failure, which a spec cannot say.`, { call: failed + 1, tool: call.tool });
  }
  const code = (run.args as { code?: unknown } | undefined)?.code;
  if (run.tool === 'run_js' && typeof code === 'string') {
    const branch = findScriptBranch(code);
    if (branch) {
      return refuse('branches', `the script decides by its data which calls it makes (${branch.construct} at line ${branch.line}): this run shows only the calls its data led to, and a composite would make them whatever its input. Write the composite by hand, or take the branch out of the script.`, { construct: branch.construct, line: branch.line });
    }
  }
  const maxSteps = Math.max(1, options.maxSteps ?? 64);
  const chain = shapeOf(calls.map((_, i) => i), calls, traceFlow(calls), session);
  const partial = partialLoop(chain.steps, calls, chain.occurrence.steps);
  if (partial) return refuse('partial_loop', partial.message, partial.details);
  if (chain.steps.length > maxSteps) return refuse('too_many_steps', `its ${chain.steps.length} steps are more than the ${maxSteps} a composite forged from one run may have.`);
  const shape: ChainShape = { signature: chain.signature, steps: chain.steps, sessions: 1, occurrences: [chain.occurrence] };
  const forged = generalizeChain(shape, {
    ...(options.takenNames ? { takenNames: options.takenNames } : {}),
    maxExamples: 1,
    // One run: nothing varies, and the text it was given (paths, queries, lists of names) is its input.
    asInput: (value) => typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')),
    origin: `run ${runId} of ${run.tool}, recorded ${run.time} in ${baseName(session)}`,
  });
  return { success: true, output: gathered(forged, shape) };
}

/** The calls of a run in the order they were made: a script's by its call number, others by start. */
function inOrderMade(calls: readonly CallRecord[]): CallRecord[] {
  const number = (call: CallRecord) => /^call (\d+)$/u.exec(call.step)?.[1];
  if (calls.every((call) => number(call) !== undefined)) return [...calls].sort((a, b) => Number(number(a)) - Number(number(b)));
  return [...calls].sort((a, b) => a.time.localeCompare(b.time) || a.seq - b.seq);
}

/**
 * Calls of one tool that each take an item of one earlier list but do not go over all of it, in
 * order: how many calls the run made depends on the list's data (a filter, a slice, a stop).
 */
function partialLoop(steps: ReturnType<typeof shapeOf>['steps'], calls: readonly CallRecord[], made: ReturnType<typeof shapeOf>['occurrence']['steps']): { message: string; details: Record<string, unknown> } | undefined {
  const groups = new Map<string, { tool: string; items: number[]; length: number; source: number; list: string }>();
  steps.forEach((step) => {
    if (step.forEach) return;
    for (const part of step.parts) {
      const construction = part.construction;
      if (construction.kind !== 'copy') continue;
      const source = made[construction.step].calls[construction.item ?? 0];
      const at = construction.path.findIndex((segment, q) => typeof segment === 'number' && Array.isArray(valueAt(source.output, construction.path.slice(0, q))));
      if (at < 0) continue;
      const list = pathText(construction.path.slice(0, at));
      const key = `${step.tool} ${construction.step} ${construction.item ?? ''} ${list}`;
      const group = groups.get(key) ?? { tool: step.tool, items: [], length: (valueAt(source.output, construction.path.slice(0, at)) as unknown[]).length, source: construction.step, list };
      group.items.push(construction.path[at] as number);
      groups.set(key, group);
    }
  });
  for (const group of groups.values()) {
    if (group.items.length < 2) continue;
    const sourceTool = steps[group.source].tool;
    return {
      message: `${group.items.length} calls of ${group.tool} take items ${group.items.join(', ')} of the ${group.length}-item list ${sourceTool}${group.list} returned: how many calls the run made depends on the list's data, while a loop over the list makes one call per item. Write the composite by hand (a for_each over the list, filtered first), or call the tool for every item.`,
      details: { tool: group.tool, items: group.items, listLength: group.length, calls: calls.length },
    };
  }
  return undefined;
}

/**
 * The forged composite with each run of two or more consecutive plain steps that are pure and
 * read nothing of each other as one gather (they ran side by side in the run, or could have), the
 * references to them rewritten to read through it.
 */
function gathered(forged: ForgedComposite, shape: ChainShape): ForgedComposite {
  const steps = forged.spec.steps as SpecNode[];
  const effects = new Set(forged.sideEffectingSteps);
  const groups: number[][] = [];
  let group: number[] = [];
  const flush = () => {
    if (group.length >= 2) groups.push(group);
    group = [];
  };
  steps.forEach((node, s) => {
    const plain = isPlainCall(node) && !effects.has(node.name as string);
    if (!plain) return flush();
    const reads = readsOf(node);
    if (group.some((g) => reads.has(steps[g].name as string))) flush();
    group.push(s);
  });
  flush();
  if (groups.length === 0) return forged;
  const renamed = new Map<string, string>();
  const taken = new Set(steps.map((node) => node.name as string));
  const out: SpecNode[] = [];
  const gatherAt = new Map(groups.map((g) => [g[0], g]));
  const inGroup = new Set(groups.flat());
  steps.forEach((node, s) => {
    const members = gatherAt.get(s);
    if (members) {
      let name = 'gathered';
      for (let n = 2; taken.has(name); n++) name = `gathered_${n}`;
      taken.add(name);
      const calls: Record<string, unknown> = {};
      for (const m of members) {
        const { name: member, ...call } = steps[m] as unknown as Record<string, unknown>;
        calls[member as string] = rewrite(call, renamed);
        renamed.set(member as string, `${name}.${member as string}`);
      }
      out.push({ name, combinator: 'gather', calls } as unknown as SpecNode);
      return;
    }
    if (!inGroup.has(s)) out.push(rewrite(node, renamed) as SpecNode);
  });
  const spec: ComposableToolSpec = { ...forged.spec, steps: out };
  // A gather last: the composite's output is the object of its calls' outputs.
  const lastGroup = groups.find((g) => g[g.length - 1] === steps.length - 1);
  let examples = forged.examples;
  if (lastGroup) {
    const occurrence = shape.occurrences[0];
    const whole = lastGroup.every((m) => occurrence.steps[m].calls.every((call) => Object.hasOwn(call, 'output')));
    examples = examples.map((example) => {
      const { output: _last, ...rest } = example;
      return whole ? { ...rest, output: Object.fromEntries(lastGroup.map((m) => [steps[m].name as string, occurrence.steps[m].calls[0].output])) } : rest;
    });
  }
  return { ...forged, spec, examples };
}

function isPlainCall(node: SpecNode): boolean {
  const record = node as unknown as Record<string, unknown>;
  return typeof record.tool === 'string' && record.combinator === undefined && typeof record.name === 'string';
}

/** The step names a node's references read (`$steps.<name>`). */
function readsOf(node: unknown): Set<string> {
  const names = new Set<string>();
  for (const match of JSON.stringify(node).matchAll(/\$steps\.([A-Za-z0-9_]+)/gu)) names.add(match[1]);
  return names;
}

/** `value` with every reference to a renamed step read through its new place (`$steps.a` → `$steps.gathered.a`). */
function rewrite(value: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (renamed.size === 0) return value;
  if (typeof value === 'string') {
    if (!value.startsWith('$steps.')) return value;
    return value.replace(/^\$steps\.([A-Za-z0-9_]+)(?![A-Za-z0-9_])/u, (whole, name: string) => (renamed.has(name) ? `$steps.${renamed.get(name)!}` : whole));
  }
  if (Array.isArray(value)) return value.map((item) => rewrite(item, renamed));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item, renamed)]));
  return value;
}

function baseName(file: string): string {
  return file.split(/[\\/]/u).pop() ?? file;
}
