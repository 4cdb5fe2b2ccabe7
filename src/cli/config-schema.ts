/**
 * The JSON Schema of the `toolweave` config file (`toolweave.yaml` or `.json`) and of the composite
 * files it names. Published in the package as `schema/toolweave.config.schema.json` (kept equal to
 * this by a test; `toolweave schema` prints it), so an editor can check a config as it is written.
 */

const stringList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const positiveMs = { type: 'integer', minimum: 1 } as const;

/** One upstream server: a command started over stdio, or a Streamable HTTP URL. */
const SERVER = {
  type: 'object',
  additionalProperties: false,
  properties: {
    command: { type: 'string', minLength: 1, description: 'The program to start; it speaks MCP on stdio.' },
    args: { ...stringList, description: 'Its arguments.' },
    env: { type: 'object', additionalProperties: { type: 'string' }, description: 'Environment variables added to the usual ones.' },
    cwd: { type: 'string', description: "Its working folder (default: the config file's)." },
    url: { type: 'string', pattern: '^https?://', description: 'A Streamable HTTP endpoint, instead of a command.' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'HTTP headers sent to the url.' },
    prefix: { type: 'boolean', description: 'Name its tools <server>__<tool>.' },
    trustAnnotations: { type: 'boolean', description: 'readOnlyHint: true makes a tool pure, anything else side-effecting. Default false: every tool undeclared.' },
    tools: {
      type: 'object',
      description: "Per-tool overrides, by the tool's own name.",
      additionalProperties: { type: 'object', additionalProperties: false, properties: { hasSideEffects: { type: 'boolean' } }, required: ['hasSideEffects'] },
    },
    initTimeoutMs: { ...positiveMs, description: 'How long it may take to answer initialize (default 30000).' },
    callTimeoutMs: { ...positiveMs, description: 'Each call’s timeout (default 120000).' },
  },
  oneOf: [
    { required: ['command'], not: { required: ['url'] } },
    { required: ['url'], not: { anyOf: [{ required: ['command'] }, { required: ['args'] }, { required: ['env'] }, { required: ['cwd'] }] } },
  ],
} as const;

/** The run_js options a config may set. */
const SCRIPT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    timeoutMs: positiveMs,
    slowTools: stringList,
    slowTimeoutMs: positiveMs,
    memoryLimitBytes: { type: 'integer', minimum: 1048576 },
    maxCalls: { type: 'integer', minimum: 0 },
    maxCallResultBytes: { type: 'integer', minimum: 1 },
    maxReturnChars: { type: 'integer', minimum: 1 },
    interactiveTools: stringList,
    pool: {
      type: 'object',
      additionalProperties: false,
      description: "The sandbox pool the proxy's sessions share; each session is a scope of its own.",
      properties: {
        threads: { type: 'integer', minimum: 1, description: 'Sandbox threads (default: the cores, 2 to 8).' },
        maxRuns: { type: 'integer', minimum: 1, description: 'Runs alive at once, computing or waiting (default 512).' },
        maxRunsPerScope: { type: 'integer', minimum: 1, description: "One session's share of the places and of the queue (default half of maxRuns)." },
        maxQueuedRuns: { type: 'integer', minimum: 0, description: 'Runs that may wait for a place (default 1024).' },
        sliceMs: { ...positiveMs, description: 'How long a run may compute without awaiting while others wait for its thread (default 500).' },
        maxMemoryBytes: { type: 'integer', minimum: 1, description: "The memory the runs alive may hold together (default 75% of the machine's)." },
        maxMemoryBytesPerScope: { type: 'integer', minimum: 1, description: "One session's share of it (default half of maxMemoryBytes)." },
      },
    },
  },
} as const;

/** The most characters of a script a config names (`scripts.<name>.script`). */
export const MAX_SNIPPET_SCRIPT_CHARS = 100_000;

/** An example `toolweave check` runs, of a composite file or a config's script. */
const EXAMPLE = {
  type: 'object',
  additionalProperties: false,
  required: ['input'],
  properties: {
    name: { type: 'string' },
    input: { type: 'object' },
    stepOutputs: { type: 'object', description: 'Stub outputs of the side-effecting steps, by step name.' },
    output: {
      description:
        'The output expected (leave it out to check only that the composite runs). Anywhere in it, { "$regex": "..." } matches a string the pattern finds; arrays match item by item, at the same length.',
    },
    match: {
      enum: ['exact', 'partial'],
      description: 'exact (the default): objects have the same keys; partial: only the keys output gives are compared, at every depth.',
    },
  },
  dependencies: { match: ['output'] },
} as const;

/** One script the config serves as a tool of its own, run in run_js's sandbox. */
const SNIPPET = {
  type: 'object',
  additionalProperties: false,
  required: ['description', 'inputSchema', 'script'],
  properties: {
    description: { type: 'string', minLength: 1, description: 'What the tool does, as the model reads it.' },
    inputSchema: { type: 'object', description: 'The JSON Schema of its input (type: object); each call is checked against it, and the script reads it as `input`.' },
    script: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_SNIPPET_SCRIPT_CHARS,
      description: 'The body of an async function, as run_js runs it: `input` holds the checked input, `callTool(name, args)` and `tools.<name>(args)` call tools through the gate; what it returns is the answer.',
    },
    sideEffectingTools: {
      ...stringList,
      description:
        'The side-effecting tools the script calls. The tool is pure when this is empty or absent; each listed tool must also be in the top-level sideEffectingTools, and any other side-effecting tool is refused inside the script.',
    },
    examples: {
      type: 'array',
      description: '`toolweave check` runs each as a dry run: side-effecting calls take their output from stepOutputs (by tool name or `call N`); given output, the answer (its JSON, when it is JSON) must match.',
      items: EXAMPLE,
    },
  },
} as const;

/** How side-effecting calls are approved: a mode alone, or the mode with its settings. */
const APPROVAL_MODES = ['none', 'elicit', 'queue'] as const;
const APPROVALS = {
  description:
    'none (the default): no one is asked. elicit: every side-effecting call asks the person at the client (MCP elicitation). queue: the run pauses and the client is told who must approve and how; the person answers with `toolweave approvals` or the approvals endpoint, and the model calls resume_run.',
  anyOf: [
    { type: 'string', enum: APPROVAL_MODES },
    {
      type: 'object',
      additionalProperties: false,
      required: ['mode'],
      properties: {
        mode: { enum: APPROVAL_MODES },
        port: { type: 'integer', minimum: 0, maximum: 65535, description: 'queue: the port of the approvals endpoint on 127.0.0.1 (default 0: a free port, written to the endpoint file).' },
        maxPending: { type: 'integer', minimum: 1, maximum: 10000, description: 'queue: the most paused runs the queue holds (default 100); past it a call that needs approval is refused (approvals_full).' },
        maxPendingPerSession: {
          type: 'integer',
          minimum: 1,
          maximum: 10000,
          description: "queue: the most paused runs of one client session the queue holds (default 20, at most maxPending); past it that session's calls that need approval are refused (approvals_full), and other sessions' still wait.",
        },
        approver: { type: 'string', minLength: 1, maxLength: 200, description: 'queue: who must approve, as the model is told (default: the person who runs this MCP server).' },
      },
    },
  ],
} as const;

/** Untrusted data: what is trusted, what each side-effecting tool needs trusted, what a violation does. */
const FLOWS = {
  type: 'object',
  additionalProperties: false,
  description:
    'Untrusted data may not steer a side effect: once the session has read untrusted content (every tool output, except the trusted ones below), a side-effecting call it could steer is asked about (through approvals) or refused. Without this section nothing is followed.',
  properties: {
    trustedServers: { ...stringList, description: 'Servers (by their name here) whose tools give trusted output; a tool annotated openWorldHint: true stays untrusted. Default: none.' },
    trustedTools: { ...stringList, description: 'Tools (as served) whose output is trusted, whatever their server.' },
    declassifiers: { ...stringList, description: "Tools whose output is trusted whatever their arguments: an attacker can only choose among trusted values with them (a lookup in the user's own address book)." },
    untrustedFields: {
      type: 'object',
      description: "Parts of a trusted tool's output that are not trusted, by tool: paths such as '*.subject' (each item's subject).",
      additionalProperties: stringList,
    },
    readers: { type: 'object', description: "Who may read each tool's output, by tool.", additionalProperties: stringList },
    policies: {
      type: 'object',
      description: 'What each side-effecting tool needs trusted, by tool. A side-effecting tool without one needs every argument, and what decided the call is made, trusted.',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          trusted: { anyOf: [stringList, { const: '*' }], description: "The arguments that must be trusted, or '*' (the default) for all." },
          control: { type: 'boolean', description: 'Whether what decided that the call is made (a condition, a list) must be trusted too. Default true.' },
          readersInclude: { type: 'string', minLength: 1, description: 'Refuse sending data to a value of this argument that its tools say may not read it.' },
        },
      },
    },
    onViolation: { enum: ['ask', 'refuse'], description: 'ask (the default): the person is asked, through approvals (refused when approvals is none); refuse: the call is refused, flow_untrusted.' },
    askEveryEffect: { type: 'boolean', description: 'Ask about every side-effecting call (showing where its arguments came from), not only those untrusted data steers. Default false.' },
  },
} as const;

/** The config file. */
export const CONFIG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'toolweave config',
  type: 'object',
  additionalProperties: false,
  required: ['servers'],
  properties: {
    servers: {
      type: 'object',
      description: 'The MCP servers behind the proxy, by name.',
      minProperties: 1,
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' },
      additionalProperties: SERVER,
    },
    sideEffectingTools: { ...stringList, description: 'Side-effecting tools that may be chained (the host’s list).' },
    composites: { ...stringList, description: 'Composite files (YAML or JSON), relative to this file; * matches within a folder.' },
    script: { ...SCRIPT, description: 'Options of run_js.' },
    approvals: APPROVALS,
    record: {
      type: 'string',
      minLength: 1,
      description:
        'Record every call to an upstream tool (arguments, output up to 64 KiB, outcome, time) into this folder, relative to this file: one JSON-lines file per client session, for `toolweave forge`. Off by default; the files hold your data.',
    },
    scripts: {
      type: 'object',
      description: 'Scripts served as tools of their own, by name: each with its input schema, run in run_js\'s sandbox, every call through the gate.',
      propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
      additionalProperties: SNIPPET,
    },
    flows: FLOWS,
    codeOnly: {
      type: 'boolean',
      description: 'Offer only run_js and get_observation: a script finds every other tool (searchTools, describeTools) and calls it (tools.<name>). Default false.',
    },
    strictSchemas: {
      type: 'boolean',
      description: "List run_pipeline and compose in their strict forms (a step's args, and compose's tree, as JSON text; null for a field left out), for clients whose strict mode cannot take open objects (the OpenAI Agents SDK's convertSchemasToStrict). Either form is taken. Default false.",
    },
  },
} as const;

/** A composite file: a tool built from a spec, and examples `toolweave check` runs as dry runs. */
export const COMPOSITE_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'toolweave composite',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'inputSchema', 'spec'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string', minLength: 1 },
    inputSchema: { type: 'object' },
    spec: { type: 'object', description: 'A ComposableToolSpec.' },
    sideEffectingSteps: {
      ...stringList,
      description:
        'The steps (by name) whose tools change things or do not say: `toolweave check` fails when a step whose tool is not pure is missing here, and a dry run takes their outputs from each example’s stepOutputs. `toolweave forge` writes it.',
    },
    examples: {
      type: 'array',
      description: '`toolweave check` runs each as a dry run: it passes when the composite runs and, given output, when the output matches.',
      items: EXAMPLE,
    },
    flowPolicies: {
      type: 'object',
      description:
        'What each side-effecting tool it calls needs trusted for its calls to run as recorded: the arguments that came from trusted data in every recorded call (`toolweave forge` writes it from recordings made with flows on). An argument left out came from untrusted data: a flows policy that requires it trusted asks about or refuses the call.',
      additionalProperties: { type: 'object', additionalProperties: false, required: ['trusted'], properties: { trusted: stringList } },
    },
  },
} as const;

/** Both schemas, as the published file holds them. */
export const PUBLISHED_SCHEMA = { ...CONFIG_SCHEMA, definitions: { composite: COMPOSITE_FILE_SCHEMA } } as const;
