/**
 * Tools as TypeScript declarations a model reads well: one method per tool, its argument type from
 * `inputSchema`, its return type from `outputSchema` where there is one, and the descriptions as
 * comments. A set of tools is one `declare const tools: { ... }`, so a script calls each as
 * `tools.read_file(args)`, and a name that is not an identifier as `tools["my-tool"](args)`.
 */
import { resultsReadAsText } from '../results-as-text.js';
import { isRecord } from '../spec/nodes.js';
import type { ITool } from '../tool.js';
import { propertyKey, safeInComment, schemaToType, type SchemaTypeOptions } from './schema-type.js';

/**
 * What a declaration is made of: a tool's name, description and schemas. An {@link ITool} is one.
 *
 * @category Code mode / discovery
 */
export type DeclaredTool = Pick<ITool, 'name' | 'description' | 'inputSchema'> & Partial<Pick<ITool, 'outputSchema'>>;

/**
 * Options of {@link renderDeclaration} and {@link renderDeclarations}.
 *
 * @category Code mode / discovery
 */
export interface DeclarationOptions extends SchemaTypeOptions {
  /** Put the tool's description above it as a doc comment. Default true. */
  description?: boolean;
}

/**
 * One tool as a method signature, its description (unless `description: false`) as a doc comment
 * above it:
 *
 * ```ts
 * /** Read a file as text. *\/
 * read_text_file(args: {
 *   /** Path to the file *\/
 *   path: string;
 *   tail?: number;
 * }): Promise<string>;
 * ```
 *
 * The arguments are optional (`args?:`) when the schema requires none. The return type is the
 * `outputSchema`'s type, `string` for an MCP tool whose results read as text, else `unknown`.
 * A schema that cannot be said exactly is said loosely with a comment; rendering never throws.
 *
 * @category Code mode / discovery
 */
export function renderDeclaration(tool: DeclaredTool, options: DeclarationOptions = {}): string {
  return member(tool, options, '');
}

/**
 * Every tool as one declaration of the `tools` object a script calls them through:
 *
 * ```ts
 * declare const tools: {
 *   /** Read a file as text. *\/
 *   read_text_file(args: { path: string; tail?: number }): Promise<string>;
 *   "API-get-user"(args: { user_id: string }): Promise<unknown>;
 * };
 * ```
 *
 * @category Code mode / discovery
 */
export function renderDeclarations(tools: readonly DeclaredTool[], options: DeclarationOptions = {}): string {
  return renderDeclarationsWithin(tools, Infinity, options)!;
}

/**
 * {@link renderDeclarations}, or `undefined` as soon as the text passes `maxChars`: a catalog
 * too large to list is found out after the first few tools, not after rendering them all.
 */
export function renderDeclarationsWithin(tools: readonly DeclaredTool[], maxChars: number, options: DeclarationOptions = {}): string | undefined {
  const head = 'declare const tools: {\n';
  const tail = '\n};';
  let length = head.length + tail.length;
  const members: string[] = [];
  for (const tool of tools) {
    const text = member(tool, options, '  ');
    length += text.length + (members.length ? 1 : 0);
    if (length > maxChars) return undefined;
    members.push(text);
  }
  return `${head}${members.join('\n')}${tail}`;
}

function member(tool: DeclaredTool, options: DeclarationOptions, indent: string): string {
  const input = isRecord(tool.inputSchema) ? tool.inputSchema : {};
  const required = Array.isArray(input.required) && input.required.length > 0;
  const args = schemaToType(input, { ...options, indent });
  const output = resultsReadAsText(tool) ? 'string' : tool.outputSchema !== undefined ? schemaToType(tool.outputSchema, { ...options, indent }) : 'unknown';
  const signature = callableAsMember(tool.name)
    ? `${indent}${propertyKey(tool.name)}(args${required ? '' : '?'}: ${args}): Promise<${output}>;`
    : reachedThroughCallTool(tool.name, args, indent);
  const comment = options.description === false || typeof tool.description !== 'string' ? '' : docComment(tool.description, indent);
  return comment ? `${comment}\n${signature}` : signature;
}

/**
 * Names a script cannot call as `tools.<name>`: the `tools` object reads `then` as nothing, so
 * that awaiting it (or returning it) never takes it for a promise.
 */
const NOT_MEMBERS = new Set(['then']);

/**
 * Whether a tool named `name` can be called as `tools.<name>(args)` in a script; a tool that
 * cannot is reached as `callTool(name, args)`.
 *
 * @category Code mode / discovery
 */
export function callableAsMember(name: string): boolean {
  return !NOT_MEMBERS.has(name);
}

/**
 * A tool `tools` cannot hold, said as comment lines (so the declarations still compile, and declare
 * only what can be called): how to call it, and its arguments' type.
 */
function reachedThroughCallTool(name: string, args: string, indent: string): string {
  const quoted = JSON.stringify(name);
  const [first, ...rest] = args.split('\n');
  const head = `${indent}// ${quoted} is not tools.${name} (tools is never a promise): await callTool(${quoted}, args) gives {text, error}; args: ${first}`;
  return [head, ...rest.map((line) => `${indent}// ${line.slice(indent.length)}`)].join('\n');
}

/** A description as a doc comment: one line when it is one line, else one comment line per line. */
function docComment(description: string, indent: string): string {
  const lines = description
    .split('\n')
    .map((line) => safeInComment(line.replace(/\s+/gu, ' ').trim()))
    // Blank lines collapse to one and never open or close the comment.
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!lines.length) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  return `${indent}/**\n${lines.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)).join('\n')}\n${indent} */`;
}
