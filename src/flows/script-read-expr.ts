/**
 * Reading a script's expressions and patterns for its model (`script-model.ts`): each name
 * resolved where it stands, each call sorted (a tool's site, a call of the script's own function,
 * a call of a built-in, maybe handed functions of the script), and everything the analysis does
 * not follow refused.
 */
import type { AnyNode, CallExpression, Identifier, Node, Pattern } from 'acorn';
import { ALIASING_MEMBERS, CONSTANT_MEMBERS, FORBIDDEN_MEMBERS, NAMESPACE_GLOBALS, OTHER_STATIC_CALLS, PRIMITIVE_MEMBERS, PROTO_OBJECT_NAMES, PURE_FUNCTIONS } from './script-globals.js';
import { GiveUp, staticName, type FnNode, type Pos, type ReadContext, type SiteModel } from './script-model.js';

/** Read an expression standing at `pos`; `inChain` when it is the callee or object of a link of the chain being read. */
export function readExpr(ctx: ReadContext, node: AnyNode, pos: Pos, inChain = false): void {
  const chain = ctx.chain;
  if (!inChain) ctx.chain = undefined;
  try {
    exprIn(ctx, node, pos);
  } finally {
    ctx.chain = chain;
  }
}

function exprIn(ctx: ReadContext, node: AnyNode, pos: Pos): void {
  switch (node.type) {
    case 'Identifier':
      return ctx.identifier(node, pos);
    case 'Literal':
      return;
    case 'TemplateLiteral':
      return node.expressions.forEach((e) => readExpr(ctx, e, 'value'));
    case 'ArrayExpression':
      for (const e of node.elements) if (e !== null) readExpr(ctx, e.type === 'SpreadElement' ? e.argument : e, 'value');
      return;
    case 'ObjectExpression':
      for (const p of node.properties) {
        if (p.type === 'SpreadElement') readExpr(ctx, p.argument, 'value');
        else {
          if (p.kind !== 'init' || p.method) throw new GiveUp('a method, getter or setter in an object');
          if (p.computed) readExpr(ctx, p.key, 'value');
          else memberName(p.key);
          readExpr(ctx, p.value, 'value');
        }
      }
      return;
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
      if (pos !== 'callee' && pos !== 'callback' && pos !== 'constInit') throw new GiveUp('a function used as a value');
      return ctx.fn(node);
    case 'UnaryExpression':
    case 'UpdateExpression':
      return readExpr(ctx, node.argument, node.type === 'UpdateExpression' || node.operator === 'delete' ? 'target' : 'value');
    case 'BinaryExpression':
      if (node.left.type === 'PrivateIdentifier') throw new GiveUp('a private name');
      readExpr(ctx, node.left, 'value');
      return readExpr(ctx, node.right, 'value');
    case 'LogicalExpression':
      readExpr(ctx, node.left, 'value');
      return readExpr(ctx, node.right, 'value');
    case 'AssignmentExpression':
      // `x.m ||= v` answers what it read: a built-in's method, when `m` names one.
      if ((node.operator === '||=' || node.operator === '&&=' || node.operator === '??=') && node.left.type === 'MemberExpression' && readsBuiltin(node.left)) {
        throw new GiveUp('a logical assignment to a member that may be a built-in');
      }
      readPattern(ctx, node.left);
      return readExpr(ctx, node.right, 'value');
    case 'ConditionalExpression':
      readExpr(ctx, node.test, 'value');
      readExpr(ctx, node.consequent, 'value');
      return readExpr(ctx, node.alternate, 'value');
    case 'SequenceExpression':
      return node.expressions.forEach((e) => readExpr(ctx, e, 'value'));
    case 'AwaitExpression':
      return readExpr(ctx, node.argument, 'value');
    case 'ChainExpression':
      ctx.chain = node;
      return readExpr(ctx, node.expression, pos, true);
    case 'MemberExpression':
      return member(ctx, node, pos);
    case 'CallExpression':
      return call(ctx, node);
    case 'NewExpression':
      if (node.callee.type !== 'Identifier') throw new GiveUp('`new` of something other than a built-in');
      ctx.identifier(node.callee, 'newCallee');
      return node.arguments.forEach((a) => readExpr(ctx, a.type === 'SpreadElement' ? a.argument : a, 'value'));
    default:
      // `this`, `super`, classes, `yield`, tagged templates, `import`, `new.target`: not followed.
      throw new GiveUp(`a ${node.type}`);
  }
}

/** The names and defaults in a pattern a declaration or an assignment writes to. */
export function readPattern(ctx: ReadContext, p: Pattern): void {
  switch (p.type) {
    case 'Identifier':
      return ctx.identifier(p, 'target');
    case 'ObjectPattern':
      for (const prop of p.properties) {
        if (prop.type === 'RestElement') readPattern(ctx, prop.argument);
        else {
          // What a pattern reads could be a built-in's method: only plain names are followed.
          const name = staticName(prop.key, prop.computed);
          if (name === undefined || PROTO_OBJECT_NAMES.has(name)) throw new GiveUp('a pattern that may read a built-in');
          memberName(prop.key);
          readPattern(ctx, prop.value);
        }
      }
      return;
    case 'ArrayPattern':
      for (const e of p.elements) if (e !== null) readPattern(ctx, e);
      return;
    case 'RestElement':
      return readPattern(ctx, p.argument);
    case 'AssignmentPattern':
      readPattern(ctx, p.left);
      return readExpr(ctx, p.right, 'value');
    case 'MemberExpression':
      return readExpr(ctx, p, 'target');
    default:
      throw new GiveUp('an unknown pattern');
  }
}

/** A member name the analysis does not follow (the ways to a prototype or an accessor) is refused. */
function memberName(key: AnyNode): void {
  const name = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? String(key.value) : undefined;
  if (name !== undefined && FORBIDDEN_MEMBERS.has(name)) throw new GiveUp(`the member ${name}`);
}

/** Whether reading `node` could answer a built-in's object: a name built-ins use for one, or a key computed from data. */
function readsBuiltin(node: Extract<AnyNode, { type: 'MemberExpression' }>): boolean {
  const name = staticName(node.property as AnyNode, node.computed);
  return name === undefined || PROTO_OBJECT_NAMES.has(name);
}

function member(ctx: ReadContext, node: Extract<AnyNode, { type: 'MemberExpression' }>, pos: Pos): void {
  if (node.object.type === 'Super' || node.property.type === 'PrivateIdentifier') throw new GiveUp('super or a private name');
  const global = node.object.type === 'Identifier' && ctx.find(node.object.name) === undefined && NAMESPACE_GLOBALS.has(node.object.name);
  const name = staticName(node.property, node.computed);
  if (name !== undefined) memberName(node.property);
  if (global) {
    // A built-in is only called (`Math.max(...)`), or read for a constant (`Math.PI`); never changed.
    if (name === undefined || node.computed || pos === 'target') throw new GiveUp('a built-in changed, or read by a computed name');
    const qualified = `${(node.object as Identifier).name}.${name}`;
    if (pos !== 'callee' && !CONSTANT_MEMBERS.has(qualified)) throw new GiveUp('a built-in function used as a value');
    if (pos === 'callee' && !PRIMITIVE_MEMBERS.has(qualified) && !ALIASING_MEMBERS.has(qualified) && !OTHER_STATIC_CALLS.has(qualified)) {
      throw new GiveUp(`${qualified}, which the analysis does not follow`);
    }
    return readExpr(ctx, node.object, 'member', true);
  }
  if (name === undefined) readExpr(ctx, node.property, 'value');
  if (pos === 'callee') {
    if (name === undefined) throw new GiveUp('a method named by data');
  } else if (pos !== 'target' && readsBuiltin(node)) {
    if (ctx.chain !== undefined || node.optional) throw new GiveUp('an optional read that may be a built-in');
    ctx.addRead(node, node.computed ? undefined : name);
  }
  readExpr(ctx, node.object, 'value', true);
}

function call(ctx: ReadContext, node: CallExpression): void {
  const callee = node.callee;
  if (callee.type === 'Super') throw new GiveUp('super');
  const site = siteOf(ctx, node);
  if (site !== undefined) {
    ctx.addSite(site);
    if (callee.type === 'MemberExpression' && callee.computed) readExpr(ctx, callee.property, 'value');
    return args(ctx, node, false);
  }
  if (callee.type === 'FunctionExpression' || callee.type === 'ArrowFunctionExpression') {
    readExpr(ctx, callee, 'callee');
    ctx.addUserCall(node, callee);
    return args(ctx, node, false);
  }
  if (callee.type === 'Identifier') {
    const fn = localFn(ctx, callee.name);
    if (fn !== undefined) {
      ctx.identifier(callee, 'callee');
      ctx.addUserCall(node, fn);
      return args(ctx, node, false);
    }
  }
  readExpr(ctx, callee, 'callee', true);
  args(ctx, node, true);
}

function localFn(ctx: ReadContext, name: string): FnNode | undefined {
  const local = ctx.find(name);
  return local === undefined ? undefined : ctx.bindings[local].fn;
}

/** The arguments of a call; functions of the script only in a call of a built-in (`handsOn`). */
function args(ctx: ReadContext, node: CallExpression, handsOn: boolean): void {
  const around = ctx.chain ?? node;
  const callbacks: FnNode[] = [];
  const ranges: { start: number; end: number }[] = [];
  for (const a of node.arguments) {
    if (a.type === 'SpreadElement') {
      readExpr(ctx, a.argument, 'value');
      continue;
    }
    const fn = a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression' ? a : a.type === 'Identifier' ? localFn(ctx, a.name) : undefined;
    // A built-in function handed on (`.map(Number)`) is wrapped as the script's own are.
    const builtin = a.type === 'Identifier' && ctx.find(a.name) === undefined && PURE_FUNCTIONS.has(a.name);
    if ((fn !== undefined || builtin) && handsOn) {
      readExpr(ctx, a, 'callback');
      if (fn !== undefined) callbacks.push(fn);
      ranges.push({ start: a.start + ctx.shift, end: a.end + ctx.shift });
    } else {
      readExpr(ctx, a, 'value');
    }
  }
  if (ranges.length === 0) return;
  // A promise's reaction (`then`, `catch`, `finally` by name: no object the script holds has another
  // function under the name) runs later, once: it is not wrapped, and the script is concurrent.
  const callee = node.callee;
  const method = callee.type === 'MemberExpression' ? staticName(callee.property as AnyNode, callee.computed) : undefined;
  const later = method === 'then' || method === 'catch' || method === 'finally';
  // The instrumented call runs inside an arrow function, where an `await` could not stand.
  if (!later && containsAwait(around)) throw new GiveUp('an await inside a call that is handed a function');
  ctx.addCallbacks(node, callbacks, ranges, around, later);
}

/** The site `node` is, when it calls the prelude (a name no declaration of the script shadows). */
function siteOf(ctx: ReadContext, node: CallExpression): SiteModel | undefined {
  const callee = node.callee;
  let name: Identifier | undefined;
  let kind: SiteModel['kind'] | undefined;
  if (callee.type === 'Identifier' && (callee.name === 'callTool' || callee.name === 'searchTools' || callee.name === 'describeTools')) {
    name = callee;
    kind = callee.name === 'callTool' ? 'call' : callee.name === 'searchTools' ? 'search' : 'describe';
  } else if (callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'tools') {
    name = callee.object;
    kind = 'tools';
  }
  if (name === undefined || kind === undefined || ctx.find(name.name) !== undefined) return undefined;
  return { id: ctx.siteCount, kind, call: node, start: name.start + ctx.shift, end: name.end + ctx.shift };
}

/** Whether `node` awaits or yields outside the functions it defines. */
function containsAwait(node: Node): boolean {
  let found = false;
  const visit = (value: unknown): void => {
    if (found || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    const n = value as { type?: unknown };
    if (typeof n.type !== 'string') return;
    if (n.type === 'AwaitExpression' || n.type === 'YieldExpression') {
      found = true;
      return;
    }
    if (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression' || n.type === 'FunctionDeclaration') return;
    for (const key of Object.keys(n)) if (key !== 'type' && key !== 'start' && key !== 'end') visit((n as Record<string, unknown>)[key]);
  };
  visit(node);
  return found;
}
