/**
 * The proxy's words in refusals: what a person running `toolweave mcp` or `toolweave check` can
 * change is the command line and the config file, not the library's options, so a refusal names
 * `--chain write_file` and the config's keys; and a name no tool has is told which servers are not
 * connected, and why.
 */
import type { RefusalAdvice } from '../index.js';
import { callableAsMember } from '../discovery/declarations.js';
import type { ProxyCore } from './proxy-core.js';

/** Where the advice is read: the proxy (with its command line) or `toolweave check` (a config file only). */
export type AdviceReader = 'mcp' | 'check';

/**
 * The gate's advice for the proxy's sessions, or for `toolweave check`. `scriptReaches` (a
 * code-only session) says whether a script may call a tool: a direct call of one is told so.
 */
export function proxyAdvice(core: ProxyCore, reader: AdviceReader, scriptReaches?: (tool: string) => boolean): RefusalAdvice {
  return {
    chain: (tool) =>
      reader === 'mcp'
        ? `restart toolweave mcp with --chain ${tool}, or list "${tool}" in the config file's sideEffectingTools`
        : `list "${tool}" in the config file's sideEffectingTools`,
    declare: (tool) => declareAdvice(core, reader, tool),
    missing: (tool) => (scriptReaches?.(tool) ? codeOnlyNote(tool) : core.missingNote(tool)),
    // `check` is read by the person who wrote the composite and its examples, not by a model.
    args: () => (reader === 'check' ? "Fix the step's inputMapping in the composite file, or the example's input." : undefined),
  };
}

/** How to declare whether an upstream tool has side effects: the config's per-tool entry, or trusting the server's annotations. */
function declareAdvice(core: ProxyCore, reader: AdviceReader, tool: string): string | undefined {
  const owner = core.ownerOf(tool);
  // Not an upstream tool: the library's words fit.
  if (!owner) return undefined;
  const { upstream, own } = owner;
  const chain = reader === 'mcp' ? `--chain ${tool} or sideEffectingTools` : 'sideEffectingTools';
  const entry = `servers.${upstream.name}.tools.${own}.hasSideEffects (false: it changes nothing; true: it does, and then list it with ${chain})`;
  if (upstream.name === core.config.commandLineServer) {
    return `restart toolweave mcp with --trust-annotations (the server's readOnlyHint: true then makes a tool pure), or serve it from a config file and declare it there: ${entry}`;
  }
  return `declare it in the config file: ${entry}, or set trustAnnotations: true on server "${upstream.name}" to go by the server's annotations`;
}

/**
 * Code-only serves no tool but the doors: where one a script may call is, and the call that reaches
 * it (`tools.<name>` only where a script can call it so: never for `then`).
 */
export function codeOnlyNote(tool: string): string {
  const call = `\`await callTool(${JSON.stringify(tool)}, { ... })\``;
  if (!callableAsMember(tool)) return `"${tool}" is not served directly here (code-only): call it from run_js, as ${call}.`;
  const property = /^[A-Za-z_$][\w$]*$/u.test(tool) ? `.${tool}` : `[${JSON.stringify(tool)}]`;
  return `"${tool}" is not served directly here (code-only): call it from run_js, as \`await tools${property}({ ... })\` or ${call}.`;
}
