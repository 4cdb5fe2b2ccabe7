/**
 * The config file: read as YAML or JSON, checked against its published JSON Schema; every problem
 * names the file and the field, with the code `config_invalid`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { COMPOSITE_FILE_SCHEMA, CONFIG_SCHEMA } from './config-schema.js';
import type { CompositeFile, ProxyConfig } from './config-types.js';
import { snippetProblems } from './snippet-config.js';

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
