/**
 * What a script's expressions are built from, for its analysis: each expression's value (what it
 * may be built from, the variables whose objects it may be), evaluated where `pc` decides that it
 * runs; every assignment, change in place and call it makes noted in the analysis's facts (calls
 * in `script-flow-calls.ts`).
 *
 * What the instrumented script guarantees (see `script-model.ts`): no built-in object or function
 * ever reaches it as a value, so none is changed, and the objects it holds hold no function it
 * could call but the functions it handed to a built-in, which throw once that call has returned.
 * So converting an object (a template, `+`, a key) runs only built-ins, which change nothing.
 * Walking an iterator advances it: walking anything but plain data may change it.
 */
import type { AnyNode, Pattern, Property } from 'acorn';
import { clock, evalCall, universal } from './script-flow-calls.js';
import { ANY_PART, NONE, type Deps } from './script-sources.js';
import { both, iterated, LITERAL, refsOf, val, type FlowState, type Val } from './script-state.js';

/** The value of `node`, evaluated where `pc` decides; what it reads is noted. */
export function evalExpr(st: FlowState, node: AnyNode, pc: Deps): Val {
  const val = evalIn(st, node, pc);
  st.read(val.v);
  return val;
}

function evalIn(st: FlowState, node: AnyNode, pc: Deps): Val {
  const t = st.table;
  switch (node.type) {
    case 'Identifier': {
      const ref = st.model.refs.get(node);
      if (ref?.kind === 'local' && st.model.bindings[ref.binding].fn === undefined) return st.valueOf(ref.binding);
      return ref?.kind === 'global' && (node.name === 'undefined' || node.name === 'NaN' || node.name === 'Infinity') ? LITERAL : val(NONE, [], false);
    }
    case 'Literal':
      return (node as { regex?: unknown }).regex === undefined ? LITERAL : val(NONE, [], false);
    case 'TemplateLiteral': {
      const parts = node.expressions.map((e) => evalExpr(st, e, pc));
      return val(parts.reduce((d, p) => st.join(d, t.flat(p.v)), NONE), [], true);
    }
    case 'ArrayExpression': {
      const parts: Val[] = [];
      for (const e of node.elements) {
        if (e === null) continue;
        const part = evalExpr(st, e.type === 'SpreadElement' ? e.argument : e, pc);
        if (e.type === 'SpreadElement') iterated(st, pc, part);
        parts.push(part);
      }
      return val(parts.reduce((d, p) => st.join(d, t.flat(p.v)), NONE), refsOf(...parts), false);
    }
    case 'ObjectExpression': {
      const parts: Val[] = [];
      for (const p of node.properties) {
        if (p.type === 'SpreadElement') parts.push(evalExpr(st, p.argument, pc));
        else {
          if (p.computed) parts.push(val(evalExpr(st, p.key, pc).v, [], true));
          parts.push(evalExpr(st, p.value, pc));
        }
      }
      return val(parts.reduce((d, p) => st.join(d, t.flat(p.v)), NONE), refsOf(...parts), false);
    }
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
      // Analysed on its own; as a value it is only ever called or handed to a built-in.
      return val(NONE, [], false);
    case 'UnaryExpression':
      return unary(st, node, pc);
    case 'UpdateExpression': {
      const current = evalExpr(st, node.argument, pc);
      const next = val(t.flat(current.v), [], true);
      write(st, node.argument as Pattern, next, pc);
      return next;
    }
    case 'BinaryExpression': {
      const left = evalExpr(st, node.left as AnyNode, pc);
      const right = evalExpr(st, node.right, pc);
      return val(st.join(t.flat(left.v), t.flat(right.v)), [], true);
    }
    case 'LogicalExpression': {
      const left = evalExpr(st, node.left, pc);
      const right = evalExpr(st, node.right, st.join(pc, t.flat(left.v)));
      return val(st.join(left.v, right.v), refsOf(left, right), left.prim && right.prim, both(left, right), left.answer === true && right.answer === true);
    }
    case 'ConditionalExpression': {
      const test = evalExpr(st, node.test, pc);
      const inner = st.join(pc, t.flat(test.v));
      const a = evalExpr(st, node.consequent, inner);
      const b = evalExpr(st, node.alternate, inner);
      return val(st.join(t.flat(test.v), st.join(a.v, b.v)), refsOf(a, b), a.prim && b.prim, both(a, b), a.answer === true && b.answer === true);
    }
    case 'AssignmentExpression':
      return assignment(st, node, pc);
    case 'SequenceExpression': {
      let last: Val = LITERAL;
      for (const e of node.expressions) last = evalExpr(st, e, pc);
      return last;
    }
    case 'AwaitExpression': {
      const awaited = evalExpr(st, node.argument, pc);
      // A promise may reject with an object it holds: a `catch` may receive it.
      st.assign(st.thrown, awaited, pc);
      return awaited;
    }
    case 'ChainExpression': {
      // An optional link decides whether the rest of its chain is evaluated: the rest runs under it.
      const outer = st.chainGuard;
      st.chainGuard = NONE;
      try {
        return evalExpr(st, node.expression, pc);
      } finally {
        st.chainGuard = outer;
      }
    }
    case 'MemberExpression':
      return member(st, node, pc);
    case 'CallExpression':
      return evalCall(evalExpr, st, node, pc);
    case 'NewExpression': {
      const args = node.arguments.map((a) => evalExpr(st, a.type === 'SpreadElement' ? a.argument : a, pc));
      // `new Date()` reads the clock (the name cannot be declared, so it is the built-in).
      if (args.length === 0 && node.callee.type === 'Identifier' && node.callee.name === 'Date') return val(clock(st), [], false);
      return universal(st, pc, val(NONE, [], false), args);
    }
    default:
      // The model refused every other kind of node.
      throw new Error(`unexpected ${node.type}`);
  }
}

function unary(st: FlowState, node: Extract<AnyNode, { type: 'UnaryExpression' }>, pc: Deps): Val {
  const t = st.table;
  const arg = node.argument;
  if (node.operator === 'delete') {
    if (arg.type !== 'MemberExpression') return LITERAL;
    const base = evalExpr(st, arg.object as AnyNode, pc);
    const key = arg.computed ? evalExpr(st, arg.property as AnyNode, pc) : LITERAL;
    st.mutate(base.refs, st.join(pc, key.v));
    return val(st.join(t.flat(base.v), t.flat(key.v)), [], true);
  }
  const value = evalExpr(st, arg, pc);
  return val(t.flat(value.v), [], true);
}

function assignment(st: FlowState, node: Extract<AnyNode, { type: 'AssignmentExpression' }>, pc: Deps): Val {
  const t = st.table;
  if (node.operator === '=') {
    const right = evalExpr(st, node.right, pc);
    write(st, node.left, right, pc);
    return right;
  }
  const current = evalExpr(st, node.left as AnyNode, pc);
  if (node.operator === '||=' || node.operator === '&&=' || node.operator === '??=') {
    const decided = st.join(pc, t.flat(current.v));
    const right = evalExpr(st, node.right, decided);
    const next = val(st.join(current.v, right.v), right.refs, right.prim, right.data === true);
    write(st, node.left, next, decided);
    return val(next.v, refsOf(current, right), current.prim && right.prim, both(current, right));
  }
  const right = evalExpr(st, node.right, pc);
  const next = val(st.join(t.flat(current.v), t.flat(right.v)), [], true);
  write(st, node.left, next, pc);
  return next;
}

/** Write `value` to `target` (a variable, a member, a pattern), where `pc` decides it. */
export function write(st: FlowState, target: Pattern, value: Val, pc: Deps): void {
  const t = st.table;
  switch (target.type) {
    case 'Identifier': {
      const ref = st.model.refs.get(target);
      if (ref?.kind === 'local') st.assign(ref.binding, value, pc);
      return;
    }
    case 'MemberExpression': {
      const base = evalExpr(st, target.object as AnyNode, pc);
      const key = target.computed ? evalExpr(st, target.property as AnyNode, pc) : LITERAL;
      st.mutate(base.refs, st.join(st.join(pc, key.v), value.v));
      if (!value.prim) for (const b of base.refs) for (const r of value.refs) st.unify(b, r);
      return;
    }
    case 'ObjectPattern':
      for (const p of target.properties) {
        if (p.type === 'RestElement') write(st, p.argument, val(t.flat(value.v), refsOf(value), false, value.data === true), pc);
        else write(st, p.value, part(st, value, p, pc), pc);
      }
      return;
    case 'ArrayPattern': {
      iterated(st, pc, value);
      target.elements.forEach((e, i) => {
        if (e === null) return;
        if (e.type === 'RestElement') write(st, e.argument, val(t.flat(value.v), refsOf(value), false, value.data === true), pc);
        else write(st, e, val(t.narrow(value.v, String(i)), refsOf(value), value.prim, value.data === true), pc);
      });
      return;
    }
    case 'AssignmentPattern': {
      const fallback = evalExpr(st, target.right, st.join(pc, t.flat(value.v)));
      write(st, target.left, val(st.join(value.v, fallback.v), refsOf(value, fallback), value.prim && fallback.prim, both(value, fallback), value.answer === true && fallback.answer === true), pc);
      return;
    }
    case 'RestElement':
      write(st, target.argument, val(t.flat(value.v), refsOf(value), false, value.data === true), pc);
      return;
  }
}

/** The field a destructuring property reads. */
function part(st: FlowState, value: Val, p: Property | Extract<AnyNode, { type: 'Property' }>, pc: Deps): Val {
  const t = st.table;
  const key = p.key;
  if (!p.computed) return field(st, value, key.type === 'Identifier' ? key.name : String((key as { value?: unknown }).value));
  const k = evalExpr(st, key, pc);
  return val(st.join(t.narrow(value.v, ANY_PART), t.flat(k.v)), refsOf(value), value.prim, value.data === true);
}

/**
 * The field `name` of `base`. A field of a primitive is a primitive (or a built-in's method, which
 * cannot be changed); the `text` of an answer is a string; a field of plain data is plain data.
 */
function field(st: FlowState, base: Val, name: string): Val {
  const v = st.table.narrow(base.v, name);
  if (base.prim || (base.answer === true && name === 'text')) return val(v, [], true);
  return val(v, base.refs, false, base.data === true);
}

function member(st: FlowState, node: Extract<AnyNode, { type: 'MemberExpression' }>, pc: Deps): Val {
  const t = st.table;
  const base = evalExpr(st, node.object as AnyNode, pc);
  st.guard(node.optional, base.v);
  if (!node.computed) return field(st, base, (node.property as { name: string }).name);
  const property = node.property as AnyNode;
  if (property.type === 'Literal') return field(st, base, String(property.value));
  const key = evalExpr(st, property, st.inChain(pc));
  return val(st.join(t.narrow(base.v, ANY_PART), t.flat(key.v)), refsOf(base), base.prim, base.data === true);
}
