/**
 * What a script's value may have been built from, as the analysis of a `run_js` script sees it:
 * a set of sources, each the answer of one call site of the script, whole or at a path of the
 * tool's output. The set is what the host turns into a label at run time, from the labels of the
 * answers each site has had. Nothing here knows a label; it is the static half.
 *
 * A source's `form` says what of the answer the value is: the `{ text, error }` object `callTool`
 * resolves to (`answer`), its `text` (`text`), the tool's output itself (`value`, which
 * `JSON.parse` of the text gives, and `tools.<name>()` resolves to), or only which fields and items
 * the output has at its path (`own`: what decides how often a loop over it runs). An `exact`
 * source is the value found at `path`, so reading a field narrows it; any other source stands for
 * a value built from all of what is at its path (and reading a field of it is as much).
 */

import { GiveUp } from './script-model.js';

/** One source: the answer of site `site`, at `path` of its output. */
export interface Source {
  /** The call site, numbered from 0 in the order the sites appear in the script. */
  readonly site: number;
  /** What of the answer: see the module comment. */
  readonly form: 'answer' | 'text' | 'value' | 'own';
  /** The value is what is found at `path` (else: built from all of it). */
  readonly exact: boolean;
  /** Field names and item positions into the output (`*`: any item or field); empty unless `form` is `value`. */
  readonly path: readonly string[];
  /** The source written as text: equal sources have equal keys. */
  readonly key: string;
}

/** A set of sources, sorted by key, each site's together. */
export type Deps = readonly Source[];

/** The empty set: built from nothing the script received (its own text). */
export const NONE: Deps = Object.freeze([]);

/** The longest path followed; past it, a value stands for all that is under the path. */
const MAX_PATH = 6;

/** The most sources of one site a set keeps; past them, the site's whole answer stands for them. */
const MAX_PER_SITE = 8;

/**
 * The most work one analysis may do, in sources made and merged (a pass over the script counts as
 * many as it has characters): the analysis runs on the host's thread, so a script built to make it
 * slow gives up (and runs with one label for all it reads) after some tens of milliseconds at most.
 * The scripts a model writes use a few thousand.
 */
const MAX_WORK = 400_000;

/** Stands for any item or field (an index the analysis cannot read). */
export const ANY_PART = '*';

/**
 * The sources of one analysis, made once each (so sets compare them by identity), and the
 * operations on sets of them.
 */
export class SourceTable {
  private readonly known = new Map<string, Source>();
  /** The work done so far (see {@link MAX_WORK}). */
  private spent = 0;

  /** Count `units` of work; past the budget, the analysis gives up. */
  spend(units: number): void {
    this.spent += units;
    if (this.spent > MAX_WORK) throw new GiveUp('the script takes too long to analyse');
  }

  /** The source of `site`'s answer, as `form`, at `path`. */
  source(site: number, form: Source['form'], exact: boolean, path: readonly string[] = []): Source {
    this.spend(8);
    const kept = path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path;
    const isExact = exact && kept.length === path.length;
    // The site's number ends at the first separator, so each site's keys sort together.
    const key = `${site}\u0001${form}\u0001${isExact ? 'e' : 'f'}\u0001${kept.join('\u0001')}`;
    let found = this.known.get(key);
    if (found === undefined) this.known.set(key, (found = Object.freeze({ site, form, exact: isExact, path: Object.freeze([...kept]), key })));
    return found;
  }

  /** The whole answer of `site`. */
  whole(site: number): Source {
    return this.source(site, 'value', false);
  }

  /** The set of the one source `source`. */
  of(source: Source): Deps {
    return [source];
  }

  /** The union of `a` and `b`; `a` itself when `b` adds nothing (callers compare by identity to see a change). */
  join(a: Deps, b: Deps): Deps {
    if (b.length === 0 || a === b) return a;
    if (a.length === 0) return b;
    this.spend(a.length + b.length);
    const merged: Source[] = [];
    let i = 0;
    let j = 0;
    let added = false;
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i].key < b[j].key)) merged.push(a[i++]);
      else if (i >= a.length || b[j].key < a[i].key) {
        merged.push(b[j++]);
        added = true;
      } else {
        merged.push(a[i++]);
        j++;
      }
    }
    if (!added) return a;
    const normal = this.normalize(merged);
    return normal.length === a.length && normal.every((s, k) => s === a[k]) ? a : normal;
  }

  /** The sources of a field `segment` of a value built from `d`: an exact source narrows; any other stays. */
  narrow(d: Deps, segment: string): Deps {
    let out: Deps = NONE;
    for (const s of d) out = this.join(out, this.of(this.narrowed(s, segment)));
    return out;
  }

  private narrowed(s: Source, segment: string): Source {
    if (!s.exact) return this.flatOne(s);
    if (s.form === 'answer') return segment === 'text' ? this.source(s.site, 'text', true) : this.whole(s.site);
    if (s.form === 'text') return this.whole(s.site);
    return this.source(s.site, 'value', true, [...s.path, segment]);
  }

  /** The sources of a value built from all of `d` (a copy, a count, a string made of it). */
  flat(d: Deps): Deps {
    if (d.every((s) => !s.exact)) return d;
    let out: Deps = NONE;
    for (const s of d) out = this.join(out, this.of(this.flatOne(s)));
    return out;
  }

  /**
   * What decides which items a value built from `d` has (how often a loop over it runs): for a
   * value found at a path of an output, the output's own labels down to it.
   */
  own(d: Deps): Deps {
    let out: Deps = NONE;
    for (const s of d) out = this.join(out, this.of(s.exact && s.form === 'value' ? this.source(s.site, 'own', false, s.path) : this.flatOne(s)));
    return out;
  }

  /** A source standing for all of what `s` is at its path. */
  private flatOne(s: Source): Source {
    if (s.form !== 'value' && s.form !== 'own') return this.whole(s.site);
    return s.exact ? this.source(s.site, s.form, false, s.path) : s;
  }

  /** The sources of `JSON.parse` of a text built from `d`: the exact text of an answer parses to its output. */
  parsed(d: Deps): Deps {
    let out: Deps = NONE;
    for (const s of d) out = this.join(out, this.of(s.exact && s.form === 'text' ? this.source(s.site, 'value', true) : this.flatOne(s)));
    return out;
  }

  /** Each site's sources together: its whole answer alone when the set names it, or names too many of its parts. */
  private normalize(sorted: Source[]): Source[] {
    const out: Source[] = [];
    let from = 0;
    while (from < sorted.length) {
      const site = sorted[from].site;
      let to = from;
      while (to < sorted.length && sorted[to].site === site) to++;
      const whole = this.whole(site);
      if (to - from > MAX_PER_SITE || sorted.slice(from, to).includes(whole)) out.push(whole);
      else for (let k = from; k < to; k++) out.push(sorted[k]);
      from = to;
    }
    return out;
  }
}
