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
  /** How many more sources there were than `sources` lists. */
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

/** The label of data from no call and no one untrusted: literals the host wrote, the user's own words. */
export const TRUSTED: Label = Object.freeze({ trusted: true, sources: Object.freeze([]) });

/** The label of the output of `tool` called at `step`. */
export function sourceLabel(tool: string, step: string, trusted: boolean, readers?: readonly string[]): Label {
  const label: Label = { trusted, sources: [{ tool, step }], ...(readers !== undefined ? { readers: [...readers] } : {}) };
  return label;
}

/** The label of a value built from `a` and `b`. */
export function joinLabels(a: Label, b: Label): Label {
  if (a === b || isNeutral(b)) return a;
  if (isNeutral(a)) return b;
  const trusted = a.trusted && b.trusted;
  const sources = a.sources.slice();
  let more = (a.moreSources ?? 0) + (b.moreSources ?? 0);
  for (const source of b.sources) {
    if (sources.some((s) => s.tool === source.tool && s.step === source.step)) continue;
    if (sources.length < MAX_LABEL_SOURCES) sources.push(source);
    else more++;
  }
  const readers = joinReaders(a.readers, b.readers);
  return { trusted, sources, ...(more > 0 ? { moreSources: more } : {}), ...(readers !== undefined ? { readers } : {}) };
}

/** A label that adds nothing when joined: trusted, from no source, readable by anyone. */
function isNeutral(label: Label): boolean {
  return label.trusted && label.sources.length === 0 && label.readers === undefined && label.moreSources === undefined;
}

/** Who may read a value built from data readable by `a` and by `b`: those in both (absent: anyone). */
function joinReaders(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.filter((reader) => b.includes(reader));
}

/** Whether `value` is a label this library made or one read back from a journal (a plain object of the same shape). */
export function isLabel(value: unknown): value is Label {
  if (typeof value !== 'object' || value === null) return false;
  const { trusted, sources } = value as Partial<Label>;
  return typeof trusted === 'boolean' && Array.isArray(sources);
}
