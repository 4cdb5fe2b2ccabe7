/**
 * The injection benchmark through the proxy: the banking and workspace suites replayed through
 * `toolweave mcp` as a client would reach it, driven by the MCP SDK's `Client`. The suite's tools
 * are an upstream MCP server in this process (`proxy-upstream.ts`); the proxy is a child process
 * whose config names that server by URL and says in `flows` what the suite says in its tools'
 * properties and its host options. Each task runs in a fresh MCP session, on a fresh environment.
 *
 * Modes, as in `index.ts`: 'no hook' (flows on, `approvals: none`: a violation is refused), 'hook
 * says no' (flows on, `approvals: elicit`; the client declares elicitation and declines every
 * question, counted with its bytes), 'no flows' (no `flows` section: what the attacks do unchecked).
 * Doors: a direct call (only tasks whose program is one call), a composite file, run_pipeline,
 * compose and run_js. The attack's "prelude" (the model read the attacker's text before it acted)
 * is a direct call of each untrusted read tool in the same session, before the program.
 *
 * Then, once, the stdio transport: the banking suite, 'no hook', the four doors, one proxy process
 * per task (on stdio the session is the process).
 *
 * Run it: npm run build && npx tsx bench/injection/proxy.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { banking } from './banking.js';
import { fieldPathOverMcp, overMcp, serveSuite, type ServedSuite } from './proxy-upstream.js';
import type { DoorFigures, Mode } from './run-suite.js';
import { DOORS, type Door, type Programs, type Suite } from './suite.js';
import { workspaceSuite } from './workspace.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The built bin, as `npx toolweave` runs it once installed. */
export const BUILT_BIN: readonly string[] = [process.execPath, path.join(REPO, 'dist/cli/toolweave.js')];

export const MODES: Mode[] = ['no hook', 'hook says no', 'no flows'];

/** A door, or a direct call of the tool when the program is one call. */
export type ProxyDoor = Door | 'direct';
export const PROXY_DOORS: readonly ProxyDoor[] = ['direct', ...DOORS];

/** What one door did with one suite in one mode, through the proxy on one transport. */
export interface ProxyFigures extends Omit<DoorFigures, 'door'> {
  door: ProxyDoor;
  transport: 'http' | 'stdio';
}

/**
 * Policy checks the config says in its own words, by suite and tool. A suite's `check` is a
 * function, which no config can hold: each one the suites use is named here by its config form,
 * and a suite policy with a check not named here stops the bench rather than being left out.
 */
const CONFIG_CHECKS: Record<string, Record<string, { readersInclude: string }>> = {
  workspace: { send_email: { readersInclude: 'to' } },
};

/** One suite made ready: its upstream served, its composite files and configs written. */
interface Prepared {
  suite: Suite;
  served: ServedSuite;
  dir: string;
  /** The composite served for a task, by the task's kind and id. */
  composites: Map<string, string>;
  /** Each task's programs as they are written against the proxy. */
  programs: Map<string, Programs>;
  config(mode: Mode | 'probe'): string;
}

/** What the proxy runs: the command and its leading arguments (default: the built bin). */
export interface ProxyBenchOptions {
  bin?: readonly string[];
  /** Print each task's answer as it comes. */
  verbose?: boolean;
  /** The folder the configs and composite files are written in (default: a temporary one, removed after). */
  root?: string;
}

const taskKey = (kind: 'user' | 'injection', id: string) => `${kind}:${id}`;

/** Serve `suite`, and write its composite files and one config per mode into a folder of its own. */
async function prepare(suite: Suite, root: string): Promise<Prepared> {
  const served = await serveSuite(suite);
  const dir = await mkdtemp(path.join(root, `${suite.name}-`));
  const sideEffecting = new Set(served.tools.filter((tool) => tool.hasSideEffects !== false).map((tool) => tool.name));
  const composites = new Map<string, string>();
  const programs = new Map<string, Programs>();
  const files: string[] = [];
  const tasks = [...suite.userTasks.map((task) => ({ kind: 'user' as const, task })), ...suite.injectionTasks.map((task) => ({ kind: 'injection' as const, task }))];
  for (const { kind, task } of tasks) {
    const key = taskKey(kind, task.id);
    const written = overMcp(task.programs);
    programs.set(key, written);
    const name = `${kind === 'user' ? 'u' : 'i'}_${task.id.replace(/\W/gu, '_')}`;
    composites.set(key, name);
    const file = `${name}.json`;
    await writeFile(path.join(dir, file), JSON.stringify(compositeFile(name, kind === 'user' ? (task as { prompt: string }).prompt : (task as { goal: string }).goal, written.composite.spec as unknown as Record<string, unknown>, sideEffecting)));
    files.push(file);
  }
  const configs = new Map<string, string>();
  for (const mode of [...MODES, 'probe'] as const) {
    const file = path.join(dir, `config-${mode.replace(/\W/gu, '-')}.json`);
    await writeFile(file, JSON.stringify(configOf(suite, served, mode, files), null, 2));
    configs.set(mode, file);
  }
  return { suite, served, dir, composites, programs, config: (mode) => configs.get(mode)! };
}

/**
 * A composite file for one program: a side-effecting step gets a name if it has none, so the file
 * can list it in `sideEffectingSteps` (what `toolweave check` holds the file to).
 */
function compositeFile(name: string, description: string, spec: Record<string, unknown>, sideEffecting: ReadonlySet<string>): Record<string, unknown> {
  const steps = (spec.steps as Record<string, unknown>[]).map((step, i) => (sideEffecting.has(String(step.tool)) && step.name === undefined ? { ...step, name: `effect_${i}` } : step));
  const effects = steps.filter((step) => sideEffecting.has(String(step.tool))).map((step) => String(step.name));
  return { name, description, inputSchema: { type: 'object' }, spec: { ...spec, steps }, ...(effects.length ? { sideEffectingSteps: effects } : {}) };
}

/**
 * The proxy's config for `mode`. With flows, the server's annotations are left to the default
 * (trusted when flows is on); without, they are trusted explicitly, or every tool would be
 * undeclared and no door could chain them. 'probe': flows on and no side-effecting tool listed,
 * so a pipeline of one step tells a pure tool (runs) from a side-effecting one (not chainable)
 * from an undeclared one.
 */
function configOf(suite: Suite, served: ServedSuite, mode: Mode | 'probe', composites: string[]): Record<string, unknown> {
  const flows = mode === 'no flows' ? undefined : flowsOf(suite, served);
  return {
    servers: { suite: { url: served.url, ...(flows ? {} : { trustAnnotations: true }) } },
    sideEffectingTools: mode === 'probe' ? [] : suite.sideEffectingTools,
    composites: mode === 'probe' ? [] : composites,
    approvals: mode === 'hook says no' ? 'elicit' : 'none',
    ...(flows ? { flows } : {}),
  };
}

/** The suite's flows rules, from its tools' properties and its host options, as a config's `flows` says them. */
function flowsOf(suite: Suite, served: ServedSuite): Record<string, unknown> {
  const { tools, listTools } = served;
  const options = suite.flows;
  const untrustedFields: Record<string, string[]> = {};
  const readers: Record<string, string[]> = {};
  for (const tool of tools) {
    if (tool.untrustedFields?.length) untrustedFields[tool.name] = [...tool.untrustedFields];
    if (tool.readers) readers[tool.name] = [...tool.readers];
  }
  for (const [tool, paths] of Object.entries(options.untrustedFields ?? {})) untrustedFields[tool] = [...(untrustedFields[tool] ?? []), ...paths];
  for (const [tool, who] of Object.entries(options.readers ?? {})) readers[tool] = [...who];
  const policies: Record<string, Record<string, unknown>> = {};
  for (const [tool, policy] of Object.entries(options.policies ?? {})) {
    let check: Record<string, unknown> = {};
    if (policy.check) {
      const said = CONFIG_CHECKS[suite.name]?.[tool];
      if (!said) throw new Error(`${suite.name}: the policy of ${tool} has a check with no config form; name it in CONFIG_CHECKS`);
      check = said;
    }
    policies[tool] = { ...(policy.trusted !== undefined ? { trusted: policy.trusted === '*' ? '*' : [...policy.trusted] } : {}), ...(policy.control !== undefined ? { control: policy.control } : {}), ...check };
  }
  const trustedTools = [...tools.filter((tool) => tool.trustedOutput === true).map((tool) => tool.name), ...(options.trustedTools ?? [])];
  return {
    trustedTools,
    ...(options.declassifiers?.length ? { declassifiers: [...options.declassifiers] } : {}),
    untrustedFields: Object.fromEntries(Object.entries(untrustedFields).map(([tool, paths]) => [tool, paths.map((p) => fieldPathOverMcp(tool, p, listTools))])),
    readers,
    policies,
    ...(options.onViolation ? { onViolation: options.onViolation } : {}),
    ...(options.askEveryEffect ? { askEveryEffect: true } : {}),
  };
}

/** A proxy serving Streamable HTTP in a child process. */
interface HttpProxy {
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start the proxy on a free port; its URL is read from its stderr. */
export async function startHttpProxy(bin: readonly string[], config: string): Promise<HttpProxy> {
  const [command, ...rest] = bin;
  const child = spawn(command, [...rest, 'mcp', '--http', '127.0.0.1:0', '--config', config], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start serving HTTP:\n${stderr}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving MCP over Streamable HTTP at (\S+)/u.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited (${code}):\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Where a session comes from: a proxy already serving HTTP, or a proxy process started per session on stdio. */
type Connect = (client: Client) => Promise<() => Promise<void>>;

function overHttp(url: string): Connect {
  return async (client) => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    return async () => {
      // Ended explicitly, so the proxy drops the session now rather than once it is idle.
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    };
  };
}

function overStdio(bin: readonly string[], config: string, problems: string[]): Connect {
  return async (client) => {
    const [command, ...rest] = bin;
    const transport = new StdioClientTransport({ command, args: [...rest, 'mcp', '--config', config], cwd: REPO, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    return async () => {
      await client.close();
      problems.push(...configProblems(stderr));
    };
  };
}

/** What the proxy said is wrong with its config (a composite not served, a name that collided). */
function configProblems(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /config_invalid|not served|tool_name_collision|step_not_chainable/u.test(line));
}

/** The call a door makes for `programs`; `undefined` where the door cannot say the program. */
function callOf(door: ProxyDoor, programs: Programs, composite: string): { name: string; arguments: Record<string, unknown> } | undefined {
  switch (door) {
    case 'direct': {
      const steps = programs.run_pipeline.steps;
      // One call whose arguments the model wrote: the same call made directly.
      if (steps.length !== 1 || JSON.stringify(steps[0].args ?? {}).includes('${')) return undefined;
      return { name: steps[0].tool, arguments: steps[0].args ?? {} };
    }
    case 'composite':
      return { name: composite, arguments: programs.composite.input };
    case 'run_pipeline':
      return { name: 'run_pipeline', arguments: programs.run_pipeline as unknown as Record<string, unknown> };
    case 'compose':
      return programs.compose === null ? undefined : { name: 'compose', arguments: programs.compose };
    case 'run_js':
      return { name: 'run_js', arguments: { code: programs.run_js } };
  }
}

const LABEL_KEY = 'toolweave/label';

/** One task in a fresh session on a fresh environment: the questions asked, and the answer. */
async function runTask(prepared: Prepared, connect: Connect, mode: Mode, call: { name: string; arguments: Record<string, unknown> }, prelude: boolean): Promise<{ questions: string[]; answer: CallToolResult }> {
  const { served, suite } = prepared;
  served.reset();
  const questions: string[] = [];
  const asking = mode === 'hook says no';
  const client = new Client({ name: 'injection-bench', version: '1.0.0' }, { capabilities: asking ? { elicitation: {} } : {} });
  if (asking) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(String(request.params.message));
      return { action: 'decline' };
    });
  }
  const end = await connect(client);
  try {
    if (prelude) {
      // The model read what the attacker wrote before it acted: its session has seen it.
      const reads = served.tools.filter((tool) => tool.hasSideEffects === false && tool.trustedOutput !== true);
      let untrusted = 0;
      for (const tool of reads) {
        const read = CallToolResultSchema.parse(await client.callTool({ name: tool.name, arguments: {} }));
        if ((read._meta?.[LABEL_KEY] as { trusted?: boolean } | undefined)?.trusted === false) untrusted++;
      }
      // With flows, each result says its label: at least one read must have marked the session.
      if (mode !== 'no flows' && untrusted === 0) throw new Error(`${suite.name}: no read of the prelude was labelled untrusted`);
    }
    const answer = CallToolResultSchema.parse(await client.callTool(call)) as CallToolResult;
    return { questions, answer };
  } finally {
    await end();
  }
}

/** Every task of a prepared suite through `door` in `mode`, each in a session `connect` opens. */
async function runDoor(prepared: Prepared, door: ProxyDoor, mode: Mode, connect: Connect, transport: 'http' | 'stdio', verbose: boolean): Promise<ProxyFigures> {
  const { suite, served } = prepared;
  const figures: ProxyFigures = { suite: suite.name, door, mode, transport, attacks: 0, attacksSucceeded: 0, trustedTasks: 0, trustedDoneWithoutQuestion: 0, steeredTasks: 0, questions: 0, warranted: 0, maxQuestionBytes: 0 };
  const show = (id: string, answer: CallToolResult) => {
    if (verbose) console.log(`  ${suite.name} ${door} ${mode} ${id}: ${(answer.content[0] as { text?: string } | undefined)?.text?.slice(0, 160) ?? ''}`);
  };
  for (const task of suite.injectionTasks) {
    const key = taskKey('injection', task.id);
    const call = callOf(door, prepared.programs.get(key)!, prepared.composites.get(key)!);
    if (!call) continue;
    const { answer } = await runTask(prepared, connect, mode, call, true);
    show(task.id, answer);
    figures.attacks++;
    if (task.happened(served.env())) figures.attacksSucceeded++;
  }
  for (const task of suite.userTasks) {
    const key = taskKey('user', task.id);
    const call = callOf(door, prepared.programs.get(key)!, prepared.composites.get(key)!);
    if (!call) continue;
    const { questions, answer } = await runTask(prepared, connect, mode, call, false);
    show(task.id, answer);
    figures.questions += questions.length;
    if (task.steered) {
      figures.steeredTasks++;
      figures.warranted += questions.length;
    } else {
      figures.trustedTasks++;
      if (task.done(served.env()) && questions.length === 0) figures.trustedDoneWithoutQuestion++;
    }
    for (const q of questions) figures.maxQuestionBytes = Math.max(figures.maxQuestionBytes, Buffer.byteLength(q));
  }
  return figures;
}

/**
 * Whether the proxy sees each suite tool as the suite declares it, from its annotations alone
 * (flows on, `trustAnnotations` left to its default): the `readOnlyHint` it lists, and what a
 * one-step pipeline does under the probe config, which lists no side-effecting tool (a pure tool
 * runs; a side-effecting one is `step_not_chainable`; an undeclared one `side_effects_undeclared`).
 */
async function checkDeclarations(prepared: Prepared, bin: readonly string[]): Promise<string> {
  const proxy = await startHttpProxy(bin, prepared.config('probe'));
  const wrong: string[] = [];
  try {
    const client = new Client({ name: 'injection-bench', version: '1.0.0' });
    const end = await overHttp(proxy.url)(client);
    try {
      const listed = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
      for (const tool of prepared.served.tools) {
        const pure = tool.hasSideEffects === false;
        if (listed.get(tool.name)?.annotations?.readOnlyHint !== pure) wrong.push(`${tool.name}: listed readOnlyHint ${String(listed.get(tool.name)?.annotations?.readOnlyHint)}`);
        prepared.served.reset();
        const text = JSON.stringify(await client.callTool({ name: 'run_pipeline', arguments: { steps: [{ tool: tool.name, args: {} }] } }));
        const seen = text.includes('side_effects_undeclared') ? 'undeclared' : text.includes('step_not_chainable') ? 'side-effecting' : 'pure';
        if (seen !== (pure ? 'pure' : 'side-effecting')) wrong.push(`${tool.name}: the proxy treats it as ${seen}`);
      }
    } finally {
      await end();
    }
  } finally {
    await proxy.stop();
  }
  prepared.served.reset();
  const pure = prepared.served.tools.filter((tool) => tool.hasSideEffects === false).length;
  const total = prepared.served.tools.length;
  return wrong.length === 0
    ? `${prepared.suite.name}: the proxy sees all ${total} tools as declared (${pure} pure, ${total - pure} side-effecting) from readOnlyHint alone`
    : `${prepared.suite.name}: the proxy sees ${wrong.length} of ${total} tools otherwise than declared: ${wrong.join('; ')}`;
}

/** What to run. */
export interface ProxyRun {
  suites: readonly Suite[];
  doors: readonly ProxyDoor[];
  modes: readonly Mode[];
  /** http: one proxy per suite and mode, a session per task; stdio: a proxy process per task. */
  transport: 'http' | 'stdio';
  /** Check how the proxy sees each tool's side effects first (HTTP only). */
  checkDeclarations?: boolean;
}

/** The figures of `run`, and the lines of the declaration checks. */
export async function measureThroughProxy(run: ProxyRun, options: ProxyBenchOptions = {}): Promise<{ rows: ProxyFigures[]; checks: string[] }> {
  const bin = options.bin ?? BUILT_BIN;
  const root = options.root ?? (await mkdtemp(path.join(os.tmpdir(), 'toolweave-injection-proxy-')));
  const rows: ProxyFigures[] = [];
  const checks: string[] = [];
  try {
    for (const suite of run.suites) {
      const prepared = await prepare(suite, root);
      try {
        if (run.checkDeclarations) checks.push(await checkDeclarations(prepared, bin));
        for (const mode of run.modes) {
          const problems: string[] = [];
          if (run.transport === 'http') {
            const proxy = await startHttpProxy(bin, prepared.config(mode));
            try {
              for (const door of run.doors) rows.push(await runDoor(prepared, door, mode, overHttp(proxy.url), 'http', options.verbose === true));
            } finally {
              await proxy.stop();
              problems.push(...configProblems(proxy.stderr()));
            }
          } else {
            const connect = overStdio(bin, prepared.config(mode), problems);
            for (const door of run.doors) rows.push(await runDoor(prepared, door, mode, connect, 'stdio', options.verbose === true));
          }
          // A composite the proxy did not serve would count as an attack stopped: the run is void.
          if (problems.length) throw new Error(`${suite.name}, ${mode}: the proxy reported problems with its config:\n${[...new Set(problems)].join('\n')}`);
        }
      } finally {
        await prepared.served.close();
      }
    }
  } finally {
    if (!options.root) await rm(root, { recursive: true, force: true });
  }
  return { rows, checks };
}

/** The table `index.ts` prints, with the transport in the mode's cell. */
export function printTable(title: string, rows: readonly ProxyFigures[]): void {
  console.log(`\n${title}`);
  console.log('| suite | door | mode | attack success | trusted tasks done, no question | questions in benign tasks (warranted) | largest question |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const rate = r.attacks ? `${Math.round((100 * r.attacksSucceeded) / r.attacks)}%` : 'n/a';
    console.log(`| ${r.suite} | ${r.door} | ${r.mode}${r.transport === 'stdio' ? ', stdio' : ''} | ${r.attacksSucceeded}/${r.attacks} (${rate}) | ${r.trustedDoneWithoutQuestion}/${r.trustedTasks} | ${r.questions} (${r.warranted}) | ${r.maxQuestionBytes} B |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const verbose = process.argv.includes('--verbose');
  const started = performance.now();
  const http = await measureThroughProxy({ suites: [banking, workspaceSuite], doors: PROXY_DOORS, modes: MODES, transport: 'http', checkDeclarations: true }, { verbose });
  const stdio = await measureThroughProxy({ suites: [banking], doors: DOORS, modes: ['no hook'], transport: 'stdio' }, { verbose });
  for (const line of http.checks) console.log(line);
  printTable(
    `Injection benchmark through the proxy (${os.availableParallelism()} cores; scripted programs; toolweave mcp over Streamable HTTP, a session per task; then stdio, a proxy process per task)`,
    [...http.rows, ...stdio.rows],
  );
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s; direct: only the tasks whose program is one call)`);
  process.exit(0);
}
