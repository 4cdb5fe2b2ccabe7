/**
 * One ajv instance for every JSON Schema check: specs, composite inputs and outputs, and the
 * agent-facing tools' inputs. Schemas are compiled once, when a tool is built.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { JSONSchemaObject } from '../tool.js';

// ajv-formats is CommonJS; under NodeNext its default export sits one level down.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true });
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
