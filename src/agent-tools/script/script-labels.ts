/**
 * The labels of one `run_js` run, with `flows`. The run's own label (its code's: what its caller
 * gave it) joined with every answer the script has received is all it has read: what the script
 * answers is labelled with that, and so is every call of a script that is not instrumented (see
 * `script-instrument.ts`), or of a site past a bound the sandbox answered itself.
 *
 * A call of an instrumented script carries less, and still all it may depend on: its site's
 * arguments carry the run's own label and the answers of the sites the analysis found they may be
 * built from (`flows/script-deps.ts`); whether it is made, those of the sites that may decide it.
 * A site's answers so far are all a value built from it can hold: the script cannot read an
 * answer before the host has it, and the host labels it first. A failure, whatever its cause,
 * is labelled with all the run has read: what made the call fail may be the run's other calls
 * (a bound, a budget, a deadline).
 */
import { joinLabels, TRUSTED, type Label } from '../../flows/label.js';
import { flatten, isNode, labelAtPath, type LabelNode, type LabelTree } from '../../flows/label-tree.js';
import type { ScriptSite, SiteSource } from '../../flows/script-deps.js';
import type { ToolExecutionResult } from '../../tool.js';

/** The most answers of one site whose labels are kept apart for reading paths; past them, all are joined. */
const MAX_ANSWERS = 16;

/** The most nodes of an output checked for being plain JSON; a larger one is read as one label. */
const MAX_PLAIN_NODES = 10_000;

/** The labels of one run: see the module comment. */
export class ScriptLabels {
  /** All the run has read: its own label, joined with every answer so far. */
  label: Label;
  /** Each site's answers so far: their labels, whole or as trees over outputs the script reads as JSON. */
  private readonly answers: LabelTree[][];
  /** The sandbox answered a call itself for a bound on the run's arguments: from now on every call carries all the run has read. */
  private bounded = false;

  /**
   * @param own - the run's own label (its code's)
   * @param sites - the analysis of an instrumented script's sites, when it is one
   */
  constructor(
    private readonly own: Label,
    private readonly sites?: readonly ScriptSite[],
  ) {
    this.label = own;
    this.answers = sites?.map(() => []) ?? [];
  }

  /** The sandbox answered a call itself for a bound on the run's arguments (see `SandboxChannel.send`). */
  bound(): void {
    this.bounded = true;
  }

  /** The analysis of the site a call came from, when the call may be labelled by it. */
  private siteOf(site: number | undefined): ScriptSite | undefined {
    if (site === undefined || this.bounded) return undefined;
    return this.sites?.[site];
  }

  /** The labels of the arguments of a call from `site`. */
  argsOf(site: number | undefined): LabelTree {
    const deps = this.siteOf(site);
    if (deps === undefined) return this.label;
    const own = this.of(deps.args.own);
    const fields = deps.args.fields;
    if (fields === undefined) return own;
    const node: LabelNode = { own, fields: Object.fromEntries(Object.keys(fields).map((key) => [key, this.of(fields[key])])) };
    return node;
  }

  /** What decides whether a call from `site` is made (and which tool it calls). */
  controlOf(site: number | undefined): Label {
    const deps = this.siteOf(site);
    return deps === undefined ? this.label : this.of(deps.control);
  }

  /**
   * A call from `site` answered `result`, labelled `output` by the gate: all the run has read now
   * includes it, and the site's answers too (all the run has read, for a failure).
   */
  answered(site: number | undefined, output: LabelTree | undefined, result: ToolExecutionResult): void {
    const flat = output === undefined ? TRUSTED : flatten(output);
    this.label = joinLabels(this.label, flat);
    if (site === undefined || this.answers[site] === undefined) return;
    if (!result.success) return this.keep(site, this.label);
    // A tree's paths are read only in an output the script sees as the JSON of the same shape.
    this.keep(site, output !== undefined && isNode(output) && isPlainJson(result.output) ? output : flat);
  }

  /**
   * A call from `site` was answered without a tool (the catalog, or a refusal before the gate):
   * the answer depends on the call's arguments and on what decided it, or, for a refusal, on
   * anything.
   */
  answeredBy(site: number | undefined, refused: boolean): void {
    if (site === undefined || this.answers[site] === undefined) return;
    this.keep(site, refused ? this.label : joinLabels(flatten(this.argsOf(site)), this.controlOf(site)));
  }

  private keep(site: number, tree: LabelTree): void {
    const kept = this.answers[site];
    if (kept.length < MAX_ANSWERS) {
      kept.push(tree);
      return;
    }
    // Too many to keep apart: one label for them all.
    let all = flatten(tree);
    for (const t of kept) all = joinLabels(all, flatten(t));
    kept.length = 0;
    kept.push(all);
  }

  /** The label of a value built from `sources`: the run's own, and each source's answers at its path. */
  private of(sources: readonly SiteSource[]): Label {
    let label = this.own;
    for (const source of sources) {
      const kept = this.answers[source.site];
      if (kept === undefined) return this.label;
      for (const tree of kept) label = joinLabels(label, labelAtPath(tree, source.path, source.own === true));
    }
    return label;
  }
}

/**
 * Whether `value` is plain JSON data, so that the text the script reads is its JSON, of the same
 * shape: arrays, objects whose prototype is `Object.prototype` or none, no `toJSON`, strings,
 * finite numbers, booleans and `null`; at most {@link MAX_PLAIN_NODES} of them.
 */
function isPlainJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let seen = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (++seen > MAX_PLAIN_NODES) return false;
    if (next === null || typeof next === 'string' || typeof next === 'boolean') continue;
    if (typeof next === 'number') {
      if (!Number.isFinite(next)) return false;
      continue;
    }
    if (typeof next !== 'object') return false;
    if (Array.isArray(next)) {
      if (Object.getPrototypeOf(next) !== Array.prototype) return false;
      for (const item of next) stack.push(item);
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(next);
    if ((proto !== Object.prototype && proto !== null) || typeof (next as { toJSON?: unknown }).toJSON === 'function') return false;
    for (const key of Object.keys(next)) stack.push((next as Record<string, unknown>)[key]);
  }
  return true;
}
