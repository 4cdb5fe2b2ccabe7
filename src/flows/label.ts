/**
 * Labels: where a value's data came from. A label says whether the value is trusted (built only
 * from the user's own words and from tools the host trusts) and which calls produced it, and may
 * say who may read it. Joining two labels gives the label of a value built from both: trusted only
 * if both are, from both sets of sources, readable only by whoever may read both.
 */

/**
 * A call a value's data came from.
 *
 * @category Untrusted data
 */
export interface LabelSource {
  /** The tool that produced it. */
  tool: string;
  /** The step that called it (its name, its place, or `call N` in a script). */
  step: string;
}

/**
 * Where a value came from.
 *
 * @category Untrusted data
 */
export interface Label {
  /** Built only from trusted data: the user's words and outputs of tools the host trusts. */
  readonly trusted: boolean;
  /** The calls it came from, at most {@link MAX_LABEL_SOURCES} (see {@link Label.moreSources}). */
  readonly sources: readonly LabelSource[];
  /**
   * How many more sources it was built from than `sources` lists. A label made in this process
   * remembers the first few dozen of them, so a source read again is counted once; past those, and
   * in a label read back from a journal, the count is an estimate: a join counts the larger of its
   * two labels' counts and each source of the one it cannot find in what the other remembers
   * (which may be among the other's uncounted ones).
   */
  readonly moreSources?: number;
  /** Who may read it (absent: anyone). */
  readonly readers?: readonly string[];
}

/**
 * The most sources one label lists: a value built from many calls names the first ones and counts
 * the rest, so a label stays small however long a run is.
 *
 * @category Untrusted data
 */
export const MAX_LABEL_SOURCES = 16;

/**
 * The most sources past its list a label made here remembers, to tell a source it has already
 * counted from a new one: a run or a session that reads the same calls again (a composite called
 * at every turn) then counts them once, and its label stops changing.
 */
const MAX_BEYOND = 48;

/**
 * A label this process made. Each knows the two labels it was joined from (by number, so it keeps
 * neither alive), which makes joining a label with one it already contains, as a run's label is
 * joined with every output built on the last, cost a comparison. Only these carry numbers: a label
 * read back from a journal is a plain object, and is joined in full.
 */
class MadeLabel implements Label {
  /** This label's number, unique in the process. */
  readonly id: number;
  constructor(
    readonly trusted: boolean,
    readonly sources: readonly LabelSource[],
    /** Sources past `sources`, at most {@link MAX_BEYOND}: counted in `moreSources`, never listed. */
    readonly beyond: readonly LabelSource[],
    /** How many sources past `beyond` it was built from (an estimate, as `moreSources` says). */
    readonly uncounted: number,
    readonly readers: readonly string[] | undefined,
    /** The numbers of the labels it was joined from (0: none). */
    readonly left: number,
    readonly right: number,
    /** Every source is the one object {@link sourceLabel} keeps for its call: compared by identity alone. */
    readonly unique: boolean,
  ) {
    this.id = ++made;
  }

  get moreSources(): number | undefined {
    const more = this.beyond.length + this.uncounted;
    return more > 0 ? more : undefined;
  }

  /** Written as the interface says, without what means nothing to another process. */
  toJSON(): Label {
    const more = this.moreSources;
    return {
      trusted: this.trusted,
      sources: this.sources,
      ...(more !== undefined ? { moreSources: more } : {}),
      ...(this.readers !== undefined ? { readers: this.readers } : {}),
    };
  }
}

const NONE: readonly LabelSource[] = Object.freeze([]);

/** How many labels this process has made: the last one's number. */
let made = 0;

/** The label of data from no call and no one untrusted: literals the host wrote, the user's own words. */
export const TRUSTED: Label = Object.freeze(new MadeLabel(true, NONE, NONE, 0, undefined, 0, 0, true));

/**
 * The sources {@link sourceLabel} named, by tool and step, with the label it made for each, trusted
 * and not: one object per call site, so joins compare sources by identity (and a run's calls of
 * one site share one label). At most {@link MAX_KEPT} are kept; past that, new ones are made
 * afresh and compared by name.
 */
const KEPT = new Map<string, Map<string, KeptSource>>();
const MAX_KEPT = 10_000;
let kept = 0;

interface KeptSource {
  source: LabelSource;
  /** The label it was named in, untrusted and trusted, without readers. */
  labels: [MadeLabel | undefined, MadeLabel | undefined];
}

/** The label of the output of `tool` called at `step`. */
export function sourceLabel(tool: string, step: string, trusted: boolean, readers?: readonly string[]): Label {
  let bySteps = KEPT.get(tool);
  let known = bySteps?.get(step);
  if (known === undefined && kept < MAX_KEPT) {
    kept++;
    if (bySteps === undefined) KEPT.set(tool, (bySteps = new Map()));
    bySteps.set(step, (known = { source: { tool, step }, labels: [undefined, undefined] }));
  }
  if (known === undefined) return new MadeLabel(trusted, [{ tool, step }], NONE, 0, readers !== undefined ? [...readers] : undefined, 0, 0, false);
  if (readers !== undefined) return new MadeLabel(trusted, [known.source], NONE, 0, [...readers], 0, 0, true);
  const at = trusted ? 1 : 0;
  return (known.labels[at] ??= new MadeLabel(trusted, [known.source], NONE, 0, undefined, 0, 0, true));
}

/** The label of a value built from `a` and `b`. */
export function joinLabels(a: Label, b: Label): Label {
  if (a === b || isNeutral(b)) return a;
  if (isNeutral(a)) return b;
  if (a instanceof MadeLabel && b instanceof MadeLabel) {
    // One joined from the other holds all the other says.
    if (a.left === b.id || a.right === b.id) return a;
    if (b.left === a.id || b.right === a.id) return b;
  }
  // The longer first, of two as long the one counting more past its list: each source of the
  // other is looked for in it.
  const aFirst = a.sources.length > b.sources.length || (a.sources.length === b.sources.length && (a.moreSources ?? 0) >= (b.moreSources ?? 0));
  return aFirst ? merged(a, b, a, b) : merged(a, b, b, a);
}

function merged(a: Label, b: Label, long: Label, short: Label): Label {
  const unique = a instanceof MadeLabel && b instanceof MadeLabel && a.unique && b.unique;
  const longBeyond = beyondOf(long);
  let sources = long.sources;
  let beyond = longBeyond;
  // The larger count, not the sum: two labels that each count the same sources past what they
  // remember (a session's and a run's built on it) would double it at every join.
  let uncounted = Math.max(uncountedOf(a), uncountedOf(b));
  const add = (source: LabelSource): void => {
    if (has(sources, source, unique) || has(beyond, source, unique)) return;
    // Copied only when a source is added: a full list is shared by every label built on it.
    if (sources.length < MAX_LABEL_SOURCES) {
      if (sources === long.sources) sources = sources.slice();
      (sources as LabelSource[]).push(source);
    } else if (beyond.length < MAX_BEYOND) {
      if (beyond === longBeyond) beyond = beyond.slice();
      (beyond as LabelSource[]).push(source);
    } else uncounted++;
  };
  for (const source of short.sources) add(source);
  for (const source of beyondOf(short)) add(source);
  const trusted = a.trusted && b.trusted;
  const readers = joinReaders(a.readers, b.readers);
  // The longer says all the shorter adds (as a run's label does of each step's output built on it,
  // and a session's of a run that read only what it had): that label, not a copy, so the next
  // join with one built on it costs a comparison, and a run makes no label per step.
  if (sources === long.sources && beyond === longBeyond && trusted === long.trusted && readers === long.readers && uncounted === uncountedOf(long)) return long;
  return new MadeLabel(trusted, sources, beyond, uncounted, readers, idOf(a), idOf(b), unique);
}

/** The sources past its list `label` remembers (a label read back from a journal remembers none). */
function beyondOf(label: Label): readonly LabelSource[] {
  return label instanceof MadeLabel ? label.beyond : NONE;
}

/** How many sources past those it remembers `label` counts. */
function uncountedOf(label: Label): number {
  return label instanceof MadeLabel ? label.uncounted : (label.moreSources ?? 0);
}

function idOf(label: Label): number {
  return label instanceof MadeLabel ? label.id : 0;
}

/** Whether `sources` names `source`: the same object, as joins pass them on, or (unless every source is `unique`) the same call. */
function has(sources: readonly LabelSource[], source: LabelSource, unique: boolean): boolean {
  for (let i = 0; i < sources.length; i++) if (sources[i] === source) return true;
  if (unique) return false;
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i];
    if (s.tool === source.tool && s.step === source.step) return true;
  }
  return false;
}

/** Whether `label` adds nothing when joined: trusted, from no source, readable by anyone. */
export function isNeutral(label: Label): boolean {
  return label === TRUSTED || (label.trusted && label.sources.length === 0 && label.readers === undefined && label.moreSources === undefined);
}

/** Who may read a value built from data readable by `a` and by `b`: those in both (absent: anyone). */
function joinReaders(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.filter((reader) => b.includes(reader));
}
