/**
 * What decides that each statement of a script runs, for its analysis: one pass over the script's
 * body and every function it defines, where `pc` is what decided that the code in hand runs.
 *
 * A branch, a loop, a `switch` and a `catch` run under what they test. A statement that may leave
 * its block early (`return`, `throw`, `break`, `continue` under a condition) decides whether what
 * follows it runs: what follows runs under what decided the jump. In a function of the script, in
 * a `try` block, and everywhere in a script that runs code of its own concurrently, any statement
 * may also stop what follows by throwing, or by waiting on a promise that never settles, and what
 * decides that is all it read: what follows runs under all that came before.
 *
 * The script's own body, when nothing of the script runs beside it, is the one exception: an error
 * it does not catch ends the run, which no code of the script sees (whether a script failed is
 * not a label, as whether a call succeeded is not; see the guide), and the calls it awaits are
 * always answered. So a payment written after reading a statement is made whatever the statement
 * said, and carries none of it.
 */
import type { AnyNode, Pattern, Statement } from 'acorn';
import { evalExpr, write } from './script-flow-expr.js';
import type { FnModel } from './script-model.js';
import { ANY_PART, NONE, type Deps } from './script-sources.js';
import { LITERAL, type FlowState, type Val } from './script-state.js';

/** A way out of a statement: its kind, the label it names, and what decided it was taken. */
interface Jump {
  readonly kind: 'break' | 'continue' | 'return' | 'throw';
  readonly label: string | undefined;
  readonly pc: Deps;
}

/** One pass over the script's body and each of its functions. */
export function analysePass(st: FlowState): void {
  for (const fn of st.model.fns.values()) fnPass(st, fn, fn.node === st.model.top ? st.model.concurrent : true);
}

function fnPass(st: FlowState, fn: FnModel, sensitive: boolean): void {
  const node = fn.node;
  const entry = node === st.model.top ? NONE : st.entryOf(node);
  const before = st.reads;
  st.reads = NONE;
  node.params.forEach((p, i) => write(st, p.type === 'RestElement' ? p.argument : p, st.valueOf(fn.args[i]), entry));
  const body = node.body;
  if (body.type === 'BlockStatement') {
    statements(st, body.body, entry, sensitive, fn);
  } else {
    st.assign(fn.ret, evalExpr(st, body, entry), entry);
  }
  const reads = st.join(st.reads, entry);
  st.reads = before;
  st.setReads(node, reads);
  // An async function's promise may reject with anything thrown or awaited in it: what it answers may hold it.
  if (node.async && node !== st.model.top) st.unify(fn.ret, st.thrown);
}

/** A list of statements in order, each under what decided that it runs (see the module comment). */
function statements(st: FlowState, list: readonly Statement[], pc: Deps, sensitive: boolean, fn: FnModel): Jump[] {
  let current = pc;
  const jumps: Jump[] = [];
  for (const s of list) {
    const before = st.reads;
    st.reads = NONE;
    const out = statement(st, s, current, sensitive, fn, []);
    const read = st.reads;
    st.reads = st.join(before, read);
    jumps.push(...out);
    if (sensitive) current = st.join(current, read);
    else for (const j of out) current = st.join(current, j.pc);
  }
  return jumps;
}

function statement(st: FlowState, s: Statement, pc: Deps, sensitive: boolean, fn: FnModel, labels: string[]): Jump[] {
  const t = st.table;
  switch (s.type) {
    case 'ExpressionStatement':
      evalExpr(st, s.expression, pc);
      return [];
    case 'BlockStatement':
      return statements(st, s.body, pc, sensitive, fn);
    case 'EmptyStatement':
    case 'DebuggerStatement':
    case 'FunctionDeclaration':
      return [];
    case 'VariableDeclaration':
      for (const d of s.declarations) {
        const ref = d.id.type === 'Identifier' ? st.model.refs.get(d.id) : undefined;
        // A function bound to a name is analysed on its own.
        if (ref?.kind === 'local' && st.model.bindings[ref.binding].fn !== undefined) continue;
        if (d.init) write(st, d.id, evalExpr(st, d.init, pc), pc);
      }
      return [];
    case 'ReturnStatement': {
      const value = s.argument ? evalExpr(st, s.argument, pc) : LITERAL;
      st.assign(fn.ret, value, pc);
      return [{ kind: 'return', label: undefined, pc }];
    }
    case 'ThrowStatement':
      st.assign(st.thrown, evalExpr(st, s.argument, pc), pc);
      return [{ kind: 'throw', label: undefined, pc }];
    case 'BreakStatement':
    case 'ContinueStatement':
      return [{ kind: s.type === 'BreakStatement' ? 'break' : 'continue', label: s.label?.name, pc }];
    case 'IfStatement': {
      const test = evalExpr(st, s.test, pc);
      const inner = st.join(pc, t.flat(test.v));
      return [...statement(st, s.consequent, inner, sensitive, fn, []), ...(s.alternate ? statement(st, s.alternate, inner, sensitive, fn, []) : [])];
    }
    case 'LabeledStatement': {
      const all = [...labels, s.label.name];
      const body = s.body;
      if (body.type === 'LabeledStatement' || isLoop(body)) return statement(st, body, pc, sensitive, fn, all);
      return statement(st, body, pc, sensitive, fn, []).filter((j) => !(j.kind === 'break' && j.label !== undefined && all.includes(j.label)));
    }
    case 'SwitchStatement': {
      const discriminant = evalExpr(st, s.discriminant, pc);
      let inner = st.join(pc, t.flat(discriminant.v));
      for (const c of s.cases) if (c.test) inner = st.join(inner, t.flat(evalExpr(st, c.test, inner).v));
      const out = statements(st, s.cases.flatMap((c) => c.consequent), inner, sensitive, fn);
      return out.filter((j) => !(j.kind === 'break' && (j.label === undefined || labels.includes(j.label))));
    }
    case 'TryStatement':
      return tryStatement(st, s, pc, sensitive, fn);
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
      return loop(st, s, pc, sensitive, fn, labels);
    default:
      throw new Error(`unexpected ${s.type}`);
  }
}

function isLoop(s: Statement): boolean {
  return s.type === 'WhileStatement' || s.type === 'DoWhileStatement' || s.type === 'ForStatement' || s.type === 'ForInStatement' || s.type === 'ForOfStatement';
}

/**
 * A `try`: its block as sensitive code (any statement may throw to the `catch`), the `catch` under
 * all the block read (the error holds any of it), the `finally` where the statement runs.
 */
function tryStatement(st: FlowState, s: Extract<Statement, { type: 'TryStatement' }>, pc: Deps, sensitive: boolean, fn: FnModel): Jump[] {
  const before = st.reads;
  st.reads = NONE;
  const jumps = statements(st, s.block.body, pc, true, fn);
  const tried = st.reads;
  st.reads = st.join(before, tried);
  const handler = s.handler;
  if (handler) {
    const caught = st.join(pc, tried);
    if (handler.param) {
      const thrown = st.valueOf(st.thrown);
      write(st, handler.param, { v: st.join(tried, thrown.v), refs: thrown.refs, prim: false }, caught);
    }
    jumps.push(...statements(st, handler.body.body, caught, sensitive, fn));
  }
  if (s.finalizer) jumps.push(...statements(st, s.finalizer.body, pc, sensitive, fn));
  return jumps;
}

/**
 * A loop: its body (and its test, and its update) under what decides how often it runs: the test,
 * the collection it walks, and what decides the jumps in its body (in sensitive code, all its body
 * reads: any statement of it may end the loop by throwing).
 */
function loop(st: FlowState, s: Extract<Statement, { type: 'WhileStatement' | 'DoWhileStatement' | 'ForStatement' | 'ForInStatement' | 'ForOfStatement' }>, pc: Deps, sensitive: boolean, fn: FnModel, labels: string[]): Jump[] {
  const t = st.table;
  let inner = st.join(pc, st.loopOf(s));
  let element: Val | undefined;
  if (s.type === 'ForStatement' && s.init) {
    if (s.init.type === 'VariableDeclaration') statement(st, s.init, pc, sensitive, fn, []);
    else evalExpr(st, s.init, pc);
  }
  if (s.type === 'ForInStatement' || s.type === 'ForOfStatement') {
    const collection = evalExpr(st, s.right, pc);
    // Walking an object may call what it holds; plain data holds nothing to call.
    if (!collection.prim && collection.data !== true) st.mutate(collection.refs, st.join(pc, collection.v));
    // How often it runs is decided by which items the collection has: for an output's list, its own labels.
    inner = st.join(inner, t.own(collection.v));
    element =
      s.type === 'ForOfStatement'
        ? { v: t.narrow(collection.v, ANY_PART), refs: collection.prim ? [] : collection.refs, prim: collection.prim, data: collection.data === true }
        : { v: t.own(collection.v), refs: [], prim: true, data: true };
  }
  const test = s.type === 'ForInStatement' || s.type === 'ForOfStatement' ? undefined : s.test;
  if (test) inner = st.join(inner, t.flat(evalExpr(st, test, inner).v));
  const before = st.reads;
  st.reads = NONE;
  if (element !== undefined) {
    const left = (s as { left: AnyNode }).left;
    const target = left.type === 'VariableDeclaration' ? left.declarations[0].id : (left as Pattern);
    write(st, target, element, inner);
  }
  const out = statement(st, s.body, inner, sensitive, fn, []);
  if (s.type === 'ForStatement' && s.update) evalExpr(st, s.update, inner);
  const bodyRead = st.reads;
  st.reads = st.join(before, bodyRead);
  let decided = inner;
  if (sensitive) decided = st.join(decided, bodyRead);
  for (const j of out) decided = st.join(decided, j.pc);
  st.setLoop(s, decided);
  return out.filter((j) => !((j.kind === 'break' || j.kind === 'continue') && (j.label === undefined || labels.includes(j.label))));
}
