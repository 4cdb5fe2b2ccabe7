/**
 * The config file: read as YAML or JSON, checked against its published JSON Schema; every problem
 * names the file and the field, with the code `config_invalid`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import type { SandboxPoolOptions, ScriptToolOptions } from '../index.js';
import { COMPOSITE_FILE_SCHEMA, CONFIG_SCHEMA } from './config-schema.js';
import type { MatchMode } from './example-match.js';
import { snippetProblems } from './snippet-config.js';

/** One upstream MCP server. */
export interface ServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  prefix?: boolean;
  trustAnnotations?: boolean;
  tools?: Record<string, { hasSideEffects: boolean }>;
  initTimeoutMs?: number;
  callTimeoutMs?: number;
}

/** `approvals` with its settings. */
export interface ApprovalsConfig {
  /** none: no one is asked; elicit: the person at the client, by elicitation; queue: the run pauses until the person answers through `toolweave approvals`. */
  mode: 'none' | 'elicit' | 'queue';
  /** queue: the approvals endpoint's port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** queue: the most paused runs the queue holds (default 100). */
  maxPending?: number;
  /** queue: who must approve, as the model is told. */
  approver?: string;
}

/** The proxy's configuration, from a file or from the command line. */
export interface ProxyConfig {
  servers: Record<string, ServerConfig>;
  sideEffectingTools?: string[];
  composites?: string[];
  /** run_js's options, and the pool the sessions share. */
  script?: Omit<ScriptToolOptions, 'sideEffectingTools' | 'pool' | 'scope'> & { pool?: SandboxPoolOptions };
  /** How side-effecting calls are approved: the mode, or the mode with its settings (see {@link ApprovalsConfig}). */
  approvals?: ApprovalsConfig['mode'] | ApprovalsConfig;
  /** Scripts served as tools of their own, by name (see `snippets.ts`). */
  scripts?: Record<string, SnippetConfig>;
  /** Offer only run_js and get_observation; a script finds and calls every other tool. */
  codeOnly?: boolean;
  /** Record every upstream call, one JSON-lines file per session, into this folder (relative to `base`). */
  record?: string;
  /** The folder relative paths are read from (the config file's). */
  base: string;
  /** Where the config came from, for messages. */
  source: string;
  /** The name of the server given on the command line after `--`, if any. */
  commandLineServer?: string;
}

/** A composite file, read and checked. */
export interface CompositeFile {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  spec: Record<string, unknown>;
  examples?: CompositeExample[];
  /** The steps whose tools change things or do not say, by name (`toolweave forge` writes it). */
  sideEffectingSteps?: string[];
  /** The file it was read from. */
  file: string;
}

/** A script the config serves as a tool: its input checked against `inputSchema`, run in run_js's sandbox. */
export interface SnippetConfig {
  description: string;
  inputSchema: Record<string, unknown>;
  /** The body of an async function; `input` holds the checked input. */
  script: string;
  /** The side-effecting tools it calls (each must be in the config's `sideEffectingTools` too); absent: it is pure. */
  sideEffectingTools?: string[];
  examples?: CompositeExample[];
}

/** An example `toolweave check` runs: without `output`, it passes when the composite runs. */
export interface CompositeExample {
  name?: string;
  input: Record<string, unknown>;
  stepOutputs?: Record<string, unknown>;
  output?: unknown;
  /** How `output` is compared (see `example-match.ts`); default `exact`. */
  match?: MatchMode;
}

/** A config or composite file that is wrong: the message names the file and the field. */
export class ConfigError extends Error {
  /** Always `config_invalid`. */
  readonly code = 'config_invalid';
  /** Every problem, each naming the file and the field. */
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const ajv = new Ajv({ allErrors: true, strict: false });
const checkConfig = ajv.compile(CONFIG_SCHEMA);
const checkComposite = ajv.compile(COMPOSITE_FILE_SCHEMA);

/** Read and check the config file at `file`. */
export async function loadConfig(file: string): Promise<ProxyConfig> {
  const data = await readData(file);
  if (!checkConfig(data)) throw new ConfigError(problemsOf(file, checkConfig.errors ?? []));
  const config = data as Omit<ProxyConfig, 'base' | 'source'>;
  const problems = snippetProblems(config.scripts ?? {}).map((problem) => `${file}: ${problem}`);
  if (problems.length) throw new ConfigError(problems);
  return { ...config, base: path.dirname(path.resolve(file)), source: file };
}

/** Read and check one composite file. */
export async function loadCompositeFile(file: string): Promise<CompositeFile> {
  const data = await readData(file);
  if (!checkComposite(data)) throw new ConfigError(problemsOf(file, checkComposite.errors ?? []));
  return { ...(data as Omit<CompositeFile, 'file'>), file };
}

/** A file's data: JSON for `.json`, YAML otherwise (YAML reads JSON too). */
async function readData(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
  }
  try {
    return file.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new ConfigError([`${file}: is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`]);
  }
}

/** ajv's errors as lines naming the file and the field, one per problem. */
function problemsOf(file: string, errors: ErrorObject[]): string[] {
  const lines = new Set<string>();
  // A oneOf's branches explain themselves badly; the command-or-url rule is said once instead.
  const oneOfAt = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  // An anyOf of shapes (a mode, or an object with the mode): only the branch of the value's own
  // type explains it; the other branches' errors and "must match a schema in anyOf" are left out.
  // A value of no branch's type is told the types, once.
  const otherShape = new Set<string>();
  for (const error of errors) {
    const branch = /^(.*\/anyOf\/\d+)\/type$/u.exec(error.schemaPath);
    if (error.keyword === 'type' && branch) otherShape.add(branch[1]);
  }
  const inBranch = (error: ErrorObject, branches: Iterable<string>) => [...branches].some((branch) => error.schemaPath.startsWith(`${branch}/`));
  for (const anyOf of errors.filter((e) => e.keyword === 'anyOf')) {
    const under = errors.filter((e) => e.schemaPath.startsWith(`${anyOf.schemaPath}/`));
    if (under.length === 0 || !under.every((e) => inBranch(e, otherShape))) continue;
    const types = under.filter((e) => e.keyword === 'type').map((e) => String((e.params as { type?: unknown }).type));
    lines.add(`${file}: ${fieldOf(anyOf.instancePath) || '(top level)'}: must be ${[...new Set(types)].join(' or ')}`);
  }
  for (const error of errors) {
    const inOneOf = [...oneOfAt].some((at) => error.instancePath === at && error.schemaPath.includes('/oneOf/'));
    if (inOneOf) continue;
    if (error.keyword === 'anyOf' || inBranch(error, otherShape)) continue;
    const field = fieldOf(error.instancePath) || '(top level)';
    lines.add(`${file}: ${field}: ${messageOf(error)}`);
  }
  return [...lines];
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field "${String(params.additionalProperty)}"`;
    case 'required':
      return `missing field "${String(params.missingProperty)}"`;
    case 'oneOf':
      return 'give either command (with args, env, cwd) or url (with headers), not both and not neither';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'propertyNames':
      return `the name "${String(params.propertyName)}" may hold only letters, digits, _ and -`;
    default:
      return error.message ?? 'is wrong';
  }
}

/** `/servers/fs/args/0` as `servers.fs.args[0]`. */
function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/gu, '/').replace(/~0/gu, '~'))
    .reduce((out, part) => (/^\d+$/u.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}
