/**
 * Observations keep the label of what they hold. A large output stored by `withObservations` is
 * stored with its output label, as the gate made it for the call; the library's own
 * `get_observation` tells the gate the labels of what it read back, and the gate labels its output
 * with them (joined with its arguments' and what decided the call), not as its own output: a text
 * an untrusted tool wrote stays untrusted however often it is stored and read, and keeps its
 * sources.
 *
 * Both hand-offs ride on a copy of the context the gate runs the tool with, known by identity in
 * a map of this module: nothing a model writes or a tool returns can make one, and a tool that
 * reads its context sees none of them. Which tools take part is said by marks only this module
 * sets (by what the tool is, never by its name: a host's own tool called `get_observation` is
 * judged as any other tool).
 */
import type { ITool, ToolExecutionContext } from '../tool.js';
import { joinLabels, sourceLabel, TRUSTED, type Label } from './label.js';
import { readStoredLabel } from './stored-labels.js';

/**
 * What part a tool takes, as bits of one mark (one lookup per call tells both): it stores its
 * output with the label the gate hands it (a `withObservations` wrapper), it is the library's own
 * `get_observation` (whose output the gate labels by what it read), or both (a wrapper of it).
 */
const ROLE: unique symbol = Symbol('toolweave.observationRole');
/** The role bit of a tool that stores its output with its label. */
export const STORES_LABELS = 1;
/** The role bit of the library's own `get_observation`. */
export const READS_OBSERVATIONS = 2;

/**
 * Add `role` to `tool`'s mark. The mark is an enumerable own property, so a copy of the tool
 * (`{ ...tool }`) carries it too: a copy that runs the original with the context it was given
 * stores the label, and one that changes the context stores none, which reads back as untrusted.
 */
function mark(tool: object, role: number): void {
  Object.defineProperty(tool, ROLE, { value: observationRole(tool as ITool) | role, enumerable: true, writable: true, configurable: true });
}

/** Mark `tool` as one that stores its output with the label the gate hands it. */
export function markStoresLabels(tool: object): void {
  mark(tool, STORES_LABELS);
}

/** Mark `tool` as the library's own `get_observation` (its copies carry the mark, as above). */
export function markReadsObservations(tool: object): void {
  mark(tool, READS_OBSERVATIONS);
}

/** The role bits of `tool` (0: it takes no part, as almost every tool). */
export function observationRole(tool: ITool): number {
  const role = (tool as { [ROLE]?: unknown })[ROLE];
  return typeof role === 'number' ? role : 0;
}

/** Whether `tool` is the library's own `get_observation`, whose output the gate labels by what it read. */
export function readsObservations(tool: ITool): boolean {
  return (observationRole(tool) & READS_OBSERVATIONS) !== 0;
}

/**
 * The label of a call's output, from what the tool answered: a door labels its own result, so the
 * label of a composition is known only once it has answered.
 */
export type OutputLabeller = (result: unknown) => Label;

/** What one run of get_observation read: the join of the stored labels, once the tool has said. */
export class StoredReads {
  /** Whether the tool said what it read (a tool that never does is taken to have read untrusted data). */
  vouched = false;
  /** The join of the labels of every observation read so far. */
  label: Label = TRUSTED;
}

/** What the gate handed one call's tool, by the context copy it ran with. */
interface Handed {
  readonly labeller: OutputLabeller | undefined;
  readonly reads: StoredReads | undefined;
}

const HANDED = new WeakMap<object, Handed>();

/**
 * A copy of `context` for the tool to run with, that hands a tool that stores its output its
 * output's label (`labeller`), and lets one that {@link readsObservations} say what it read (into
 * `reads`).
 */
export function handLabels(context: ToolExecutionContext, labeller: OutputLabeller | undefined, reads: StoredReads | undefined): ToolExecutionContext {
  const copy = { ...context };
  HANDED.set(copy, { labeller, reads });
  return copy;
}

/**
 * The label to store with `result`, the output of a call made with `context`, as plain JSON (the
 * form the run journal keeps labels in); `undefined` when the gate handed none (a call outside a
 * gate with `flows`), and the observation is then read back as untrusted.
 */
export function outputLabelToStore(context: ToolExecutionContext, result: unknown): unknown {
  const labeller = HANDED.get(context)?.labeller;
  return labeller === undefined ? undefined : (JSON.parse(JSON.stringify(labeller(result))) as unknown);
}

/**
 * The reads of the get_observation call made with `context`, vouched for: from here the tool
 * answers for what it reads (none yet: trusted). `undefined` outside a gate with `flows`.
 */
export function storedReadsOf(context: ToolExecutionContext): StoredReads | undefined {
  const reads = HANDED.get(context)?.reads;
  if (reads !== undefined) reads.vouched = true;
  return reads;
}

/**
 * The call read an observation stored with `stored` (as the store gave it back) from `tool`: the
 * label it was stored with, or, when that is missing or malformed, untrusted data from that tool
 * that no one may read.
 */
export function noteStoredRead(reads: StoredReads, stored: unknown, tool: string | undefined): void {
  // Without its label, who may read it is unknown too: readable by no one.
  reads.label = joinLabels(reads.label, readStoredLabel(stored) ?? sourceLabel(tool ?? 'get_observation', '(stored without a label)', false, []));
}

/** The label of what a get_observation call read, by what it said: untrusted when it said nothing. */
export function labelOfReads(reads: StoredReads | undefined): Label {
  return reads !== undefined && reads.vouched ? reads.label : UNVOUCHED;
}

const UNVOUCHED: Label = sourceLabel('get_observation', '(read not labelled)', false, []);

