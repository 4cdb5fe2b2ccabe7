/**
 * `toolweave check`: the forge-time check for a user's own CI. It connects to every server,
 * validates every composite against the tools as they are now, and runs each composite's examples
 * as dry runs (side-effecting steps take their stub outputs). One line per server and per composite;
 * any problem makes the exit code non-zero.
 */
import { isDeepStrictEqual } from 'node:util';
import { Ajv } from 'ajv';
import { ComposableToolBuilder, createStepGate, SpecError, type ComposableToolSpec, type ITool } from '../index.js';
import { loadComposites } from './composites.js';
import type { CompositeFile, ProxyConfig } from './config.js';
import { proxyAdvice } from './advice.js';
import type { Log } from './log.js';
import { OWN_TOOL_NAMES, ProxyCore } from './proxy-core.js';

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
    const registry = new Map<string, ITool>(core.upstreamTools().map((tool) => [tool.name, tool]));
    for (const collision of collisions) fail(`tool_name_collision: ${collision}`);
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys(), advice: proxyAdvice(core, 'check') }));
    builder.bind({ sideEffectingTools: config.sideEffectingTools ?? [] });
    for (const composite of composites) {
      const problem = await checkComposite(composite, builder, registry);
      if (problem) fail(`composite ${composite.name} (${composite.file}): ${problem}`);
      else lines.push(`ok   composite ${composite.name}: ${composite.examples?.length ?? 0} examples`);
    }
  } finally {
    await core.close();
  }
  return { lines, ok };
}

/** Build the composite against the tools as they are, then run each example dry; the first problem, or undefined. */
async function checkComposite(composite: CompositeFile, builder: ComposableToolBuilder, registry: Map<string, ITool>): Promise<string | undefined> {
  if (registry.has(composite.name) || OWN_TOOL_NAMES.includes(composite.name)) return `tool_name_collision: the name "${composite.name}" is taken by another tool`;
  const spec = composite.spec as unknown as ComposableToolSpec;
  let tool: ITool;
  try {
    tool = builder.build(composite.name, composite.description, composite.inputSchema, spec);
  } catch (error) {
    return `spec_invalid: ${error instanceof SpecError ? error.errors.join('; ') : String(error)}`;
  }
  registry.set(composite.name, tool);
  const checkInput = ajv.compile(composite.inputSchema);
  for (const [index, example] of (composite.examples ?? []).entries()) {
    const label = `example ${example.name ?? index + 1}`;
    if (!checkInput(example.input)) return `${label}: input_invalid: ${ajv.errorsText(checkInput.errors)}`;
    const result = await builder.runPipeline(spec, example.input, {}, { dry: { stepOutputs: example.stepOutputs ?? {} } });
    if (!result.success) return `${label}: ${String(result.details?.code ?? 'failed')}: ${result.error ?? ''}`;
    if (!isDeepStrictEqual(result.output, example.output)) return `${label}: the output was ${JSON.stringify(result.output)}, expected ${JSON.stringify(example.output)}`;
  }
  return undefined;
}
