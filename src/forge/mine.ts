/**
 * Mining: the chains that repeat. In each session the calls linked by flow (a value copied from an
 * earlier output, or a value an earlier call of another tool was given too) form a chain; calls to one tool, one per item of an
 * earlier list in order, are one for_each step. A chain's signature is its tools in order with
 * how each argument part is built (a constant, a copy from which step and where, a list item);
 * the signatures found in at least `minSessions` sessions are the shapes worth a composite.
 */
import { readOwn } from '../refs/path.js';
import { matchKey, traceFlow, type ArgumentPart, type CallFlow, type FlowSegment } from './flow.js';
import type { CallRecord } from './record-format.js';
import type { RecordedSession } from './read-recordings.js';
import { givenInSeveralSessions, sharedValue, type TracedSession } from './links.js';

/**
 * How one argument part of a step is built.
 *
 * @category Forge: composites from recordings
 */
export type PartConstruction =
  /** A constant: the same everywhere becomes a literal, a varying one an input field. */
  | { kind: 'const' }
  /** One line of an earlier step's text output (no reference reads a line: an input field). */
  | { kind: 'line'; step: number }
  /** A field or item of an earlier step's output (of its item `item`, for a for_each step). */
  | { kind: 'copy'; step: number; item?: number; path: FlowSegment[] }
  /** The value an earlier step was given at `path`. */
  | { kind: 'same'; step: number; path: FlowSegment[] }
  /** In a for_each step: the item (`path` into it). */
  | { kind: 'item'; path: FlowSegment[] };

/**
 * One step of a chain's shape.
 *
 * @category Forge: composites from recordings
 */
export interface StepShape {
  /** The tool. */
  tool: string;
  /** For a for_each step: the list it goes over, in an earlier step's output. */
  forEach?: { step: number; item?: number; path: FlowSegment[] };
  /** Its argument parts, by path, with how each is built. */
  parts: { path: FlowSegment[]; construction: PartConstruction }[];
  /** The tool's declaration as recorded: `false` pure, `true` side-effecting, absent undeclared. */
  hasSideEffects?: boolean;
}

/**
 * One place a shape was seen.
 *
 * @category Forge: composites from recordings
 */
export interface ChainOccurrence {
  /** The session's file. */
  session: string;
  /** Per step: its calls (one, or one per item) and the value of each part (for a for_each step, its first call's). */
  steps: { calls: CallRecord[]; values: unknown[] }[];
}

/**
 * A chain seen in enough sessions.
 *
 * @category Forge: composites from recordings
 */
export interface ChainShape {
  /** Its signature: tools in order, and how each argument part is built. */
  signature: string;
  /** Its steps. */
  steps: StepShape[];
  /** In how many sessions it was seen. */
  sessions: number;
  /** Every place it was seen, in session order. */
  occurrences: ChainOccurrence[];
}

/**
 * Options of {@link mineChains}.
 *
 * @category Forge: composites from recordings
 */
export interface MineOptions {
  /** The fewest sessions a chain must be seen in (default 3). */
  minSessions?: number;
  /** The most steps of a chain (default 16); a longer one is left out. */
  maxSteps?: number;
}

/** Every chain of every session, by signature. */
interface Found {
  steps: StepShape[];
  sessions: Set<string>;
  /** Sessions where it is a whole chain, not only part of a longer one. */
  whole: Set<string>;
  /** Per session where it is only part of longer chains: their signatures. */
  within: Map<string, Set<string>>;
  occurrences: ChainOccurrence[];
}

/**
 * A chain of a session: whole, or a longer chain without some of its last calls (`within`).
 *
 * @category Forge: composites from recordings
 */
export interface SessionChain {
  /** Its signature. */
  signature: string;
  /** Its steps. */
  steps: StepShape[];
  /** Where it was seen. */
  occurrence: ChainOccurrence;
  /** For a part of a longer chain: the signatures of the longer chains of its session it is part of. */
  within?: string[];
}

/** How many calls no other call reads (a noise call that read a chain's output, say) a part of a chain may leave out. */
const MAX_LEFT_OUT = 2;
/** The most parts of one chain counted, and the most calls of a chain whose parts are counted. */
const MAX_PARTS = 64;

/**
 * The chains seen in at least `minSessions` sessions, the most widely seen first.
 *
 * @param sessions - the recordings
 * @param options - the threshold and the bound on steps
 *
 * @category Forge: composites from recordings
 */
export function mineChains(sessions: readonly RecordedSession[], options: MineOptions = {}): ChainShape[] {
  const minSessions = Math.max(1, options.minSessions ?? 3);
  const maxSteps = Math.max(2, options.maxSteps ?? 16);
  const found = new Map<string, Found>();
  const traced = sessions.map((session) => {
    // A run's own record (its script and answer) is not a call of a chain: its calls are recorded each.
    const calls = session.calls.filter((call) => call.ok && call.isRun !== true);
    return { file: session.file, calls, flows: traceFlow(calls) };
  });
  const habits = givenInSeveralSessions(traced);
  for (const session of traced) {
    for (const chain of chainsOf(session, habits, maxSteps)) {
      let entry = found.get(chain.signature);
      if (!entry) {
        entry = { steps: chain.steps, sessions: new Set(), whole: new Set(), within: new Map(), occurrences: [] };
        found.set(chain.signature, entry);
      }
      entry.sessions.add(session.file);
      if (chain.within === undefined) entry.whole.add(session.file);
      else {
        const within = entry.within.get(session.file) ?? new Set<string>();
        for (const longer of chain.within) within.add(longer);
        entry.within.set(session.file, within);
      }
      entry.occurrences.push(chain.occurrence);
    }
  }
  const passes = (signature: string) => (found.get(signature)?.sessions.size ?? 0) >= minSessions;
  const shapes: ChainShape[] = [];
  for (const [signature, entry] of found) {
    if (entry.sessions.size < minSessions) continue;
    // A part of longer chains that are forged themselves, in every session it is seen in, adds nothing.
    const own = [...entry.sessions].some((session) => entry.whole.has(session) || ![...(entry.within.get(session) ?? [])].some(passes));
    if (own) shapes.push({ signature, steps: entry.steps, sessions: entry.sessions.size, occurrences: entry.occurrences });
  }
  return shapes.sort((a, b) => b.sessions - a.sessions || a.signature.localeCompare(b.signature));
}

/**
 * The chains of one session: its successful calls grouped by flow, each of two steps or more; and
 * the parts of each without up to two calls that no other call of it reads (so a call that read a
 * chain's output and fed nothing, noise to the task, does not hide the chain), each once.
 */
function chainsOf(session: TracedSession, habits: ReadonlySet<string>, maxSteps = 16): SessionChain[] {
  const { calls, flows } = session;
  // Both kinds of link join calls: a value copied from an earlier output, and a value shared with
  // an earlier call of another tool, unless that value is a habit. A value too common to tell (a
  // flag, a small number, one character) is never a source: see traceFlow. Inside a chain, any
  // value given again is still kept as the same value (`same`).
  const links = (part: ArgumentPart, call: number): boolean =>
    part.from !== undefined && (part.from.kind !== 'arg' || (sharedValue(part, call, calls) && !habits.has(matchKey(part.value) ?? '')));
  const parent = calls.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const flow of flows) {
    for (const part of flow.parts) if (links(part, flow.call)) parent[root(flow.call)] = root(part.from!.call);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < calls.length; i++) {
    const r = root(i);
    const members = groups.get(r);
    if (members) members.push(i);
    else groups.set(r, [i]);
  }
  const sources = flows.map((flow) => new Set(flow.parts.flatMap((part) => (links(part, flow.call) ? [part.from!.call] : []))));
  const chains: SessionChain[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const chain = shapeOf(members, calls, flows, session.file);
    if (chain.steps.length >= 2 && chain.steps.length <= maxSteps) chains.push(chain);
    if (members.length > MAX_PARTS) continue;
    const seen = new Set([chain.signature]);
    const made: { calls: Set<number>; signature: string }[] = [{ calls: new Set(members), signature: chain.signature }];
    for (const part of partsOf(members, sources)) {
      const shorter = shapeOf(part, calls, flows, session.file);
      made.push({ calls: new Set(part), signature: shorter.signature });
      if (seen.has(shorter.signature) || shorter.steps.length < 2 || shorter.steps.length > maxSteps) continue;
      seen.add(shorter.signature);
      // Every longer chain of this group that holds all its calls.
      const within = made.filter((other) => other.calls.size > part.length && part.every((call) => other.calls.has(call))).map((other) => other.signature);
      chains.push({ ...shorter, within });
    }
  }
  // In the order the chains started.
  return chains.sort((a, b) => a.occurrence.steps[0].calls[0].seq - b.occurrence.steps[0].calls[0].seq);
}

/**
 * The connected parts of a chain left when up to {@link MAX_LEFT_OUT} calls that no other call of
 * it reads are taken out, one after another; at most {@link MAX_PARTS}.
 */
function partsOf(members: readonly number[], sources: readonly Set<number>[]): number[][] {
  const parts: number[][] = [];
  const tried = new Set<string>();
  let level: number[][] = [[...members]];
  for (let left = 0; left < MAX_LEFT_OUT && parts.length < MAX_PARTS; left++) {
    const next: number[][] = [];
    for (const set of level) {
      const read = new Set(set.flatMap((call) => [...sources[call]]));
      for (const leaf of set) {
        if (read.has(leaf)) continue;
        const part = set.filter((call) => call !== leaf);
        const key = part.join(',');
        if (part.length < 2 || tried.has(key) || !connected(part, sources)) continue;
        tried.add(key);
        parts.push(part);
        next.push(part);
        if (parts.length >= MAX_PARTS) return parts;
      }
    }
    level = next;
  }
  return parts;
}

/** Whether the calls are linked into one chain by their own copies. */
function connected(calls: readonly number[], sources: readonly Set<number>[]): boolean {
  const inside = new Set(calls);
  const reached = new Set([calls[0]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const call of calls) {
      if (reached.has(call)) continue;
      if ([...sources[call]].some((source) => inside.has(source) && reached.has(source)) || calls.some((other) => reached.has(other) && sources[other].has(call))) {
        reached.add(call);
        grew = true;
      }
    }
  }
  return reached.size === calls.length;
}

/**
 * One chain's steps, occurrence and signature: `members` (places in `calls`, in order) as steps,
 * a run of calls over every item of an earlier list as one for_each step.
 */
export function shapeOf(members: readonly number[], calls: readonly CallRecord[], flows: readonly CallFlow[], file: string): { signature: string; steps: StepShape[]; occurrence: ChainOccurrence } {
  const stepOf = new Map<number, { step: number; item?: number }>();
  const steps: StepShape[] = [];
  const occurrence: ChainOccurrence = { session: file, steps: [] };
  for (let i = 0; i < members.length; ) {
    const call = members[i];
    const parts = sortedParts(flows[call].parts);
    const step = steps.length;
    const each = forEachRun(members, i, calls, flows);
    const record = calls[call];
    if (each) {
      const run = members.slice(i, i + each.length);
      run.forEach((member, item) => stepOf.set(member, { step, item }));
      const source = stepOf.get(each.source)!;
      steps.push({
        tool: record.tool,
        forEach: { step: source.step, ...(source.item !== undefined ? { item: source.item } : {}), path: each.prefix },
        parts: parts.map((part, p) => ({ path: part.path, construction: p === each.part ? { kind: 'item', path: each.rest } : construct(part, stepOf, steps) })),
        ...(record.hasSideEffects !== undefined ? { hasSideEffects: record.hasSideEffects } : {}),
      });
      occurrence.steps.push({ calls: run.map((member) => calls[member]), values: parts.map((part) => part.value) });
      i += each.length;
      continue;
    }
    stepOf.set(call, { step });
    steps.push({ tool: record.tool, parts: parts.map((part) => ({ path: part.path, construction: construct(part, stepOf, steps) })), ...(record.hasSideEffects !== undefined ? { hasSideEffects: record.hasSideEffects } : {}) });
    occurrence.steps.push({ calls: [record], values: parts.map((part) => part.value) });
    i++;
  }
  return { signature: steps.map(signatureOf).join(' > '), steps, occurrence };
}

/** Parts in a fixed order (by path), so the parts of two occurrences line up. */
function sortedParts(parts: readonly ArgumentPart[]): ArgumentPart[] {
  return [...parts].sort((a, b) => pathText(a.path).localeCompare(pathText(b.path)));
}

function construct(part: ArgumentPart, stepOf: ReadonlyMap<number, { step: number; item?: number }>, steps: readonly StepShape[]): PartConstruction {
  const from = part.from;
  const source = from ? stepOf.get(from.call) : undefined;
  if (!from || !source) return { kind: 'const' };
  if (from.kind === 'line') return { kind: 'line', step: source.step };
  if (from.kind === 'output') return { kind: 'copy', step: source.step, ...(source.item !== undefined ? { item: source.item } : {}), path: from.path };
  // The same value as an argument of an earlier step: only a plain step's argument can be named again.
  if (steps[source.step]?.forEach) return { kind: 'const' };
  return { kind: 'same', step: source.step, path: from.path };
}

/**
 * Whether the calls from `members[start]` are one call per item of an earlier list: the same
 * tool, one part copied from item 0, 1, ... of one list in one earlier output (every item, in
 * order, at least two), the other parts built alike with the same values.
 */
function forEachRun(members: readonly number[], start: number, calls: readonly CallRecord[], flows: readonly CallFlow[]): { length: number; source: number; prefix: FlowSegment[]; rest: FlowSegment[]; part: number } | undefined {
  const first = sortedParts(flows[members[start]].parts);
  for (let p = 0; p < first.length; p++) {
    const from = first[p].from;
    if (from?.kind !== 'output') continue;
    const at = from.path.findIndex((segment, q) => segment === 0 && Array.isArray(valueAt(calls[from.call].output, from.path.slice(0, q))));
    if (at < 0) continue;
    const prefix = from.path.slice(0, at);
    const rest = from.path.slice(at + 1);
    const list = valueAt(calls[from.call].output, prefix) as unknown[];
    let length = 1;
    while (length < list.length && start + length < members.length) {
      const next = members[start + length];
      if (calls[next].tool !== calls[members[start]].tool) break;
      const parts = sortedParts(flows[next].parts);
      if (!sameButItem(first, parts, p, from.call, [...prefix, length, ...rest])) break;
      length++;
    }
    if (length === list.length && length >= 2) return { length, source: from.call, prefix, rest, part: p };
  }
  return undefined;
}

/** The parts match `first` but for part `p`, which is the output of `source` at `itemPath`. */
function sameButItem(first: readonly ArgumentPart[], parts: readonly ArgumentPart[], p: number, source: number, itemPath: FlowSegment[]): boolean {
  if (parts.length !== first.length) return false;
  for (let q = 0; q < parts.length; q++) {
    if (pathText(parts[q].path) !== pathText(first[q].path)) return false;
    const from = parts[q].from;
    if (q === p) {
      if (from?.kind !== 'output' || from.call !== source || pathText(from.path) !== pathText(itemPath)) return false;
    } else if (JSON.stringify(from ?? null) !== JSON.stringify(first[q].from ?? null) || (!from && JSON.stringify(parts[q].value) !== JSON.stringify(first[q].value))) {
      return false;
    }
  }
  return true;
}

/** The value at `path` in `root`, or undefined. */
export function valueAt(root: unknown, path: readonly FlowSegment[]): unknown {
  let value = root;
  for (const segment of path) value = readOwn(value, segment);
  return value;
}

/** A path as a reference writes it after its root: `.files[0]["odd key"]`. */
export function pathText(path: readonly FlowSegment[]): string {
  return path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : /^[A-Za-z_][A-Za-z0-9_]*$/u.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`)).join('');
}

function signatureOf(step: StepShape): string {
  const each = step.forEach ? `each(#${step.forEach.step}${step.forEach.item !== undefined ? `[${step.forEach.item}]` : ''}${pathText(step.forEach.path)}) ` : '';
  const parts = step.parts.map((part) => `${pathText(part.path) || '.'}=${constructionText(part.construction)}`).join(',');
  return `${each}${step.tool}(${parts})`;
}

function constructionText(construction: PartConstruction): string {
  switch (construction.kind) {
    case 'const':
      return 'C';
    case 'line':
      return `L#${construction.step}`;
    case 'copy':
      return `#${construction.step}${construction.item !== undefined ? `[${construction.item}]` : ''}${pathText(construction.path)}`;
    case 'same':
      return `&${construction.step}${pathText(construction.path)}`;
    case 'item':
      return `*${pathText(construction.path)}`;
  }
}
