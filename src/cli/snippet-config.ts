/**
 * What the config's `scripts` must hold beyond the shape its JSON Schema checks: an input schema
 * that compiles and describes an object, and a name the proxy's own tools do not hold. Each
 * problem names the field and says how to fix it.
 */
import { Ajv } from 'ajv';
import type { SnippetConfig } from './config-types.js';
import { OWN_TOOL_NAMES } from './own-names.js';

const ajv = new Ajv({ allErrors: true, strict: false });

/**
 * The problems of the config's scripts, one line each, naming the field.
 *
 * @param scripts - the config's `scripts`, shaped as its schema says
 */
export function snippetProblems(scripts: Readonly<Record<string, SnippetConfig>>): string[] {
  const problems: string[] = [];
  for (const [name, snippet] of Object.entries(scripts)) {
    const at = `scripts.${name}`;
    if (OWN_TOOL_NAMES.includes(name)) problems.push(`${at}: the name "${name}" is one of the proxy's own tools (${OWN_TOOL_NAMES.join(', ')}); rename the script`);
    if (snippet.inputSchema.type !== 'object') {
      problems.push(`${at}.inputSchema.type: must be "object": a tool's input is an object of named fields (give type: object and properties)`);
    }
    try {
      ajv.compile(snippet.inputSchema);
    } catch (error) {
      problems.push(`${at}.inputSchema: is not a JSON Schema that can be compiled (${(error as Error).message.split('\n')[0]}); fix the schema`);
    }
  }
  return problems;
}

/**
 * The checker of a script's input, compiled once per schema object.
 *
 * @param schema - a schema {@link snippetProblems} passed
 */
export function inputChecker(schema: Record<string, unknown>): ReturnType<Ajv['compile']> {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

const compiled = new WeakMap<object, ReturnType<Ajv['compile']>>();

/** Ajv's errors of the last failed check, as one line. */
export function inputErrors(check: ReturnType<Ajv['compile']>): string {
  return ajv.errorsText(check.errors, { dataVar: 'input' });
}
