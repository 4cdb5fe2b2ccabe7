/**
 * The config's scripts as tools: each checks its input against its schema, then runs its script
 * in run_js's sandbox with the input as `input`, so every call it makes passes the session's gate
 * (permissions, the chainability rule, approvals, budgets) as a run_js script's do. A script may
 * reach only the side-effecting tools it declares, and only those the config lets be chained.
 */
import { createScriptTool, failure, type ITool, type SandboxPool, type ScriptToolOptions, type StepGate } from '../index.js';
import type { CompositeFile, SnippetConfig } from './config-types.js';
import { inputChecker, inputErrors } from './snippet-config.js';

/** What a session gives each script tool. */
export interface SnippetContext {
  /** The gate its calls pass. */
  gate: StepGate;
  /** The side-effecting tools the config lets be chained (its list and `--chain`). */
  sideEffectingTools: readonly string[];
  /** run_js's options from the config. */
  scriptOptions?: Omit<ScriptToolOptions, 'sideEffectingTools' | 'pool' | 'scope' | 'discovery'>;
  /** The sandbox pool the proxy's sessions share. */
  pool?: SandboxPool;
}

/**
 * The side-effecting tools a script may call: those it declares that the config also lets be
 * chained. A declared tool the config does not list is refused inside it, as in any script.
 */
export function allowedEffects(snippet: SnippetConfig, sideEffectingTools: readonly string[]): string[] {
  const allowed = new Set(sideEffectingTools);
  return (snippet.sideEffectingTools ?? []).filter((tool) => allowed.has(tool));
}

/**
 * The declared side-effecting tools the config does not let be chained: each is refused inside
 * the script until the config's `sideEffectingTools` lists it.
 */
export function refusedEffects(snippet: SnippetConfig, sideEffectingTools: readonly string[]): string[] {
  const allowed = new Set(sideEffectingTools);
  return (snippet.sideEffectingTools ?? []).filter((tool) => !allowed.has(tool));
}

/**
 * The tool that serves the script `name`.
 *
 * @param name - its name, as the config gives it
 * @param snippet - its entry
 * @param context - the session's gate, chainable tools, run_js options and pool
 */
export function createSnippetTool(name: string, snippet: SnippetConfig, context: SnippetContext): ITool {
  const effects = allowedEffects(snippet, context.sideEffectingTools);
  const runner = createScriptTool(context.gate, { ...context.scriptOptions, sideEffectingTools: effects, ...(context.pool ? { pool: context.pool } : {}) });
  const checkInput = inputChecker(snippet.inputSchema);
  return {
    id: name,
    name,
    displayName: name,
    description: snippet.description,
    inputSchema: snippet.inputSchema as ITool['inputSchema'],
    // As a run_js tool's: it can change things exactly when it may reach a side-effecting tool.
    hasSideEffects: (snippet.sideEffectingTools ?? []).length > 0,
    composition: true,
    async execute(args, toolContext) {
      const input = args ?? {};
      if (!checkInput(input)) return failure('input_invalid', `Script tool "${name}": ${inputErrors(checkInput)}.`, { tool: name, errors: [inputErrors(checkInput)] });
      // On the script's first line, so the line numbers of its errors are the config's.
      return runner.execute({ code: `const input = ${JSON.stringify(input)}; ${snippet.script}` }, toolContext);
    },
  };
}

/**
 * The names both a script of the config and a composite file take, each with the problem to
 * report: neither is served, since which one a caller meant cannot be known.
 */
export function compositeClashes(scripts: Readonly<Record<string, SnippetConfig>>, composites: readonly CompositeFile[]): Map<string, string> {
  const clashes = new Map<string, string>();
  for (const composite of composites) {
    if (Object.hasOwn(scripts, composite.name)) {
      clashes.set(composite.name, `scripts.${composite.name}: the name is also the composite's of ${composite.file}; neither is served until one is renamed`);
    }
  }
  return clashes;
}
