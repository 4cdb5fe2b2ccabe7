/**
 * The built proxy bin (dist) in front of the real filesystem server, on a temporary copy of the
 * fixture project, driven through each framework's own MCP client: the MCP SDK's `Client`,
 * LangChain's `@langchain/mcp-adapters`, the OpenAI Agents SDK's `MCPServerStdio` (with
 * `convertSchemasToStrict: true`) and the AI SDK's `@ai-sdk/mcp`. Each client starts the proxy
 * itself, lists the tools, and the schema it would send a model is the one the proxy serves (no
 * union merged away; the AI SDK closes each root, which the proxy checks anyway); then the same
 * calls, made through the tool objects the client built as its framework's loop makes them, give
 * the same right answers: run_js, run_pipeline, every compose combinator, a large result paged
 * with get_observation, and bad input refused by the proxy with its code.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { Agent, MCPServerStdio, RunContext, type FunctionTool } from '@openai/agents';
import { asSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createComposeTool, createGetObservationTool, createObservationStore, createRunPipelineTool, createScriptTool, createStepGate, type ITool } from '../../src/index.js';
import { servedTool } from '../../src/mcp/served-tool.js';
import { connectStdio, copyProject, FS_SERVER, processesLeft, REPO, type Project } from '../mcp/helpers.js';

const BIN = path.join(REPO, 'dist/cli/toolweave.js');
const OWN_TOOLS = ['run_pipeline', 'compose', 'run_js', 'get_observation'] as const;
const COMBINATORS = ['gather', 'for_each', 'pipe', 'try_and_check', 'scope', 'annotate'];

/** What a model reads back from one call, and whether the client marked it an error. */
interface Answer {
  text: string;
  isError: boolean;
}

/** One framework's MCP client, connected to a proxy it started. */
interface Driver {
  /** The tool names the client made. */
  names: string[];
  /** The input schema the client would send a model for `name`. */
  schemaOf(name: string): unknown;
  /** Call `name` through the client's own tool object, as its framework's loop does. */
  call(name: string, args: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

/** What the proxy serves for its own tools (built by the same factories it uses). */
function servedSchemas(): Record<string, Record<string, unknown>> {
  const gate = createStepGate({ resolve: () => undefined });
  const tools: ITool[] = [createRunPipelineTool(gate), createComposeTool(gate), createScriptTool(gate), createGetObservationTool(createObservationStore())];
  return Object.fromEntries(tools.map((t) => [t.name, servedTool(t).inputSchema as Record<string, unknown>]));
}
const SERVED = servedSchemas();

let project: Project;
let config: string;
beforeAll(async () => {
  project = await copyProject('toolweave-clients-');
  // for_each takes its items from a node whose output is a list, and no MCP tool's output is one
  // (structured content is an object, the rest text): a composite the config serves gives it, as
  // a host's would.
  const composite = {
    name: 'module_names',
    description: 'The app module names given, once their folder has been listed.',
    inputSchema: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } }, required: ['names'] },
    spec: { steps: [{ name: 'folder', tool: 'list_directory', args: { path: appPath('') } }], output: '$input.names' },
  };
  await writeFile(path.join(project.root, 'module-names.json'), JSON.stringify(composite));
  config = path.join(project.root, 'toolweave.json');
  await writeFile(
    config,
    JSON.stringify({
      servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
      sideEffectingTools: ['write_file'],
      composites: ['./module-names.json'],
    }),
  );
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const proxyArgs = () => [BIN, 'mcp', '--config', config];
const file = (relative: string) => path.join(project.root, relative);
function appPath(name: string): string {
  return path.join(project.root, 'src/app', name);
}
const firstLine = async (relative: string) => (await readFile(file(relative), 'utf8')).split('\n')[0];

/** The calls every client makes, each with the answer it must get; gives the connected driver. */
function theCalls(client: string, connect: () => Promise<Driver>): () => Driver {
  let driver: Driver;
  beforeAll(async () => {
    driver = await connect();
  }, 60_000);
  afterAll(async () => {
    await driver?.close();
    expect(await processesLeft(project.root)).toEqual([]);
  });
  const ok = async (name: string, args: Record<string, unknown>) => {
    const answer = await driver.call(name, args);
    expect(answer.isError, answer.text).toBe(false);
    return answer.text;
  };

  it('lists the proxy’s tools over the upstream ones and the composite', () => {
    expect(driver.names).toEqual(expect.arrayContaining([...OWN_TOOLS, 'read_text_file', 'write_file', 'list_directory', 'module_names']));
  });

  it('run_js reads two files in one call', async () => {
    const code = `const read = await Promise.all(${JSON.stringify([appPath('cache.js'), appPath('orders.js')])}.map((path) => callTool('read_text_file', { path })));
      return read.map((r) => r.error ? r.error.code : r.text.split('\\n')[0]).join(' | ');`;
    expect(await ok('run_js', { code })).toBe(`${await firstLine('src/app/cache.js')} | ${await firstLine('src/app/orders.js')}`);
  });

  it('run_pipeline threads one step’s output into the next', async () => {
    const target = file(`${client}-title.txt`);
    const text = await ok('run_pipeline', {
      steps: [
        { tool: 'read_text_file', args: { path: file('README.md'), head: 1 } },
        { tool: 'write_file', args: { path: target, content: '${step_1.output}' } },
      ],
    });
    expect(text).toBe(`step_1: ok\n# shop-api\nstep_2: ok\nSuccessfully wrote to ${target}`);
    expect(await readFile(target, 'utf8')).toBe('# shop-api');
  });

  it('compose gather: the calls at once, keyed by name', async () => {
    const text = await ok('compose', {
      combinator: 'gather',
      calls: { readme: { tool: 'read_text_file', args: { path: file('README.md'), head: 1 } }, manifest: { tool: 'read_text_file', args: { path: file('package.json') } } },
    });
    expect(JSON.parse(text)).toEqual({ readme: '# shop-api', manifest: await readFile(file('package.json'), 'utf8') });
  });

  it('compose for_each: the template once per item, "{item}" filled', async () => {
    const text = await ok('compose', {
      combinator: 'for_each',
      items: { tool: 'module_names', args: { names: ['cache', 'orders', 'profile'] } },
      template: { tool: 'read_text_file', args: { path: appPath('{item}.js'), head: 1 } },
      concurrency: 2,
    });
    expect(JSON.parse(text)).toEqual([await firstLine('src/app/cache.js'), await firstLine('src/app/orders.js'), await firstLine('src/app/profile.js')]);
  });

  it('compose pipe: each stage gets the previous output as "{result}"', async () => {
    const target = file(`${client}-pipe.txt`);
    const text = await ok('compose', {
      combinator: 'pipe',
      stages: [{ tool: 'read_text_file', args: { path: file('README.md'), head: 1 } }, { tool: 'write_file', args: { path: target, content: 'title: {result}' } }],
    });
    expect(text).toBe(`Successfully wrote to ${target}`);
    expect(await readFile(target, 'utf8')).toBe('title: # shop-api');
  });

  it('compose try_and_check: do, then the check; a failing check fails the node', async () => {
    const note = file(`${client}-note.txt`);
    const text = await ok('compose', {
      combinator: 'try_and_check',
      do: { tool: 'write_file', args: { path: note, content: `checked by ${client}` } },
      check: { tool: 'read_text_file', args: { path: note } },
    });
    expect(JSON.parse(text)).toEqual({ do: `Successfully wrote to ${note}`, check: `checked by ${client}` });
    const failed = await driver.call('compose', {
      combinator: 'try_and_check',
      do: { tool: 'write_file', args: { path: note, content: 'again' } },
      check: { tool: 'read_text_file', args: { path: file('missing.txt') } },
      attempts: 1,
    });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/^error check_failed: .*the check failed after 1 attempt/u);
  });

  it('compose scope and annotate: the inner node’s output, nested in each other', async () => {
    const text = await ok('compose', {
      combinator: 'annotate',
      intent: 'find the project’s name',
      hypothesis: 'the README title names it',
      do: { combinator: 'scope', on_failure: 'rollback', do: { tool: 'read_text_file', args: { path: file('README.md'), head: 1 } } },
    });
    expect(text).toBe('# shop-api');
  });

  it('a large result is a preview with an obs_ id, paged with get_observation', async () => {
    const preview = await ok('read_text_file', { path: file('logs/build.log') });
    const id = /obs_[a-z2-7]{20}/u.exec(preview)?.[0];
    expect(id, preview.slice(0, 200)).toBeDefined();
    const page = await ok('get_observation', { ids: [id], offset: 100, lines: 3 });
    const lines = (await readFile(file('logs/build.log'), 'utf8')).split('\n');
    for (const line of lines.slice(100, 103)) expect(page).toContain(line);
    expect(page).not.toContain(lines[103]);
  });

  it('the proxy refuses what its schemas let through: a node mixing kinds, and a call’s wrong argument', async () => {
    const mixed = await driver.call('compose', { combinator: 'gather', calls: { a: { tool: 'read_text_file', args: { path: file('README.md') } } }, stages: [] });
    expect(mixed).toEqual({ isError: true, text: 'error spec_invalid: Invalid tree: tree has an unknown field "stages"' });
    const wrong = await driver.call('compose', { combinator: 'gather', calls: { a: { tool: 'read_text_file', args: { path: 5 } } } });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/^error args_invalid: .*"tree\.calls\.a": the arguments of tool "read_text_file" do not match its inputSchema: path must be string \(got 5\)/u);
  });
  return () => driver;
}

describe('the MCP SDK Client', () => {
  const driver = theCalls('sdk', async () => {
    const proxy = await connectStdio(process.execPath, proxyArgs());
    const { tools } = await proxy.client.listTools();
    const by = new Map(tools.map((t) => [t.name, t]));
    return {
      names: [...by.keys()],
      schemaOf: (name) => by.get(name)?.inputSchema,
      async call(name, args) {
        const result = await proxy.client.callTool({ name, arguments: args });
        return { text: (result.content as { text: string }[])[0].text, isError: result.isError === true };
      },
      close: () => proxy.close(),
    };
  });

  it('is served the schemas as the proxy makes them: compose one object, no union at the root', () => {
    for (const name of OWN_TOOLS) expect(driver().schemaOf(name), name).toEqual(SERVED[name]);
    expect(SERVED.compose).not.toHaveProperty('anyOf');
    expect(SERVED.compose.properties).toMatchObject({ combinator: { enum: COMBINATORS } });
  });
});

describe('LangChain: @langchain/mcp-adapters', () => {
  let tools: Awaited<ReturnType<MultiServerMCPClient['getTools']>>;
  theCalls('langchain', async () => {
    const client = new MultiServerMCPClient({ mcpServers: { toolweave: { transport: 'stdio', command: process.execPath, args: proxyArgs(), stderr: 'pipe' } } });
    tools = await client.getTools();
    const by = new Map(tools.map((t) => [t.name, t]));
    return {
      names: [...by.keys()],
      // What a chat model is sent: the adapter's converted schema, as LangChain turns it into a tool definition.
      schemaOf: (name) => convertToOpenAITool(by.get(name)!).function.parameters,
      async call(name, args) {
        // As LangGraph's ToolNode calls a tool: with the model's tool call. A failure the server
        // reports is thrown by the adapter as a ToolException, which the node shows the model.
        try {
          const message = await by.get(name)!.invoke({ type: 'tool_call', id: `call-${name}`, name, args });
          return { text: langChainText((message as { content: unknown }).content), isError: false };
        } catch (error) {
          const prefix = `MCP tool '${name}' on server 'toolweave' returned an error: `;
          const text = (error as Error).message;
          if (!text.startsWith(prefix)) throw error;
          return { text: text.slice(prefix.length), isError: true };
        }
      },
      close: () => client.close(),
    };
  });

  it('keeps the schemas whole: compose is not merged into one kind, and every combinator passes its check', () => {
    const by = new Map(tools.map((t) => [t.name, t]));
    for (const name of OWN_TOOLS) expect(convertToOpenAITool(by.get(name)!).function.parameters, name).toEqual(SERVED[name]);
    expect((by.get('compose')!.schema as { properties: { combinator: unknown } }).properties.combinator).toEqual({ enum: COMBINATORS });
  });
});

/** What the OpenAI Agents SDK made of the proxy's tools, and the warnings it printed making them. */
interface AgentsTools {
  tools: FunctionTool[];
  warnings: unknown[][];
}

/**
 * The proxy started with `args` behind OpenAI Agents' `MCPServerStdio` with
 * `convertSchemasToStrict`, as a driver whose calls a model writes in the form `form` gives;
 * `seen` gets the tools the SDK made and its warnings.
 */
async function agentsDriver(args: string[], form: (name: string, args: Record<string, unknown>) => Record<string, unknown>, seen: AgentsTools): Promise<Driver> {
  const server = new MCPServerStdio({ name: 'toolweave', command: process.execPath, args, clientSessionTimeoutSeconds: 60 });
  await server.connect();
  const agent = new Agent({ name: 'host', mcpServers: [server], mcpConfig: { convertSchemasToStrict: true } });
  const runContext = new RunContext({});
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    seen.tools = (await agent.getMcpTools(runContext)) as FunctionTool[];
    seen.warnings = warn.mock.calls.map((call) => [...call]);
  } finally {
    warn.mockRestore();
  }
  const by = new Map(seen.tools.map((t) => [t.name, t]));
  return {
    names: [...by.keys()],
    schemaOf: (name) => by.get(name)?.parameters,
    async call(name, args) {
      const tool = by.get(name)!;
      // A strict tool's model sends every property, null for those it leaves out.
      const given = form(name, args);
      const sent = tool.strict ? { ...Object.fromEntries(Object.keys((tool.parameters as { properties: object }).properties).map((k) => [k, null])), ...given } : given;
      const output = await tool.invoke(runContext, JSON.stringify(sent), { toolCall: { type: 'function_call', callId: `call-${name}`, name, arguments: JSON.stringify(sent) } });
      // The SDK hands the model the result's text part; an MCP error result is text like any other.
      const text = textOf(output);
      return { text, isError: text.startsWith('error ') };
    },
    close: () => server.close(),
  };
}

/** run_pipeline's and compose's arguments in their strict forms, as a model in strict mode writes them. */
function strictForm(name: string, args: Record<string, unknown>): Record<string, unknown> {
  if (name === 'compose') return { tree_json: JSON.stringify(args) };
  if (name !== 'run_pipeline') return args;
  const steps = (args.steps as { id?: string; tool: string; args?: unknown }[]).map((step) => ({ id: step.id ?? null, tool: step.tool, args: step.args === undefined ? null : JSON.stringify(step.args) }));
  return { steps, stop_on_error: args.stop_on_error ?? null };
}

describe('OpenAI Agents: MCPServerStdio with convertSchemasToStrict', () => {
  const seen: AgentsTools = { tools: [], warnings: [] };
  theCalls('openai', () => agentsDriver(proxyArgs(), (_name, args) => args, seen));

  it('sends run_js and get_observation strict; run_pipeline and compose, whose args are open objects, non-strict and unchanged', () => {
    const by = new Map(seen.tools.map((t) => [t.name, t]));
    expect(OWN_TOOLS.map((name) => [name, by.get(name)!.strict])).toEqual([['run_pipeline', false], ['compose', false], ['run_js', true], ['get_observation', true]]);
    for (const name of ['run_pipeline', 'compose']) expect(by.get(name)!.parameters, name).toMatchObject(SERVED[name]);
    const strictForm = by.get('get_observation')!.parameters as { properties: object; required: string[]; additionalProperties: boolean };
    expect(strictForm).toMatchObject({ additionalProperties: false, required: ['ids', 'offset', 'lines'] });
    // The SDK says so once for each tool it sends non-strict: the proxy's two, and the upstream's
    // own list_allowed_directories (its schema, passed on as the server gives it, is an open object).
    const nonStrict = seen.tools.filter((t) => !t.strict).map((t) => t.name);
    expect(nonStrict).toEqual(['run_pipeline', 'compose', 'list_allowed_directories']);
    expect(seen.warnings.map((w) => w[0])).toEqual(nonStrict.map(() => 'Error converting MCP schema to strict mode:'));
  });
});

describe('OpenAI Agents: MCPServerStdio with convertSchemasToStrict, the proxy run with --strict-schemas', () => {
  const seen: AgentsTools = { tools: [], warnings: [] };
  theCalls('openai-strict', () => agentsDriver([BIN, 'mcp', '--strict-schemas', '--config', config], strictForm, seen));

  it('sends all four of its own tools strict, without a warning: run_pipeline and compose in their strict forms', () => {
    const by = new Map(seen.tools.map((t) => [t.name, t]));
    expect(OWN_TOOLS.map((name) => [name, by.get(name)!.strict])).toEqual([['run_pipeline', true], ['compose', true], ['run_js', true], ['get_observation', true]]);
    const gate = createStepGate({ resolve: () => undefined });
    expect(by.get('run_pipeline')!.parameters).toEqual(servedTool(createRunPipelineTool(gate), { strictSchemas: true }).inputSchema);
    expect(by.get('compose')!.parameters).toEqual(servedTool(createComposeTool(gate), { strictSchemas: true }).inputSchema);
    // Only the upstream's own open schema is sent non-strict, with the SDK's one warning.
    expect(seen.tools.filter((t) => !t.strict).map((t) => t.name)).toEqual(['list_allowed_directories']);
    expect(seen.warnings.map((w) => w[0])).toEqual(['Error converting MCP schema to strict mode:']);
  });
});

describe('the AI SDK: @ai-sdk/mcp', () => {
  let tools: Awaited<ReturnType<Awaited<ReturnType<typeof createMCPClient>>['tools']>>;
  theCalls('aisdk', async () => {
    const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: proxyArgs(), stderr: 'pipe' }) });
    tools = await client.tools();
    return {
      names: Object.keys(tools),
      schemaOf: (name) => asSchema(tools[name].inputSchema).jsonSchema,
      async call(name, args) {
        const tool = tools[name];
        const output = (await tool.execute!(args, { toolCallId: `call-${name}`, messages: [] })) as never;
        // What generateText hands the model: the tool's own toModelOutput of the result.
        const shown = (await tool.toModelOutput!({ toolCallId: `call-${name}`, input: args, output })) as { type: string; value: { type: string; text: string }[] };
        return { text: shown.value.map((part) => part.text).join(''), isError: (output as { isError?: boolean }).isError === true };
      },
      close: () => client.close(),
    };
  });

  it('sends the schemas as served, the root closed as the proxy checks it anyway', async () => {
    for (const name of OWN_TOOLS) expect(await asSchema(tools[name].inputSchema).jsonSchema, name).toEqual({ ...SERVED[name], additionalProperties: false });
  });
});

/** The text of a result as a framework holds it: a string, a text part, or a list of parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('');
  if (content && typeof content === 'object' && typeof (content as { text?: unknown }).text === 'string') return (content as { text: string }).text;
  throw new Error(`no text in ${JSON.stringify(content)}`);
}

/**
 * The answer in a LangChain tool message. The adapter hands on a lone text part as the string;
 * when the result also carries structured content or `_meta`, it hands on the text part as an
 * object with those beside it, which the message holds as JSON: its `text` is the answer.
 */
function langChainText(content: unknown): string {
  const text = textOf(content);
  if (!text.startsWith('{"type":"text"')) return text;
  return (JSON.parse(text) as { text: string }).text;
}
