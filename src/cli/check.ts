/**
 * `toolweave check`: the forge-time check for a user's own CI. It connects to every server,
 * validates every composite against the tools as they are now, and runs each composite's examples
 * as dry runs (side-effecting steps take their stub outputs), and does the same for the config's
 * scripts (`scripts:`); with `flows`, it lists which side effects untrusted data can steer
 * (`check-flows.ts`, whose `warn` lines are the only ones that do not fail). One line per server, per composite or script
 * that passes and per problem (a warning is one: CI is where a typo should stop); any problem makes
 * the exit code non-zero.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { ComposableToolBuilder, createStepGate, SpecError, type ComposableToolSpec, type ITool } from '../index.js';
import { flowPolicyLines } from './check-flow-policies.js';
import { checkFlows } from './check-flows.js';
import { compositeCycles, loadComposites } from './composites.js';
import type { CompositeExample, CompositeFile, ProxyConfig, SnippetConfig } from './config-types.js';
import { compositeClashes, createSnippetTool, refusedEffects } from './snippets.js';
import { describeDifferences, outputDifferences } from './example-match.js';
import { proxyAdvice } from './advice.js';
import type { Log } from './log.js';
import { OWN_TOOL_NAMES, ProxyCore } from './proxy-core.js';
import { servedDoorNames } from './served-doors.js';

/** What the check found. */
export interface CheckReport {
  /** One line per server, composite and problem, in order. */
  lines: string[];
  /** Whether everything passed. */
  ok: boolean;
}

const ajv = new Ajv({ strict: false, allErrors: true });

/** Run the check over `config`; `log` receives the servers' own errors as they happen. */
export async function runCheck(config: ProxyConfig, log: Log): Promise<CheckReport> {
  const lines: string[] = [];
  let ok = true;
  const fail = (line: string) => {
    ok = false;
    lines.push(`FAIL ${line}`);
  };
  const { composites, problems } = await loadComposites(config.composites ?? [], config.base);
  for (const problem of problems) fail(`config_invalid ${problem}`);

  // No restarts: a server that does not start is a failure to report, not to wait out.
  const collisions: string[] = [];
  const core = new ProxyCore(config, composites, { ...log, error: (code, message) => (code === 'tool_name_collision' ? collisions.push(message) : log.error(code, message)) }, { restart: false });
  try {
    await core.start();
    for (const upstream of core.upstreams) {
      if (upstream.state === 'up') lines.push(`ok   server ${upstream.name}: ${upstream.tools.length} tools`);
      else fail(`server ${upstream.name}: upstream_unavailable: ${upstream.problem ?? 'not started'}`);
    }
    // Code-only and queued approvals change which of the proxy's own tools are served: say which.
    if (config.codeOnly || core.approvalQueue) lines.push(`ok   own tools served: ${servedDoorNames(config).join(', ')}`);
    const registry = new Map<string, ITool>(core.upstreamTools().map((tool) => [tool.name, tool]));
    for (const collision of collisions) fail(`tool_name_collision: ${collision}`);
    const gate = createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys(), advice: proxyAdvice(core, 'check') });
    const builder = new ComposableToolBuilder(gate);
    builder.bind({ sideEffectingTools: config.sideEffectingTools ?? [] });
    // The scripts first: composites may call them, as they do when served.
    const clashes = compositeClashes(config.scripts ?? {}, composites);
    const snippets: { tool: ITool; snippet: SnippetConfig; problems: string[] }[] = [];
    for (const [name, snippet] of Object.entries(config.scripts ?? {})) {
      const problems = snippetProblemsNow(name, snippet, registry, clashes, config.sideEffectingTools ?? []);
      const { pool: _pool, ...scriptOptions } = config.script ?? {};
      const tool = createSnippetTool(name, snippet, { gate, sideEffectingTools: config.sideEffectingTools ?? [], scriptOptions, pool: core.pool });
      if (!registry.has(name) && !OWN_TOOL_NAMES.includes(name)) registry.set(name, tool);
      snippets.push({ tool, snippet, problems });
    }
    const cycles = compositeCycles(composites);
    for (const composite of composites) {
      if (clashes.has(composite.name)) continue;
      const cycle = cycles.get(composite.name);
      const problems = cycle !== undefined ? [`spec_invalid: ${cycle}`] : await checkComposite(composite, builder, registry);
      for (const problem of problems) fail(`composite ${composite.name} (${composite.file}): ${problem}`);
      if (problems.length === 0) lines.push(`ok   composite ${composite.name}: ${composite.examples?.length ?? 0} examples`);
    }
    for (const { tool, snippet, problems } of snippets) {
      if (problems.length === 0) {
        for (const [index, example] of (snippet.examples ?? []).entries()) {
          const problem = await checkSnippetExample(example, tool);
          if (problem) problems.push(`example ${example.name ?? index + 1}: ${problem}`);
        }
      }
      for (const problem of problems) fail(`script ${tool.name} (${config.source}): ${problem}`);
      if (problems.length === 0) lines.push(`ok   script ${tool.name}: ${snippet.examples?.length ?? 0} examples`);
    }
    // Last, over every tool the check serves: which side effects untrusted data can steer.
    const flows = checkFlows(config, core.upstreams, registry, composites);
    lines.push(...flows.lines, ...flowPolicyLines(config.flows, composites));
    ok &&= flows.ok;
  } finally {
    await core.close();
  }
  return { lines, ok };
}

/**
 * Build the composite against the tools as they are, then run each example dry. Every problem, in
 * order: a spec that cannot be built, each warning (what lenient mode lets through is most often a
 * typo, and CI is where to find it), then each example that fails.
 */
async function checkComposite(composite: CompositeFile, builder: ComposableToolBuilder, registry: Map<string, ITool>): Promise<string[]> {
  if (registry.has(composite.name) || OWN_TOOL_NAMES.includes(composite.name)) return [`tool_name_collision: the name "${composite.name}" is taken by another tool`];
  const spec = composite.spec as unknown as ComposableToolSpec;
  const problems: string[] = [];
  let tool: ITool | undefined;
  try {
    tool = builder.build(composite.name, composite.description, composite.inputSchema, spec);
  } catch (error) {
    problems.push(`spec_invalid: ${error instanceof SpecError ? error.errors.join('; ') : String(error)}`);
  }
  const { warnings } = builder.validate(spec, { name: composite.name, inputSchema: composite.inputSchema });
  for (const warning of warnings ?? []) problems.push(`warning: ${warning}`);
  problems.push(...unlistedEffects(composite, registry));
  if (!tool) return problems;
  registry.set(composite.name, tool);
  const checkInput = ajv.compile(composite.inputSchema);
  for (const [index, example] of (composite.examples ?? []).entries()) {
    const problem = await checkExample(example, builder, spec, checkInput);
    if (problem) problems.push(`example ${example.name ?? index + 1}: ${problem}`);
  }
  return problems;
}

/**
 * A file that lists its side-effecting steps (`sideEffectingSteps`, as `toolweave forge` writes it)
 * must list every step whose tool, as it is now, is not pure: a tool that changed its declaration
 * since the file was written is found here, before the composite is served.
 */
function unlistedEffects(composite: CompositeFile, registry: Map<string, ITool>): string[] {
  if (!composite.sideEffectingSteps) return [];
  const listed = new Set(composite.sideEffectingSteps);
  const problems: string[] = [];
  for (const node of callingNodes(composite.spec.steps)) {
    const tool = registry.get(node.tool);
    if (!tool || tool.hasSideEffects === false || (node.name !== undefined && listed.has(node.name))) continue;
    const why = tool.hasSideEffects === true ? 'has side effects' : 'does not declare whether it has side effects';
    problems.push(`step "${node.name ?? node.tool}" calls ${node.tool}, which ${why}, and sideEffectingSteps does not list it`);
  }
  return problems;
}

/** Every node of a spec that calls a tool, at any depth, with its name. */
function callingNodes(nodes: unknown): { name?: string; tool: string }[] {
  const found: { name?: string; tool: string }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record.tool === 'string') found.push({ ...(typeof record.name === 'string' ? { name: record.name } : {}), tool: record.tool });
    if (typeof record.calls === 'object' && record.calls !== null) Object.values(record.calls).forEach(visit);
    for (const key of ['template', 'items', 'stages', 'do', 'check']) visit(record[key]);
  };
  visit(nodes);
  return found;
}

/** Run one example dry: its problem, or undefined when the composite runs and its output matches. */
async function checkExample(example: CompositeExample, builder: ComposableToolBuilder, spec: ComposableToolSpec, checkInput: ValidateFunction): Promise<string | undefined> {
  if (!checkInput(example.input)) return `input_invalid: ${ajv.errorsText(checkInput.errors)}`;
  const result = await builder.runPipeline(spec, example.input, {}, { dry: { stepOutputs: example.stepOutputs ?? {} } });
  if (!result.success) return `${String(result.details?.code ?? 'failed')}: ${result.error ?? ''}`;
  // Without an expected output, running is what the example checks.
  if (!Object.hasOwn(example, 'output')) return undefined;
  const differences = outputDifferences(result.output, example.output, example.match ?? 'exact');
  return differences.length ? describeDifferences(differences) : undefined;
}

/**
 * What stops a script of the config from being served as written: a name another tool holds, and
 * a declared side-effecting tool the config does not let be chained (refused inside it).
 */
function snippetProblemsNow(name: string, snippet: SnippetConfig, registry: Map<string, ITool>, clashes: Map<string, string>, sideEffectingTools: readonly string[]): string[] {
  const problems: string[] = [];
  const clash = clashes.get(name);
  if (clash !== undefined) problems.push(`tool_name_collision: ${clash}`);
  else if (registry.has(name) || OWN_TOOL_NAMES.includes(name)) problems.push(`tool_name_collision: the name "${name}" is taken by another tool; rename the script`);
  for (const tool of refusedEffects(snippet, sideEffectingTools)) {
    problems.push(`step_not_chainable: it declares "${tool}", which the top-level sideEffectingTools does not list, so the script may not call it; list it there or remove it from the script's sideEffectingTools`);
  }
  return problems;
}

/**
 * Run one example of a script dry (side-effecting calls take their stub outputs): its problem, or
 * undefined when it runs and its answer matches (the answer's JSON when it is JSON, else its text).
 */
async function checkSnippetExample(example: CompositeExample, tool: ITool): Promise<string | undefined> {
  const result = await tool.execute(example.input, { dryRun: { stepOutputs: example.stepOutputs ?? {} } });
  if (!result.success) return `${String(result.details?.code ?? 'failed')}: ${result.error ?? ''}`;
  if (!Object.hasOwn(example, 'output')) return undefined;
  const differences = outputDifferences(answerOf(result.output), example.output, example.match ?? 'exact');
  return differences.length ? describeDifferences(differences) : undefined;
}

/** A script's answer as a value: its JSON text read back, or the text itself. */
function answerOf(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}
