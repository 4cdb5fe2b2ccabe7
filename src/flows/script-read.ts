/**
 * Reading a `run_js` script into its model (`script-model.ts`): parsed as the body of the async
 * function it runs as, its declarations put in their scopes (hoisted as JavaScript hoists them),
 * its statements walked, its expressions read by `script-read-expr.ts`.
 */
import { parse, type AnyNode, type CallExpression, type Identifier, type Node, type Pattern, type Statement } from 'acorn';
import { NAMESPACE_GLOBALS, NEW_GLOBALS, PRELUDE_CALLS, PURE_FUNCTIONS, RESERVED_PREFIX, UNDECLARABLE, VALUE_GLOBALS } from './script-globals.js';
import { GiveUp, type Binding, type FnModel, type FnNode, type Pos, type ReadContext, type ReadModel, type Ref, type ScriptModel, type SiteModel, type WrapModel } from './script-model.js';
import { readExpr, readPattern } from './script-read-expr.js';
import { patternNames, Scope, varPatterns } from './script-scope.js';

/** What the script is wrapped in to be parsed as it runs: the body of an async arrow function. */
const BEFORE = '(async () => {\n';
const AFTER = '\n})';

/** Read `code` into its model; throws {@link GiveUp} with the reason when the analysis cannot follow it. */
export function readScript(code: string): ScriptModel {
  if (/<!--|-->|[\u2028\u2029]/u.test(code)) throw new GiveUp('HTML-like comments or Unicode line separators');
  let program;
  // Where each `.`, `?.` and `[` is: a read through the helper is rewritten at its accessor.
  const accessors: number[] = [];
  try {
    program = parse(BEFORE + code + AFTER, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      onToken: (token) => {
        const label = token.type.label;
        if (label === '.' || label === '?.' || label === '[') accessors.push(token.start);
      },
    });
  } catch {
    throw new GiveUp('the script does not parse');
  }
  const statement = program.body.length === 1 ? program.body[0] : undefined;
  const top = statement?.type === 'ExpressionStatement' ? statement.expression : undefined;
  // The wrapper must be what was parsed, whole: a script that closes it early is not one body.
  if (top?.type !== 'ArrowFunctionExpression' || !top.async || top.body.type !== 'BlockStatement' || top.start !== 1 || top.end !== program.end - 1) {
    throw new GiveUp('the script is not one function body');
  }
  return new Reader(top as TopFn, -BEFORE.length, accessors).read();
}

type TopFn = FnNode & { body: { type: 'BlockStatement'; body: Statement[] } };

class Reader implements ReadContext {
  readonly bindings: Binding[] = [];
  chain: Node | undefined;
  private readonly refs = new Map<Identifier, Ref>();
  private readonly fns = new Map<FnNode, FnModel>();
  private readonly sites = new Map<CallExpression, SiteModel>();
  private readonly siteList: SiteModel[] = [];
  private readonly wraps: WrapModel[] = [];
  private readonly reads: ReadModel[] = [];
  /** Calls of functions of the script, and callbacks, linked to their models once every function is read. */
  private readonly userCalls: [CallExpression, FnNode][] = [];
  private readonly callbacks: [CallExpression, FnNode[]][] = [];
  private concurrent = false;
  private scope = new Scope(undefined);
  /** The function declarations hoisted (each at the top of a function's body): no other is followed. */
  private readonly hoisted = new Set<Statement>();

  constructor(
    private readonly top: TopFn,
    readonly shift: number,
    /** The positions of the accessor tokens, in order. */
    private readonly accessors: number[],
  ) {}

  read(): ScriptModel {
    this.fn(this.top);
    const model = (fn: FnNode): FnModel => this.fns.get(fn)!;
    return {
      body: this.top.body.body,
      top: this.top,
      bindings: this.bindings,
      refs: this.refs,
      fns: this.fns,
      sites: this.sites,
      siteList: this.siteList,
      userCalls: new Map(this.userCalls.map(([node, fn]) => [node, model(fn)])),
      callbacks: new Map(this.callbacks.map(([node, fns]) => [node, fns.map(model)])),
      wraps: this.wraps,
      reads: this.reads,
      concurrent: this.concurrent,
    };
  }

  addRead(node: Extract<AnyNode, { type: 'MemberExpression' }>, name: string | undefined): void {
    // The last accessor before the property: the object's own tokens come before it, its closing parentheses too.
    const before = node.property.start;
    let lo = 0;
    let hi = this.accessors.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.accessors[mid] < before) lo = mid + 1;
      else hi = mid;
    }
    const accessor = this.accessors[lo - 1];
    if (accessor === undefined || accessor < node.object.end) throw new GiveUp('a member whose accessor cannot be found');
    this.reads.push({ start: node.start + this.shift, end: node.end + this.shift, accessor: accessor + this.shift, ...(name !== undefined ? { name } : {}) });
  }

  get siteCount(): number {
    return this.siteList.length;
  }

  addSite(site: SiteModel): void {
    this.sites.set(site.call, site);
    this.siteList.push(site);
  }

  addUserCall(node: CallExpression, fn: FnNode): void {
    this.userCalls.push([node, fn]);
  }

  addCallbacks(node: CallExpression, fns: FnNode[], ranges: { start: number; end: number }[], around: Node, later: boolean): void {
    this.callbacks.push([node, fns]);
    // A promise's reaction runs once, later, beside the rest of the script: the script runs code of its own concurrently.
    if (later) {
      this.concurrent = true;
      return;
    }
    // Two calls of one optional chain are wrapped once, around the chain.
    const start = around.start + this.shift;
    const end = around.end + this.shift;
    const same = this.wraps.find((w) => w.start === start && w.end === end);
    if (same !== undefined) same.callbacks.push(...ranges);
    else this.wraps.push({ start, end, callbacks: ranges });
  }

  find(name: string): number | undefined {
    return this.scope.find(name);
  }

  checkName(name: string): void {
    if (name.startsWith(RESERVED_PREFIX)) throw new GiveUp(`the script uses the reserved name ${name}`);
  }

  identifier(id: Identifier, pos: Pos): void {
    this.checkName(id.name);
    // A name a declaration wrote is resolved already.
    if (pos === 'target' && this.refs.has(id)) return;
    const local = this.scope.find(id.name);
    if (local !== undefined) {
      this.refs.set(id, { kind: 'local', binding: local });
      if (this.bindings[local].fn !== undefined && pos !== 'callee' && pos !== 'callback') throw new GiveUp(`the function ${id.name} is used as a value`);
      return;
    }
    if (id.name === 'eval' || id.name === 'arguments') throw new GiveUp(`the script uses ${id.name}`);
    if (pos === 'target') throw new GiveUp(`the script assigns ${id.name}, which it never declared`);
    if (VALUE_GLOBALS.has(id.name)) {
      this.refs.set(id, { kind: 'global', name: id.name });
      return;
    }
    if (NAMESPACE_GLOBALS.has(id.name)) {
      const allowed = pos === 'callee' || pos === 'member' || (pos === 'newCallee' && NEW_GLOBALS.has(id.name)) || (pos === 'callback' && PURE_FUNCTIONS.has(id.name));
      if (!allowed) throw new GiveUp(`${id.name} is used as a value`);
      this.refs.set(id, { kind: 'global', name: id.name });
      return;
    }
    throw new GiveUp(PRELUDE_CALLS.has(id.name) ? `${id.name} is used other than called` : `the script names ${id.name}, which it never declared`);
  }

  /** A function: its scope, its parameters, its hoisted declarations, its body. */
  fn(node: FnNode): void {
    if (node.generator) throw new GiveUp('a generator');
    if (node.async && node !== this.top) this.concurrent = true;
    const model: FnModel = { node, args: node.params.map((_, i) => this.internal(`(argument ${i})`)), ret: this.internal('(returned)') };
    this.fns.set(node, model);
    const outer = this.scope;
    this.scope = new Scope(outer);
    // A named function expression sees its own name, bound to itself.
    if (node.type === 'FunctionExpression' && node.id) this.declare(node.id, node);
    for (const param of node.params) this.declarePattern(param);
    // Defaults are read before the body's declarations exist: they cannot see them.
    for (const param of node.params) readPattern(this, param);
    const body = node.body;
    if (body.type === 'BlockStatement') this.hoist(body.body);
    if (body.type === 'BlockStatement') this.statements(body.body, false);
    else readExpr(this, body, 'value');
    this.scope = outer;
  }

  private declare(id: Identifier, fn?: FnNode): number {
    this.checkName(id.name);
    if (UNDECLARABLE.has(id.name)) throw new GiveUp(`the script declares ${id.name}`);
    const known = this.scope.names.get(id.name);
    if (known !== undefined) {
      // A `var` declared twice is one variable; a function's name declared twice is not followed.
      if (fn !== undefined || this.bindings[known].fn !== undefined) throw new GiveUp(`${id.name} is declared twice`);
      this.refs.set(id, { kind: 'local', binding: known });
      return known;
    }
    const binding: Binding = { id: this.bindings.length, name: id.name, ...(fn !== undefined ? { fn } : {}) };
    this.bindings.push(binding);
    this.scope.names.set(id.name, binding.id);
    this.refs.set(id, { kind: 'local', binding: binding.id });
    return binding.id;
  }

  private internal(name: string): number {
    const id = this.bindings.length;
    this.bindings.push({ id, name });
    return id;
  }

  /** The `var` and function declarations of a function body, declared before it is read. */
  private hoist(body: Statement[]): void {
    for (const statement of body) {
      if (statement.type !== 'FunctionDeclaration') continue;
      this.declare(statement.id, statement);
      this.hoisted.add(statement);
    }
    for (const pattern of varPatterns(body)) this.declarePattern(pattern);
  }

  private declarePattern(pattern: Pattern): void {
    switch (pattern.type) {
      case 'Identifier':
        this.declare(pattern);
        return;
      case 'ObjectPattern':
        for (const p of pattern.properties) this.declarePattern(p.type === 'RestElement' ? p.argument : p.value);
        return;
      case 'ArrayPattern':
        for (const e of pattern.elements) if (e !== null) this.declarePattern(e);
        return;
      case 'RestElement':
        return this.declarePattern(pattern.argument);
      case 'AssignmentPattern':
        return this.declarePattern(pattern.left);
      default:
        throw new GiveUp('a declaration of a member');
    }
  }

  /** A list of statements; a block's `let`, `const` (and functions, which are refused there) in a scope of its own. */
  private statements(list: Statement[], block: boolean): void {
    const outer = this.scope;
    if (block) this.scope = new Scope(outer);
    for (const s of list) {
      if (block && s.type === 'FunctionDeclaration') throw new GiveUp('a function declared in a block');
      this.lexical(s);
    }
    for (const s of list) this.statement(s);
    this.scope = outer;
  }

  private lexical(s: Statement): void {
    if (s.type === 'ClassDeclaration') throw new GiveUp('a class');
    if (s.type !== 'VariableDeclaration') return;
    if (s.kind !== 'var' && s.kind !== 'let' && s.kind !== 'const') throw new GiveUp(`a ${s.kind} declaration`);
    if (s.kind === 'var') return;
    for (const d of s.declarations) {
      const init = d.init;
      const isFn = init !== null && init !== undefined && (init.type === 'FunctionExpression' || init.type === 'ArrowFunctionExpression');
      if (s.kind === 'const' && d.id.type === 'Identifier' && isFn) this.declare(d.id, init);
      else this.declarePattern(d.id);
    }
  }

  private statement(s: Statement): void {
    switch (s.type) {
      case 'ExpressionStatement':
        return readExpr(this, s.expression, 'value');
      case 'BlockStatement':
        return this.statements(s.body, true);
      case 'EmptyStatement':
      case 'DebuggerStatement':
      case 'BreakStatement':
      case 'ContinueStatement':
        return;
      case 'ReturnStatement':
      case 'ThrowStatement':
        if (s.argument) readExpr(this, s.argument, 'value');
        return;
      case 'LabeledStatement':
        this.checkName(s.label.name);
        return this.statement(s.body);
      case 'IfStatement':
        readExpr(this, s.test, 'value');
        this.statement(s.consequent);
        if (s.alternate) this.statement(s.alternate);
        return;
      case 'SwitchStatement':
        return this.switchCases(s);
      case 'TryStatement':
        this.statement(s.block);
        if (s.handler) {
          const outer = this.scope;
          this.scope = new Scope(outer);
          if (s.handler.param) {
            this.declarePattern(s.handler.param);
            readPattern(this, s.handler.param);
          }
          this.statement(s.handler.body);
          this.scope = outer;
        }
        if (s.finalizer) this.statement(s.finalizer);
        return;
      case 'WhileStatement':
      case 'DoWhileStatement':
        readExpr(this, s.test, 'value');
        return this.statement(s.body);
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
        return this.loop(s);
      case 'FunctionDeclaration':
        // Declared in a block, after a label, as a branch: how it is bound differs between engines.
        if (!this.hoisted.has(s)) throw new GiveUp('a function declared other than at the top of a body');
        return this.fn(s);
      case 'VariableDeclaration':
        for (const d of s.declarations) {
          if (s.kind === 'var') this.varInPlace(d.id);
          readPattern(this, d.id);
          if (d.init) readExpr(this, d.init, s.kind === 'const' && d.id.type === 'Identifier' ? 'constInit' : 'value');
        }
        return;
      default:
        // `with`, classes: not followed.
        throw new GiveUp(`a ${s.type}`);
    }
  }

  /**
   * A `var` names where it is written the variable it declares: one a `catch` parameter of the same
   * name hides is another variable there (and an assignment to it writes the parameter).
   */
  private varInPlace(pattern: Pattern): void {
    for (const id of patternNames(pattern)) {
      const declared = this.refs.get(id);
      if (declared?.kind === 'local' && this.scope.find(id.name) !== declared.binding) throw new GiveUp(`a var ${id.name} hidden where it is declared`);
    }
  }

  private switchCases(s: Extract<Statement, { type: 'SwitchStatement' }>): void {
    readExpr(this, s.discriminant, 'value');
    const outer = this.scope;
    this.scope = new Scope(outer);
    for (const c of s.cases.flatMap((k) => k.consequent)) {
      if (c.type === 'FunctionDeclaration') throw new GiveUp('a function declared in a switch');
      this.lexical(c);
    }
    for (const c of s.cases) {
      if (c.test) readExpr(this, c.test, 'value');
      for (const x of c.consequent) this.statement(x);
    }
    this.scope = outer;
  }

  private loop(s: Extract<Statement, { type: 'ForStatement' | 'ForInStatement' | 'ForOfStatement' }>): void {
    const outer = this.scope;
    this.scope = new Scope(outer);
    const head = s.type === 'ForStatement' ? s.init : s.left;
    if (head?.type === 'VariableDeclaration') {
      this.lexical(head);
      for (const d of head.declarations) {
        if (head.kind === 'var') this.varInPlace(d.id);
        readPattern(this, d.id);
        if (d.init) readExpr(this, d.init, 'value');
      }
    } else if (head !== null && head !== undefined) {
      if (s.type === 'ForStatement') readExpr(this, head as AnyNode, 'value');
      else readPattern(this, head as Pattern);
    }
    if (s.type === 'ForStatement') {
      if (s.test) readExpr(this, s.test, 'value');
      if (s.update) readExpr(this, s.update, 'value');
    } else {
      readExpr(this, s.right, 'value');
    }
    this.statement(s.body);
    this.scope = outer;
  }
}
