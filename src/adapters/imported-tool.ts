/**
 * A framework's tool as a toolweave {@link ITool}: the one shape every adapter's incoming tools
 * take. A framework tool carries no side-effect flag, so an imported tool is undeclared (never
 * chained, still callable directly) unless the host declares it by name.
 */
import { argsRefusal, failure, type ITool, type JSONSchemaObject, type ToolExecutionContext, type ToolExecutionResult } from '../index.js';

/**
 * What the host declares about one imported tool.
 *
 * @category Adapters: from a framework
 */
export interface ImportedToolDeclaration {
  /**
   * `false`: pure, chained freely; `true`: has side effects, chained only where the host lists it
   * in `sideEffectingTools`. Left out, the tool is undeclared: never chained, callable directly.
   */
  hasSideEffects?: boolean;
}

/**
 * Options of every adapter's `from...Tools`: declarations for the imported tools, by name.
 *
 * @category Adapters: from a framework
 */
export interface ImportOptions {
  /** The host's declarations, by tool name; a name that is not among the tools given is refused. */
  tools?: Record<string, ImportedToolDeclaration>;
}

/** The parts of an imported tool that differ by framework. */
export interface ImportedToolParts {
  /** The framework, for the id (`<framework>:<name>`) and messages. */
  framework: string;
  name: string;
  displayName?: string;
  description: string;
  inputSchema: JSONSchemaObject;
  /** Run the framework's tool; a throw is a `tool_failed` result. */
  run(args: Record<string, unknown>, context: ToolExecutionContext): Promise<ToolExecutionResult>;
}

/**
 * The declarations of `options`, checked against the names given: a declaration for a tool that
 * is not there is a mistake that would leave the real tool undeclared, so it is refused.
 *
 * @throws TypeError naming the unknown declarations (a programming error, at configuration time)
 */
export function declarationsFor(adapter: string, names: readonly string[], options: ImportOptions | undefined): (name: string) => ImportedToolDeclaration {
  const declared = options?.tools ?? {};
  const unknown = Object.keys(declared).filter((name) => !names.includes(name));
  if (unknown.length) {
    throw new TypeError(`${adapter}: options.tools declares ${unknown.map((n) => `"${n}"`).join(', ')}, not among the tools given (${names.join(', ') || 'none'}).`);
  }
  return (name) => (Object.prototype.hasOwnProperty.call(declared, name) ? declared[name] : {});
}

/** Make the {@link ITool}: arguments checked against the schema, every failure a result with a code. */
export function importedTool(parts: ImportedToolParts, declaration: ImportedToolDeclaration): ITool {
  const tool: ITool = {
    id: `${parts.framework}:${parts.name}`,
    name: parts.name,
    displayName: parts.displayName ?? parts.name,
    description: parts.description,
    inputSchema: parts.inputSchema,
    ...(typeof declaration.hasSideEffects === 'boolean' ? { hasSideEffects: declaration.hasSideEffects } : {}),
    async execute(args, context) {
      const input = (args ?? {}) as Record<string, unknown>;
      const refusal = argsRefusal(tool, parts.name, parts.name, input);
      if (refusal) return refusal;
      try {
        return await parts.run(input, context ?? {});
      } catch (error) {
        return failure('tool_failed', `${parts.framework} tool "${parts.name}" threw: ${error instanceof Error ? error.message : String(error)}`, { tool: parts.name });
      }
    },
  };
  return tool;
}
