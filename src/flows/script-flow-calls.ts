/**
 * What a script's calls are built from, for its analysis (the rest of its expressions are in
 * `script-flow-expr.ts`, which hands its evaluator in): a call of a tool at its site, of a
 * function of the script, of a built-in (maybe handed functions of the script).
 *
 * A call of a built-in may mix its receiver, its arguments and its result in any way, but for the
 * methods of {@link PURE_METHODS} and the static members the globals list, which are what their
 * names say (no built-in ever reaches the script as a value, so none was changed, and no object the
 * script holds has a function of its own under a method's name but one that throws). It calls no
 * code of the script but the functions handed to it: while it runs, or, for a promise's `then`,
 * `catch` and `finally`, once later.
 */
import type { AnyNode, CallExpression } from 'acorn';
import { ALIASING_MEMBERS, PRIMITIVE_MEMBERS, PURE_FUNCTIONS } from './script-globals.js';
import { staticName, type FnModel, type SiteModel } from './script-model.js';
import { NONE, type Deps } from './script-sources.js';
import { iterated, LITERAL, refsOf, val, type FlowState, type Val } from './script-state.js';

/** The evaluator of the other expressions. */
export type Eval = (st: FlowState, node: AnyNode, pc: Deps) => Val;

/** What the callee of a call of a built-in reads: its receiver and computed name, or the value called. */
function calleeOf(ev: Eval, st: FlowState, callee: AnyNode, pc: Deps): Val {
  if (callee.type !== 'MemberExpression') return ev(st, callee, pc);
  const receiver = ev(st, callee.object as AnyNode, pc);
  st.guard(callee.optional, receiver.v);
  if (!callee.computed || (callee.property as AnyNode).type === 'Literal') return receiver;
  const key = ev(st, callee.property as AnyNode, st.inChain(pc));
  return val(st.join(receiver.v, key.v), receiver.refs, receiver.prim);
}

/** The static name of a built-in's member called (`JSON.parse`), when the callee is one. */
function builtinName(st: FlowState, callee: AnyNode): string | undefined {
  if (callee.type === 'Identifier') return st.model.refs.get(callee)?.kind === 'global' ? callee.name : undefined;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.object.type !== 'Identifier') return undefined;
  if (st.model.refs.get(callee.object)?.kind !== 'global') return undefined;
  return `${callee.object.name}.${(callee.property as { name: string }).name}`;
}

export function evalCall(ev: Eval, st: FlowState, node: CallExpression, pc: Deps): Val {
  const t = st.table;
  const site = st.model.sites.get(node);
  if (site !== undefined) return siteCall(ev, st, site, node, pc);
  const fn = st.model.userCalls.get(node);
  if (fn !== undefined) return userCall(ev, st, fn, node, pc);
  const name = builtinName(st, node.callee as AnyNode);
  const callee = name === undefined ? calleeOf(ev, st, node.callee as AnyNode, pc) : val(NONE, [], false);
  // In an optional chain, the arguments are evaluated only when no link before them stopped it.
  st.guard(node.optional, callee.v);
  const argPc = st.inChain(pc);
  const callbacks = st.model.callbacks.get(node);
  const args: Val[] = [];
  for (const a of node.arguments) {
    if (a.type === 'SpreadElement') {
      const spread = ev(st, a.argument, argPc);
      iterated(st, argPc, spread);
      args.push(spread);
    } else if (callbacks === undefined || !isFunctionArg(st, a)) {
      args.push(ev(st, a, argPc));
    }
  }
  if (callbacks !== undefined) return handsOn(st, callbacks, callee, args, argPc, pureMethod(node.callee as AnyNode));
  if (name === 'Date.now' || (name === 'Date' && args.length === 0)) return val(clock(st), [], true);
  if (name !== undefined && (PURE_FUNCTIONS.has(name) || PRIMITIVE_MEMBERS.has(name))) {
    return val(args.reduce((d, a) => st.join(d, t.flat(a.v)), NONE), [], true);
  }
  if (name !== undefined && ALIASING_MEMBERS.has(name)) {
    return val(args.reduce((d, a) => st.join(d, t.flat(a.v)), NONE), refsOf(...args), false, args.every((a) => a.data === true));
  }
  if (name === 'JSON.parse' && args.length >= 1) {
    return val(args.reduce((d, a, i) => st.join(d, i === 0 ? t.parsed(a.v) : t.flat(a.v)), NONE), [], false, true);
  }
  return universal(st, argPc, callee, args, pureMethod(node.callee as AnyNode));
}

/**
 * What the clock reads may be built from: how long everything before took, which the answers and
 * what the script computed from them decide. So every site's whole answer (all the script
 * receives comes from them, or from its own text).
 */
export function clock(st: FlowState): Deps {
  let d: Deps = NONE;
  for (const site of st.model.siteList) d = st.join(d, st.table.of(st.table.whole(site.id)));
  return d;
}

function isFunctionArg(st: FlowState, a: AnyNode): boolean {
  if (a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression') return true;
  if (a.type !== 'Identifier') return false;
  const ref = st.model.refs.get(a);
  return ref?.kind === 'local' && st.model.bindings[ref.binding].fn !== undefined;
}

/**
 * Methods of the built-in arrays, objects and strings that change neither their receiver nor their
 * arguments. (Not `match`, `replace` and their kin: they move a regular expression's `lastIndex`.)
 */
const PURE_METHODS = new Set([
  'at', 'concat', 'entries', 'every', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flat', 'flatMap',
  'forEach', 'includes', 'indexOf', 'join', 'keys', 'lastIndexOf', 'map', 'reduce', 'reduceRight', 'slice', 'some',
  'toLocaleString', 'toReversed', 'toSorted', 'toSpliced', 'toString', 'values', 'with', 'hasOwnProperty',
  'propertyIsEnumerable', 'valueOf', 'charAt', 'charCodeAt', 'codePointAt', 'endsWith', 'startsWith', 'trim',
  'trimStart', 'trimEnd', 'toLowerCase', 'toUpperCase', 'substring', 'substr', 'padStart', 'padEnd', 'repeat',
  'normalize', 'localeCompare', 'isWellFormed', 'toWellFormed',
]);

/** Whether `callee` names a method of {@link PURE_METHODS}. */
function pureMethod(callee: AnyNode): boolean {
  if (callee.type !== 'MemberExpression') return false;
  const name = staticName(callee.property as AnyNode, callee.computed);
  return name !== undefined && PURE_METHODS.has(name);
}

/**
 * A call of a built-in (see the module comment): its result built from, and aliasing, all it was
 * given; all it was given changed with all of it, but by a method of {@link PURE_METHODS} on plain
 * data, which changes only what it converts.
 */
export function universal(st: FlowState, pc: Deps, callee: Val, args: Val[], pure = false): Val {
  const t = st.table;
  let v = t.flat(callee.v);
  for (const a of args) v = st.join(v, t.flat(a.v));
  const refs = refsOf(callee, ...args);
  if (!pure) st.mutate(refs, st.join(pc, v));
  return val(v, refs, false);
}

/** A call that hands functions of the script to a built-in, which may call them any number of times, with anything it was given. */
function handsOn(st: FlowState, callbacks: FnModel[], callee: Val, args: Val[], pc: Deps, pure: boolean): Val {
  const t = st.table;
  let given = t.flat(callee.v);
  for (const a of args) given = st.join(given, t.flat(a.v));
  let returned: Deps = NONE;
  const rets = callbacks.map((fn) => st.valueOf(fn.ret));
  for (const fn of callbacks) returned = st.join(returned, st.readsOf(fn.node));
  const data = (callee.prim || callee.data === true) && args.every((a) => a.data === true) && rets.every((r) => r.data === true);
  const passed = val(st.join(given, returned), [...refsOf(callee, ...args), ...callbacks.map((fn) => fn.ret)], false, data);
  for (const fn of callbacks) {
    st.enter(fn.node, st.join(pc, passed.v));
    for (const arg of fn.args) st.assign(arg, passed, pc);
  }
  if (!pure) st.mutate(passed.refs, st.join(pc, passed.v));
  return val(passed.v, passed.refs, false);
}

/** A call of a function of the script: its arguments are its parameters' values, and it answers (and throws) with all it reads. */
function userCall(ev: Eval, st: FlowState, fn: FnModel, node: CallExpression, pc: Deps): Val {
  const t = st.table;
  const callee = node.callee as AnyNode;
  // An IIFE's function is read where it is written; a named one is only named here.
  if (callee.type !== 'FunctionExpression' && callee.type !== 'ArrowFunctionExpression') ev(st, callee, pc);
  const params = fn.node.params;
  const rest = params.length > 0 && params[params.length - 1].type === 'RestElement' ? params.length - 1 : -1;
  // Past a spread, which parameter an argument lands in is not known: it may land in any.
  let anywhere = false;
  node.arguments.forEach((a, i) => {
    const arg = ev(st, a.type === 'SpreadElement' ? a.argument : a, pc);
    if (a.type === 'SpreadElement') {
      iterated(st, pc, arg);
      anywhere = true;
    }
    if (anywhere) for (const b of fn.args) st.assign(b, val(t.flat(arg.v), arg.refs, false), pc);
    else if (rest >= 0 && i >= rest) st.assign(fn.args[rest], val(t.flat(arg.v), arg.refs, false), pc);
    else if (i < fn.args.length) st.assign(fn.args[i], arg, pc);
  });
  st.enter(fn.node, pc);
  return val(st.readsOf(fn.node), [fn.ret], false);
}

/** A call of a tool (or of the catalog) at its site. */
function siteCall(ev: Eval, st: FlowState, site: SiteModel, node: CallExpression, pc: Deps): Val {
  const t = st.table;
  const callee = node.callee as AnyNode;
  let name: Val = LITERAL;
  if (callee.type === 'MemberExpression' && callee.computed) name = ev(st, callee.property as AnyNode, pc);
  const args = node.arguments.map((a) => ({ node: a, val: ev(st, a.type === 'SpreadElement' ? a.argument : a, pc) }));
  const spread = node.arguments.some((a) => a.type === 'SpreadElement');
  args.forEach((a) => a.node.type === 'SpreadElement' && iterated(st, pc, a.val));
  if (site.kind === 'call' && args.length > 0) name = args[0].val;
  st.siteControl(site.id, st.join(pc, name.v));
  st.siteArgs(site.id, name.v);
  if (spread) {
    for (const a of args) st.siteArgs(site.id, a.val.v);
  } else if (site.kind === 'search' || site.kind === 'describe') {
    const names = site.kind === 'search' ? ['query', 'limit'] : ['names'];
    args.forEach((a, i) => st.siteArgs(site.id, a.val.v, names[i]));
  } else {
    const at = site.kind === 'call' ? 1 : 0;
    args.forEach((a, i) => {
      if (i !== at) return;
      const fields = plainFields(a.node as AnyNode);
      if (fields === undefined) st.siteArgs(site.id, a.val.v);
      else for (const [field, value] of fields) st.siteArgs(site.id, ev(st, value, pc).v, field);
    });
  }
  const answer = site.kind === 'call' ? t.source(site.id, 'answer', true) : site.kind === 'tools' ? t.source(site.id, 'value', true) : t.whole(site.id);
  // What the prelude resolves with is plain data, parsed from the host's JSON.
  return val(t.of(answer), [], false, true, site.kind === 'call');
}

/** The fields of an object written with plain keys and values (no spread, no computed key), else `undefined`. */
function plainFields(node: AnyNode): [string, AnyNode][] | undefined {
  if (node.type !== 'ObjectExpression') return undefined;
  const fields: [string, AnyNode][] = [];
  for (const p of node.properties) {
    if (p.type !== 'Property' || p.computed || p.kind !== 'init') return undefined;
    const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : undefined;
    if (key === undefined || key === '__proto__') return undefined;
    fields.push([key, p.value]);
  }
  return fields;
}

