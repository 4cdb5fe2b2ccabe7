/**
 * What the analysis of a script knows while it runs to its fixed point: for each variable, what
 * may have been assigned to it anywhere (flow-insensitive: the join of every assignment, with what
 * decided it was made); which variables may hold the same object (merged into one class, whose
 * changes in place every one of them sees); for each function, what decides that it runs and all
 * it reads; for each call site, what its arguments and its being made depend on. Every fact only
 * grows; a pass that grows none ends the analysis.
 */
import type { Node } from 'acorn';
import type { FnNode, ScriptModel } from './script-model.js';
import { NONE, SourceTable, type Deps } from './script-sources.js';

/** A value as the analysis sees it. */
export interface Val {
  /** What it may be built from. */
  readonly v: Deps;
  /** The variables whose objects it may be, or hold. */
  readonly refs: readonly number[];
  /** It is certainly a primitive: nothing can change it in place, nor alias it. */
  readonly prim: boolean;
  /**
   * It is certainly plain data, as JSON makes it, never changed since: its own fields hold no
   * function, so converting it, walking it or calling one of its methods runs only the built-ins
   * (which cannot be changed).
   */
  readonly data?: boolean;
  /** It is certainly an answer of `callTool`, never changed since: its `text` is a string. */
  readonly answer?: boolean;
}

/** A value built from nothing the script received: a literal. */
export const LITERAL: Val = Object.freeze({ v: NONE, refs: Object.freeze([]) as readonly number[], prim: true, data: true });

/** What a site's call depends on. */
export interface SiteDeps {
  /** Whether it is made (and which tool it calls). */
  control: Deps;
  /** Its arguments, as a whole (and the object's own label, which fields it has). */
  own: Deps;
  /** Its arguments' fields, when the arguments are written as an object with plain keys. */
  fields: Map<string, Deps> | undefined;
}

/** The facts of one analysis: see the module comment. */
export class FlowState {
  readonly table = new SourceTable();
  /** Some fact grew in this pass. */
  changed = false;
  /** What the statements read so far (reset around each statement and function to measure it). */
  reads: Deps = NONE;
  /**
   * Inside an optional chain: what its optional links so far read (whether the rest of the chain is
   * evaluated at all); `undefined` outside any chain.
   */
  chainGuard: Deps | undefined;
  private readonly values: Deps[];
  private readonly objecty: boolean[];
  private readonly parent: number[];
  private readonly heaps: Deps[];
  /** By class: some variable of it may hold what is not plain data, or an object of it was changed. */
  private readonly impure: boolean[];
  /** By variable: it may hold what is not an answer of `callTool`. */
  private readonly notAnswer: boolean[];
  private readonly fnIn = new Map<FnNode, Deps>();
  private readonly fnReads = new Map<FnNode, Deps>();
  private readonly loops = new Map<Node, Deps>();
  readonly sites: SiteDeps[];
  /** A variable standing for every value the script throws (or a promise it awaits rejects with), read by every `catch`. */
  readonly thrown: number;

  constructor(readonly model: ScriptModel) {
    const count = model.bindings.length + 1;
    this.thrown = count - 1;
    this.values = new Array<Deps>(count).fill(NONE);
    this.objecty = new Array<boolean>(count).fill(false);
    this.parent = Array.from({ length: count }, (_, i) => i);
    this.heaps = new Array<Deps>(count).fill(NONE);
    this.impure = new Array<boolean>(count).fill(false);
    this.notAnswer = new Array<boolean>(count).fill(false);
    this.sites = model.siteList.map(() => ({ control: NONE, own: NONE, fields: undefined }));
  }

  /** `pc`, joined with what decides that the rest of the chain being read is evaluated, inside one. */
  inChain(pc: Deps): Deps {
    return this.chainGuard === undefined ? pc : this.table.join(pc, this.chainGuard);
  }

  /** An optional link of the chain being read stops it when `base` is nullish. */
  guard(optional: boolean, base: Deps): void {
    if (optional && this.chainGuard !== undefined) this.chainGuard = this.table.join(this.chainGuard, this.table.flat(base));
  }

  /** `a` joined with `b`, noting a change when it grew. */
  grow(a: Deps, b: Deps): Deps {
    const joined = this.table.join(a, b);
    if (joined !== a) this.changed = true;
    return joined;
  }

  join(a: Deps, b: Deps): Deps {
    return this.table.join(a, b);
  }

  /** Note that what was read so far includes `d`. */
  read(d: Deps): void {
    this.reads = this.table.join(this.reads, this.table.flat(d));
  }

  /** The value of variable `b`: all assigned to it, and all its class's objects were changed with. */
  valueOf(b: number): Val {
    const root = this.find(b);
    const data = !this.impure[root];
    return { v: this.table.join(this.values[b], this.heaps[root]), refs: [b], prim: !this.objecty[b], data, answer: data && !this.notAnswer[b] };
  }

  /** Assign `val` to variable `b`, its making decided by `pc`. */
  assign(b: number, val: Val, pc: Deps): void {
    this.values[b] = this.grow(this.values[b], this.table.join(val.v, pc));
    if (!val.prim && !this.objecty[b]) {
      this.objecty[b] = true;
      this.changed = true;
    }
    if (val.answer !== true && !this.notAnswer[b]) {
      this.notAnswer[b] = true;
      this.changed = true;
    }
    if (val.data !== true) this.taint(b);
    if (!val.prim) for (const r of val.refs) this.unify(b, r);
  }

  /** The class of `b` may hold what is not plain data. */
  private taint(b: number): void {
    const root = this.find(b);
    if (this.impure[root]) return;
    this.impure[root] = true;
    this.changed = true;
  }

  /** The objects of `refs` may be changed in place with data labelled `d`. */
  mutate(refs: readonly number[], d: Deps): void {
    for (const r of refs) {
      if (!this.objecty[r]) continue;
      const root = this.find(r);
      this.heaps[root] = this.grow(this.heaps[root], this.table.flat(d));
      this.taint(root);
    }
  }

  /** Variables `a` and `b` may hold the same object (when either may hold one at all). */
  unify(a: number, b: number): void {
    if (!this.objecty[a] && !this.objecty[b]) return;
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    this.parent[rb] = ra;
    this.heaps[ra] = this.table.join(this.heaps[ra], this.heaps[rb]);
    this.impure[ra] = this.impure[ra] || this.impure[rb];
    this.objecty[a] = this.objecty[b] = true;
    this.changed = true;
  }

  /** Every variable of `refs` may hold the same object as every other. */
  unifyAll(refs: readonly number[]): void {
    for (let i = 1; i < refs.length; i++) this.unify(refs[0], refs[i]);
  }

  private find(b: number): number {
    let r = b;
    while (this.parent[r] !== r) r = this.parent[r];
    // Path halving keeps later finds short.
    while (this.parent[b] !== r) {
      const next = this.parent[b];
      this.parent[b] = r;
      b = next;
    }
    return r;
  }

  /** What decides that function `fn` runs (joined from every call of it). */
  entryOf(fn: FnNode): Deps {
    return this.fnIn.get(fn) ?? NONE;
  }

  /** A call of `fn` is made where `pc` decides it, with what decides its callbacks' calls. */
  enter(fn: FnNode, pc: Deps): void {
    this.fnIn.set(fn, this.grow(this.entryOf(fn), pc));
  }

  /** All function `fn` reads, what decides that it runs included: what a call of it answers, or throws, may be built from. */
  readsOf(fn: FnNode): Deps {
    return this.fnReads.get(fn) ?? NONE;
  }

  setReads(fn: FnNode, d: Deps): void {
    this.fnReads.set(fn, this.grow(this.readsOf(fn), d));
  }

  /** What decides how often the body of `loop` runs, as known so far. */
  loopOf(loop: Node): Deps {
    return this.loops.get(loop) ?? NONE;
  }

  setLoop(loop: Node, d: Deps): void {
    this.loops.set(loop, this.grow(this.loopOf(loop), d));
  }

  /** Site `id` is called where `pc` decides it, naming its tool from `name`. */
  siteControl(id: number, d: Deps): void {
    this.sites[id].control = this.grow(this.sites[id].control, this.table.flat(d));
  }

  /** Site `id`'s arguments (their `field`, or the whole of them) may be built from `d`. */
  siteArgs(id: number, d: Deps, field?: string): void {
    const site = this.sites[id];
    const flat = this.table.flat(d);
    if (field === undefined) {
      site.own = this.grow(site.own, flat);
      return;
    }
    site.fields ??= new Map();
    site.fields.set(field, this.grow(site.fields.get(field) ?? NONE, flat));
  }
}

/** A value; a primitive is plain data. */
export function val(v: Deps, refs: readonly number[], prim: boolean, data = prim, answer = false): Val {
  return answer ? { v, refs, prim, data, answer } : { v, refs, prim, data };
}

/** The variables whose objects any of `vals` may be (a primitive is none). */
export function refsOf(...vals: Val[]): number[] {
  const out: number[] = [];
  for (const x of vals) if (!x.prim) for (const r of x.refs) if (!out.includes(r)) out.push(r);
  return out;
}

/** Both are plain data. */
export function both(a: Val, b: Val): boolean {
  return a.data === true && b.data === true;
}

/** Objects walked by an operation (a spread, a `for...of`, a destructured array) may be iterators, which walking advances; plain data is not one. */
export function iterated(st: FlowState, pc: Deps, walked: Val): void {
  if (walked.prim || walked.data === true) return;
  st.mutate(refsOf(walked), st.join(pc, walked.v));
}

