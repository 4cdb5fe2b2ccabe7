/**
 * The check of a tool's output against the `outputSchema` it declares, compiled once per schema: a
 * served result must match the schema the listing promised.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { ITool } from '../index.js';

/** Schemas the MCP servers in the wild write: draft-07 keywords, formats left unchecked. */
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
const compiled = new WeakMap<object, ValidateFunction | null>();

/** The compiled check of `tool.outputSchema`, or `undefined` when it has none or it does not compile. */
export function outputCheckOf(tool: ITool): ValidateFunction | undefined {
  const schema = tool.outputSchema;
  if (!schema || typeof schema !== 'object') return undefined;
  let check = compiled.get(schema);
  if (check === undefined) {
    try {
      const { $schema: _dialect, ...body } = schema;
      check = ajv.compile(body);
    } catch {
      check = null;
    }
    compiled.set(schema, check);
  }
  return check ?? undefined;
}
