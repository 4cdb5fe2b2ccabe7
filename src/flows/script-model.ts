/**
 * A `run_js` script read for the analysis of what its calls depend on: parsed, every name resolved
 * to the declaration it means, every call site of a tool found, every function it defines and the
 * calls that pass one of them to a built-in. Whatever the analysis cannot follow soundly makes
 * the script unreadable here ({@link GiveUp}), and the script then runs as every script did
 * before: one label for all it reads.
 *
 * What it refuses, and why: a name it does not know (it could be anything, `globalThis` first);
 * `eval`, `with`, `this`, `arguments`, classes, generators, getters and setters, methods in
 * objects (code that runs where no call is written); a function used as a value other than called
 * where it is named or handed to a built-in (it could run anywhere); a built-in used as a value
 * (`const f = Math.max`), changed, read by a computed key, or called with `new` (but the plain
 * constructors: `Map`, `Date`, ...; never `Promise`); a static member of a built-in it does not
 * know (`Object.getPrototypeOf` answers a prototype all objects of a kind share); a method named by data (`x[k]()`); the
 * members that lead to a prototype or an accessor (`constructor`, `prototype`, `__proto__`, ...);
 * an optional read, or a pattern, that may read a built-in's method; a reference to the prelude's
 * `callTool` or `tools` other than a call (an alias would call past the instrumented sites); a
 * call handed a function with an `await` in it; a function declared in a block; a `var` a
 * `catch` parameter hides; any name starting with `RESERVED_PREFIX` (the instrumented script's
 * own); declaring a built-in's or the prelude's name; HTML-like comments and the Unicode line
 * separators (where two parsers might read the text differently).
 */
import type { AnyNode, CallExpression, Identifier, Node, Statement } from 'acorn';

/** Why a script is not analysed. */
export class GiveUp extends Error {}

/** The name a key writes (`x.name`, `x["name"]`, `{ name: ... }`), or `undefined` for a key computed from data. */
export function staticName(key: AnyNode, computed: boolean): string | undefined {
  if (!computed) return key.type === 'Identifier' ? key.name : key.type === 'Literal' ? String(key.value) : undefined;
  return key.type === 'Literal' ? String(key.value) : undefined;
}

/** A function node of the script. */
export type FnNode = Extract<AnyNode, { type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression' }>;

/** A name declared in the script. */
export interface Binding {
  readonly id: number;
  readonly name: string;
  /** The function it is bound to, for a function declaration or a `const` holding a function: called only where named. */
  fn?: FnNode;
}

/** A function the script defines. */
export interface FnModel {
  readonly node: FnNode;
  /** One binding per parameter position, holding what the calls pass there (a rest parameter: all the rest). */
  readonly args: number[];
  /** A binding standing for whatever the function returns, so what it returns aliases what it was built from. */
  readonly ret: number;
}

/** What a name in the script means. */
export type Ref = { kind: 'local'; binding: number } | { kind: 'global'; name: string };

/** One call site of a tool, the prelude's, in the order they appear. */
export interface SiteModel {
  readonly id: number;
  /** `callTool(name, args)`, `tools.<name>(args)`, `searchTools(query, limit)`, `describeTools(names)`. */
  readonly kind: 'call' | 'tools' | 'search' | 'describe';
  readonly call: CallExpression;
  /** Where the prelude's name is written: the instrumented script names the site's own function there. */
  readonly start: number;
  readonly end: number;
}

/** A call that hands a function to a built-in: the instrumented script lets it call the function only until it returns. */
export interface WrapModel {
  /** The call, or the optional chain it is in. */
  readonly start: number;
  readonly end: number;
  /** The functions handed to it (the script's, or a built-in named as a value, such as `Number`). */
  readonly callbacks: { start: number; end: number }[];
}

/**
 * A member read as a value that could be a built-in's object (a method, by its name or a
 * computed key): the instrumented script reads it through the host's helper, which never answers
 * an object the value inherits.
 */
export interface ReadModel {
  /** The member expression. */
  readonly start: number;
  readonly end: number;
  /** Where its `.` or `[` is. */
  readonly accessor: number;
  /** The name read, for `x.name` (written as a string); absent for `x[key]`, whose key stays as written. */
  readonly name?: string;
}

/** A script read: see the module comment. */
export interface ScriptModel {
  /** The script's body (the statements of the async function it is). */
  readonly body: Statement[];
  /** The script's own function, whose body `body` is. */
  readonly top: FnNode;
  readonly bindings: Binding[];
  /** What each identifier of the script that names a variable means. */
  readonly refs: Map<Identifier, Ref>;
  readonly fns: Map<FnNode, FnModel>;
  /** Each call of a tool, by its call node. */
  readonly sites: Map<CallExpression, SiteModel>;
  readonly siteList: SiteModel[];
  /** Each call of a function of the script by its name (or as written, called at once). */
  readonly userCalls: Map<CallExpression, FnModel>;
  /** Each call that hands functions of the script to a built-in, with them. */
  readonly callbacks: Map<CallExpression, FnModel[]>;
  readonly wraps: WrapModel[];
  readonly reads: ReadModel[];
  /** The script defines an async function of its own: code of the script may run while the rest waits. */
  readonly concurrent: boolean;
}

/** Where an expression stands, for what may stand there: a function of the script only where it is called or handed to a built-in. */
export type Pos = 'value' | 'callee' | 'newCallee' | 'member' | 'callback' | 'constInit' | 'target';

/** What reading an expression needs of the reader of the whole script (`script-read.ts`). */
export interface ReadContext {
  /** Added to a position in the parsed text to give it in the script. */
  readonly shift: number;
  /** The optional chain the expression being read is part of (its callee or object path). */
  chain: Node | undefined;
  /** Read a function the script defines. */
  fn(node: FnNode): void;
  /** Resolve a name standing at `pos`; throws {@link GiveUp} where it may not stand. */
  identifier(id: Identifier, pos: Pos): void;
  /** The declaration `name` means where the reader is, if the script declares it. */
  find(name: string): number | undefined;
  readonly bindings: Binding[];
  /** Give up when `name` is the instrumented script's own. */
  checkName(name: string): void;
  /** How many sites were found so far (the next one's number). */
  readonly siteCount: number;
  addSite(site: SiteModel): void;
  /** `node` calls the function `fn` of the script (its model may not be made yet). */
  addUserCall(node: CallExpression, fn: FnNode): void;
  /**
   * `node` hands `fns` (and built-ins) to a built-in, written at `ranges`; the call (or its chain)
   * `around` is wrapped, unless the callbacks run `later` (a promise's `then`, `catch`, `finally`).
   */
  addCallbacks(node: CallExpression, fns: FnNode[], ranges: { start: number; end: number }[], around: Node, later: boolean): void;
  /** The member `node` is read as a value through the helper (see {@link ReadModel}); `name` for a name written. */
  addRead(node: Extract<AnyNode, { type: 'MemberExpression' }>, name: string | undefined): void;
}
