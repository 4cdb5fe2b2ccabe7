/**
 * The dependency analysis of a `run_js` script, done once before it runs: for each call site of
 * a tool in it, the answers of the script's call sites its arguments may be built from (whole, or
 * at a path of a tool's output) and those that may decide whether it is made at all. The host
 * turns them into labels while the script runs, from the labels of the answers each site has had
 * so far; a call carries only what it may depend on, where every call of a script used to carry
 * all the script had read.
 *
 * It is conservative and flow-insensitive: a variable holds the join of everything ever assigned
 * to it (with what decided each assignment), objects that may be one are one, a built-in may mix
 * all it is given, a function of the script answers with all it reads. Whatever it cannot follow
 * soundly (see `script-read.ts` and `script-model.ts` for the list) makes it give up on the whole
 * script, which then runs with one label for all it reads, as before.
 *
 * What it relies on at run time, which the instrumented script provides (`agent-tools/script`):
 * each site's call names its site, and nothing else can; a function handed to a built-in can be
 * called only while that call runs (but a promise's reaction, once, later); a member that could be
 * a built-in's method, read as a value, is read through a helper that never answers a built-in's
 * object, so no built-in object (a prototype, a method, `Function`) reaches the script, and none
 * can be changed or make code from text.
 */
import { GiveUp, type WrapModel } from './script-model.js';
import { readScript } from './script-read.js';
import { analysePass } from './script-flow-stmt.js';
import type { Deps } from './script-sources.js';
import { FlowState } from './script-state.js';

/**
 * An answer a value may be built from: that of call site `site` (numbered from 0 in the order the
 * sites are written), at `path` of the tool's output (`*` for any item or field; empty: all of it).
 *
 * @category Untrusted data
 */
export interface SiteSource {
  readonly site: number;
  readonly path: readonly string[];
  /** Only which fields and items the output has down to `path` (its own labels), not what they hold. */
  readonly own?: true;
}

/**
 * One call site of a script, and what its call depends on.
 *
 * @category Untrusted data
 */
export interface ScriptSite {
  /** `callTool(...)`, `tools.<name>(...)`, `searchTools(...)` or `describeTools(...)`. */
  readonly kind: 'call' | 'tools' | 'search' | 'describe';
  /** Where the prelude's name is written in the script (`callTool`, `tools`, ...): the instrumented script calls the site's own function there. */
  readonly start: number;
  readonly end: number;
  /** The answers that may decide whether the call is made, and which tool it calls. */
  readonly control: readonly SiteSource[];
  /** The answers its arguments may be built from: as a whole, and field by field when the script writes them as an object with plain keys. */
  readonly args: { readonly own: readonly SiteSource[]; readonly fields?: Readonly<Record<string, readonly SiteSource[]>> };
}

/**
 * A call that hands functions of the script to a built-in, and where they are written: the
 * instrumented script lets the built-in call them only while the call runs.
 *
 * @category Untrusted data
 */
export interface ScriptCallbackCall {
  /** The call (or the optional chain it is in), in the script. */
  readonly start: number;
  readonly end: number;
  /** The functions handed to it. */
  readonly callbacks: readonly { readonly start: number; readonly end: number }[];
}

/**
 * A member the script reads as a value that could be a built-in's method: the instrumented script
 * reads it through the host's helper (`object[key]`, but `undefined` for an object the value
 * inherits), so no built-in object reaches the script as a value.
 *
 * @category Untrusted data
 */
export interface ScriptGuardedRead {
  /** The member expression, in the script. */
  readonly start: number;
  readonly end: number;
  /** Where its `.` or `[` is. */
  readonly accessor: number;
  /** The name, for `object.name`; absent for `object[key]`, whose key stays as written. */
  readonly name?: string;
}

/**
 * What {@link analyseScript} found: the sites and what each depends on, with what the instrumented
 * script must guard, or why it gave up.
 *
 * @category Untrusted data
 */
export type ScriptDeps =
  | {
      readonly ok: true;
      readonly sites: readonly ScriptSite[];
      readonly wraps: readonly ScriptCallbackCall[];
      readonly reads: readonly ScriptGuardedRead[];
      /** The script runs code of its own concurrently (an async function of its own): every statement was followed as sensitive. */
      readonly concurrent: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/** The longest script analysed (parsing runs on the host's thread too); a longer one runs with one label for all it reads. */
const MAX_CHARS = 64_000;

/** The most passes the analysis makes; one that has not settled by then gives up (none should come near). */
const MAX_PASSES = 200;

/**
 * Analyse `code`, the body of a `run_js` script: see the module comment. Never throws.
 *
 * @category Untrusted data
 */
export function analyseScript(code: string): ScriptDeps {
  if (code.length > MAX_CHARS) return { ok: false, reason: `the script is longer than ${MAX_CHARS} characters` };
  try {
    const model = readScript(code);
    const st = new FlowState(model);
    let passes = 0;
    do {
      if (++passes > MAX_PASSES) return { ok: false, reason: 'the analysis did not settle' };
      st.changed = false;
      analysePass(st);
      st.table.spend(code.length);
    } while (st.changed);
    const sites = model.siteList.map((site, i): ScriptSite => {
      const deps = st.sites[i];
      const fields = deps.fields === undefined ? undefined : Object.fromEntries([...deps.fields].map(([key, d]) => [key, sources(d)]));
      return { kind: site.kind, start: site.start, end: site.end, control: sources(deps.control), args: { own: sources(deps.own), ...(fields !== undefined ? { fields } : {}) } };
    });
    const reads = model.reads.map((r): ScriptGuardedRead => ({ start: r.start, end: r.end, accessor: r.accessor, ...(r.name !== undefined ? { name: r.name } : {}) }));
    return { ok: true, sites, wraps: model.wraps.map(copyWrap), reads, concurrent: model.concurrent };
  } catch (error) {
    if (error instanceof GiveUp) return { ok: false, reason: error.message };
    // A script the analysis did not expect (a parser's surprise, a bug): not analysed, so labelled as before.
    return { ok: false, reason: `the analysis failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function copyWrap(w: WrapModel): ScriptCallbackCall {
  return { start: w.start, end: w.end, callbacks: w.callbacks.map((c) => ({ start: c.start, end: c.end })) };
}

/** A set of sources as the host reads them: what of the answer is only a path into the output. */
function sources(d: Deps): SiteSource[] {
  const out: SiteSource[] = [];
  for (const s of d) {
    const path = s.form === 'value' || s.form === 'own' ? s.path : [];
    const own = s.form === 'own';
    const same = (o: SiteSource): boolean => o.site === s.site && (o.own === true) === own && o.path.length === path.length && o.path.every((p, i) => p === path[i]);
    if (!out.some(same)) out.push(own ? { site: s.site, path, own: true } : { site: s.site, path });
  }
  return out;
}
