/**
 * One ajv instance for every JSON Schema check: specs, composite inputs and outputs, and the
 * agent-facing tools' inputs. Schemas are compiled once, when a tool is built.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { JSONSchemaObject } from '../tool.js';

// ajv-formats is CommonJS; under NodeNext its default export sits one level down.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

// `ownProperties`: a field is present only when the value has it as its own, so an optional
// `toString` may be left out and a required `valueOf` must be given.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, ownProperties: true });
addFormats(ajv);

/** A compiled check: `null` when the value passes, else one message per problem. */
export type SchemaCheck = (value: unknown, where?: string) => string[] | null;

/**
 * Compile a JSON Schema once. Throws when the schema itself is not valid JSON Schema (a
 * configuration error, caught when a tool is built).
 */
export function compileSchema(schema: JSONSchemaObject): SchemaCheck {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value, where = '') => (validate(value) ? null : formatErrors(validate.errors, where));
}

/** ajv's errors as short sentences: `/steps/0/tool must be string`. */
export function formatErrors(errors: ErrorObject[] | null | undefined, prefix = ''): string[] {
  if (!errors) return [];
  return errors.map((e) => {
    const where = `${prefix}${e.instancePath.replace(/\//g, '.')}` || '(root)';
    if (e.keyword === 'additionalProperties') {
      return `${where} has an unknown field "${String(e.params.additionalProperty)}"`;
    }
    return `${where} ${e.message ?? 'is invalid'}`;
  });
}

/**
 * The problems of a JSON Schema itself, each naming where in the schema and showing the bad
 * value (`outputSchema.properties.n.type must be equal to one of the allowed values (got "nubmer")`),
 * or `null` when ajv can compile it. What ajv's own compile error does not say.
 */
export function schemaProblems(schema: unknown, where: string): string[] | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${where} must be an object (got ${preview(schema)})`];
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (error) {
    return [`${where} cannot be read as JSON Schema: ${error instanceof Error ? error.message : String(error)}`];
  }
  if (!valid) {
    // One line per place: ajv lists every alternative it tried for the same value.
    const seen = new Map<string, string>();
    for (const e of ajv.errors ?? []) {
      const at = e.instancePath;
      if (seen.has(at)) continue;
      seen.set(at, `${where}${at.replace(/\//g, '.')} ${e.message ?? 'is invalid'} (got ${preview(valueAt(schema, at))})`);
    }
    return [...seen.values()];
  }
  try {
    ajv.compile(schema);
    return null;
  } catch (error) {
    return [`${where} cannot be compiled: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** The value at a JSON Pointer in `root` (own properties only). */
export function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A short JSON preview of a value, for an error message. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
