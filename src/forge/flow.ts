/**
 * Flow: for each recorded call, which parts of its arguments (down to nested fields and list
 * items) were copied from an earlier call's output, which repeat an earlier call's argument, and
 * which are constants. Found by value: every output of the session is indexed as it ends (a JSON
 * output by field and item, a text output whole and by line), and each argument value is looked up.
 */
import type { CallRecord } from './record-format.js';

/**
 * One step of a path into arguments or an output: a property name or a list index.
 *
 * @category Forge: composites from recordings
 */
export type FlowSegment = string | number;

/**
 * Where a copied value came from.
 *
 * @category Forge: composites from recordings
 */
export type FlowSource =
  /** A field or item of an earlier call's output (`path` empty: the whole output). */
  | { kind: 'output'; call: number; path: FlowSegment[] }
  /** One line of an earlier call's text output. */
  | { kind: 'line'; call: number; line: number }
  /** An earlier call's argument: the same value given twice. */
  | { kind: 'arg'; call: number; path: FlowSegment[] };

/**
 * One part of a call's arguments: a leaf value, or a list or object taken whole.
 *
 * @category Forge: composites from recordings
 */
export interface ArgumentPart {
  /** Where it is in the arguments. */
  path: FlowSegment[];
  /** Its value. */
  value: unknown;
  /** Where it was copied from; absent: a constant. */
  from?: FlowSource;
}

/**
 * The flow into one call.
 *
 * @category Forge: composites from recordings
 */
export interface CallFlow {
  /** The call's place in the list given. */
  call: number;
  /** Its argument parts, in the order of the arguments. */
  parts: ArgumentPart[];
}

/** The most values indexed of one output, and the most lines of one text output. */
const MAX_INDEXED_VALUES = 20_000;
/** How deep an output or the arguments are walked. */
const MAX_DEPTH = 24;

/**
 * The key a value is matched by, or `undefined` for a value too common to say it was copied
 * (booleans, null, one-character strings, small integers).
 */
export function matchKey(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length >= 2 ? `s${value}` : undefined;
  if (typeof value === 'number') return Number.isFinite(value) && (!Number.isInteger(value) || Math.abs(value) >= 10) ? `n${value}` : undefined;
  return undefined;
}

/**
 * The flow into each of `calls` (one session's, in order).
 *
 * Only successful calls' outputs are
 * sources; of several, the latest is taken, a field or item before a line, a line before an
 * argument given earlier.
 *
 * @param calls - one session's calls
 *
 * @category Forge: composites from recordings
 */
export function traceFlow(calls: readonly CallRecord[]): CallFlow[] {
  const outputs = new Map<string, FlowSource>();
  const lines = new Map<string, FlowSource>();
  const args = new Map<string, FlowSource>();
  const flows: CallFlow[] = [];
  for (let call = 0; call < calls.length; call++) {
    const record = calls[call];
    const parts: ArgumentPart[] = [];
    const lookup = (value: unknown): FlowSource | undefined => {
      const key = matchKey(value);
      return key === undefined ? undefined : (outputs.get(key) ?? lines.get(key) ?? args.get(key));
    };
    argumentParts(record.args, [], lookup, parts, 0);
    flows.push({ call, parts });
    for (const part of parts) {
      const key = matchKey(part.value);
      if (key !== undefined) args.set(key, { kind: 'arg', call, path: part.path });
    }
    if (record.ok) indexOutput(record, call, outputs, lines);
  }
  return flows;
}

/** Add the parts of `value` at `path`; a list none of whose items was copied from an output is one part. */
function argumentParts(value: unknown, path: FlowSegment[], lookup: (value: unknown) => FlowSource | undefined, parts: ArgumentPart[], depth: number): void {
  const isList = Array.isArray(value);
  const isObject = !isList && typeof value === 'object' && value !== null;
  if ((!isList && !isObject) || depth >= MAX_DEPTH) {
    const from = lookup(value);
    parts.push({ path, value, ...(from ? { from } : {}) });
    return;
  }
  const entries: [FlowSegment, unknown][] = isList ? (value as unknown[]).map((item, i) => [i, item]) : Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) {
    parts.push({ path, value });
    return;
  }
  const inner: ArgumentPart[] = [];
  for (const [segment, item] of entries) argumentParts(item, [...path, segment], lookup, inner, depth + 1);
  // A list given as constants (or as an earlier call's arguments) varies as a whole: one part.
  if (isList && !inner.some((part) => part.from && part.from.kind !== 'arg')) {
    parts.push({ path, value });
    return;
  }
  parts.push(...inner);
}

/** Index a successful call's output: JSON by field and item, text whole and by line. */
function indexOutput(record: CallRecord, call: number, outputs: Map<string, FlowSource>, lines: Map<string, FlowSource>): void {
  if (record.outputCut !== undefined) {
    // Only whole lines of a cut output are known.
    const text = record.outputCut;
    indexLines(text.slice(0, Math.max(0, text.lastIndexOf('\n'))), call, lines);
    return;
  }
  if (typeof record.output === 'string') {
    const key = matchKey(record.output);
    if (key !== undefined) outputs.set(key, { kind: 'output', call, path: [] });
    indexLines(record.output, call, lines);
    return;
  }
  let budget = MAX_INDEXED_VALUES;
  const walk = (value: unknown, path: FlowSegment[], depth: number): void => {
    if (budget-- <= 0) return;
    if (Array.isArray(value)) {
      if (depth < MAX_DEPTH) value.forEach((item, i) => walk(item, [...path, i], depth + 1));
      return;
    }
    if (typeof value === 'object' && value !== null) {
      if (depth < MAX_DEPTH) for (const [name, item] of Object.entries(value)) walk(item, [...path, name], depth + 1);
      return;
    }
    const key = matchKey(value);
    if (key !== undefined) outputs.set(key, { kind: 'output', call, path });
  };
  walk(record.output, [], 0);
}

function indexLines(text: string, call: number, lines: Map<string, FlowSource>): void {
  if (!text.includes('\n')) return;
  let line = 0;
  let start = 0;
  while (start <= text.length && line < MAX_INDEXED_VALUES) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const key = matchKey(text.slice(start, end).replace(/\r$/u, ''));
    if (key !== undefined) lines.set(key, { kind: 'line', call, line });
    line++;
    start = end + 1;
  }
}
