/**
 * A `run_js` script made ready to be followed call site by call site (see `flows/script-deps.ts`):
 * analysed once per text (the analysis is cached by the script's text), and rewritten so that
 * each site calls a function of its own, which names the site in the calls it makes.
 *
 * The rewrite replaces what the script names the prelude by (`callTool`, `tools`, `searchTools`,
 * `describeTools`) with `__tw[n]`, where `__tw` is the parameter of the function the script
 * becomes: the host hands it the site functions (the prelude's `sites`), and no name of the script
 * can reach it (the analysis refuses any name starting with `__tw`). A call that hands functions to
 * a built-in runs inside `__tw.w(...)`, which lets the built-in call them only until it returns;
 * a member that could be a built-in's method is read through `__tw.r(object, key)`. What the
 * script cannot forge: a site's number is written by the rewrite, in code the script cannot reach,
 * and a call made any other way (the global `callTool`, which no analysed script names) names no
 * site, so it carries all the script has read.
 */
import { analyseScript, type ScriptSite } from '../../flows/script-deps.js';
import { INSTRUMENTED_PARAMETER } from './script-wrapper.js';

/** The name the instrumented script's function takes the host's site functions under (see `wrapInstrumented`). */
const SITES = INSTRUMENTED_PARAMETER;
/** The name a wrapped call's guard takes inside it. */
const GUARD = '__tw_g';

/** A script instrumented: see the module comment. */
export interface InstrumentedScript {
  /** The rewritten body, for `wrapInstrumented`. */
  readonly code: string;
  /** One character per site, in order: `c` (`callTool`), `t` (`tools`), `s` (`searchTools`), `d` (`describeTools`). */
  readonly kinds: string;
  /** What each site's call depends on. */
  readonly sites: readonly ScriptSite[];
  /** The position in the script of a position QuickJS reports in the rewritten body (1-based line and column). */
  position(line: number, column: number | undefined): { line: number; column?: number };
}

/** The most scripts kept analysed, and the most characters of them together. */
const MAX_CACHED = 256;
const MAX_CACHED_CHARS = 4_000_000;

/** Scripts by their text: the analysis and rewrite of each (or `null`: not analysable). Oldest first. */
const cache = new Map<string, InstrumentedScript | null>();
let cachedChars = 0;

/**
 * `code` instrumented, or `undefined` when the analysis gives up on it (the script then runs as
 * written, one label for all it reads). Cached by the text.
 */
export function instrumentScript(code: string): InstrumentedScript | undefined {
  const known = cache.get(code);
  if (known !== undefined) {
    // Most recently used last.
    cache.delete(code);
    cache.set(code, known);
    return known ?? undefined;
  }
  const made = instrument(code);
  if (code.length <= MAX_CACHED_CHARS / 4) {
    cache.set(code, made);
    cachedChars += code.length;
    for (const [oldest] of cache) {
      if (cache.size <= MAX_CACHED && cachedChars <= MAX_CACHED_CHARS) break;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
  }
  return made ?? undefined;
}

/** One change to the text: `text` put at `at` (replacing up to `until`, for a replacement). */
interface Edit {
  at: number;
  /** `close` (a closing text), `open` (an opening one), `replace`; at one position they apply in that order. */
  kind: 0 | 1 | 2;
  /** Orders edits of a kind at one position: closings innermost first, openings outermost first. */
  order: number;
  text: string;
  until: number;
}

function instrument(code: string): InstrumentedScript | null {
  const deps = analyseScript(code);
  if (!deps.ok) return null;
  const edits: Edit[] = [];
  const replace = (start: number, end: number, text: string): void => void edits.push({ at: start, kind: 2, order: 0, text, until: end });
  // Around the range [start, end): an opening at start, a closing at end.
  const around = (start: number, end: number, open: string, close: string): void => {
    edits.push({ at: start, kind: 1, order: -(end - start), text: open, until: start });
    edits.push({ at: end, kind: 0, order: -start, text: close, until: end });
  };
  deps.sites.forEach((site, i) => replace(site.start, site.end, `${SITES}[${i}]`));
  for (const wrap of deps.wraps) {
    around(wrap.start, wrap.end, `${SITES}.w((${GUARD}) => `, ')');
    for (const callback of wrap.callbacks) around(callback.start, callback.end, `${GUARD}(`, ')');
  }
  for (const read of deps.reads) {
    edits.push({ at: read.start, kind: 1, order: -(read.end - read.start), text: `${SITES}.r(`, until: read.start });
    if (read.name !== undefined) {
      replace(read.accessor, read.end, `, ${JSON.stringify(read.name)})`);
    } else {
      replace(read.accessor, read.accessor + 1, ', ');
      replace(read.end - 1, read.end, ')');
    }
  }
  edits.sort((a, b) => a.at - b.at || a.kind - b.kind || a.order - b.order);
  let out = '';
  let from = 0;
  // Where each stretch of the script copied as it was landed: [position in out, position in code, length], in order.
  const copied: Stretch[] = [];
  for (const edit of edits) {
    if (edit.at < from) continue;
    copied.push([out.length, from, edit.at - from]);
    out += code.slice(from, edit.at) + edit.text;
    from = edit.until;
  }
  copied.push([out.length, from, code.length - from]);
  out += code.slice(from);
  const kinds = deps.sites.map((s) => (s.kind === 'call' ? 'c' : s.kind === 'tools' ? 't' : s.kind === 'search' ? 's' : 'd')).join('');
  return { code: out, kinds, sites: deps.sites, position: positionIn(code, out, copied) };
}

/** A stretch of the script copied into the rewritten text as it was: where it landed, where it was, how long it is. */
type Stretch = [number, number, number];

/** Maps a 1-based line and column in `out` back to `code`, through the stretches copied. */
function positionIn(code: string, out: string, copied: Stretch[]): InstrumentedScript['position'] {
  const starts = (text: string): number[] => {
    const lines = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.push(i + 1);
    return lines;
  };
  let outLines: number[] | undefined;
  let codeLines: number[] | undefined;
  return (line, column) => {
    outLines ??= starts(out);
    codeLines ??= starts(code);
    const offset = (outLines[line - 1] ?? out.length) + Math.max(0, (column ?? 1) - 1);
    // The last stretch that starts at or before the offset; in the text the rewrite put after it, where that text went.
    let k = 0;
    while (k + 1 < copied.length && copied[k + 1][0] <= offset) k++;
    const [outAt, codeAt, length] = copied[k];
    const codeOffset = codeAt + Math.min(offset - outAt, length);
    let codeLine = 0;
    while (codeLine + 1 < codeLines.length && codeLines[codeLine + 1] <= codeOffset) codeLine++;
    return column === undefined ? { line: codeLine + 1 } : { line: codeLine + 1, column: codeOffset - codeLines[codeLine] + 1 };
  };
}
