/**
 * The strict form of a tool's input schema, as OpenAI's strict mode wants it: every object closed
 * (`additionalProperties: false`) with every property required, an optional property made
 * nullable. The form knows exactly which properties it made nullable, so it turns the model's
 * `null` for one of them back into an absent field before the tool runs; the tool reads the
 * arguments it always did.
 *
 * Some schemas have no strict form, and are then sent non-strict rather than changed into a
 * shape the tool does not take: a root union, an open object (a step's `args`, a map such as
 * gather's `calls`), a value of any type, a keyword strict mode does not
 * know, and a union whose branches hold optional properties (a `null` there could not be told
 * apart from a branch's own).
 */
import type { JSONSchemaObject } from '../index.js';
import { isRecord } from '../spec/nodes.js';

/**
 * The strict form of a schema and how to read its arguments back, or why it has none.
 *
 * @category Adapters: to a framework
 */
export type StrictForm =
  | {
      ok: true;
      /** The strict schema, to send the model. */
      schema: JSONSchemaObject;
      /** The model's arguments with a `null` for each property the form made nullable removed. */
      restore(args: unknown): unknown;
    }
  | {
      ok: false;
      /** Where and why strict mode cannot express the schema as it is. */
      reason: string;
    };

/** Keywords OpenAI's strict mode does not take. */
const UNSUPPORTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties', 'propertyNames', 'dependencies',
  'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'prefixItems',
  'additionalItems', 'contains', 'minContains', 'maxContains', '$dynamicRef', '$recursiveRef',
];
/** What may stand beside a `$ref`. */
const REF_METADATA = new Set(['$ref', 'description', 'title', '$comment', 'examples', 'deprecated']);
/** Deeper than this, a schema or an argument value is not walked (hostile input stays bounded). */
const MAX_DEPTH = 64;

class NoStrictForm extends Error {}

/**
 * The strict form of `schema`; see the module comment for what has none. Never throws.
 *
 * @param schema - a tool's input schema
 *
 * @example
 * ```ts
 * const form = toStrictSchema(tool.inputSchema);
 * if (form) console.log(form.schema); // every property required, optional ones nullable
 * ```
 *
 * @category Adapters: to a framework
 */
export function toStrictSchema(schema: JSONSchemaObject): StrictForm {
  try {
    if (!isRecord(schema)) throw new NoStrictForm('the schema is not an object');
    if ('anyOf' in schema || 'oneOf' in schema) throw new NoStrictForm('its root is a union (anyOf): strict mode wants one object at the root');
    if (schema.type !== 'object') throw new NoStrictForm('its root is not `type: "object"`');
    const strict = convert(schema, schema, 'input', 0) as JSONSchemaObject;
    return { ok: true, schema: strict, restore: (args) => restore(args, schema, schema, 0) };
  } catch (error) {
    if (error instanceof NoStrictForm) return { ok: false, reason: error.message };
    return { ok: false, reason: `it could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** One node in strict form (a copy; the original is never changed). */
function convert(node: unknown, root: JSONSchemaObject, at: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new NoStrictForm(`${at} is nested too deep`);
  if (node === false) return node;
  if (!isRecord(node)) throw new NoStrictForm(`${at} accepts any value`);
  const keyword = UNSUPPORTED.find((k) => k in node);
  if (keyword) throw new NoStrictForm(`${at} uses \`${keyword}\`, which strict mode does not take`);
  const copy: Record<string, unknown> = { ...node };
  for (const key of ['$defs', 'definitions']) {
    const defs = node[key];
    if (isRecord(defs)) copy[key] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, convert(def, root, `${key}.${name}`, depth + 1)]));
  }
  if ('$ref' in node) {
    if (!isLocalRef(node.$ref)) throw new NoStrictForm(`${at} refers to ${JSON.stringify(node.$ref)}; only "#" and "#/$defs/..." are followed`);
    const sibling = Object.keys(node).find((k) => !REF_METADATA.has(k));
    if (sibling) throw new NoStrictForm(`${at} has \`${sibling}\` beside \`$ref\``);
    return copy;
  }
  if (Array.isArray(node.anyOf)) {
    copy.anyOf = node.anyOf.map((branch, i) => {
      if (hasOptional(branch, root, new Set(), depth + 1)) throw new NoStrictForm(`${at}.anyOf[${i}] holds optional properties, whose null could not be told apart from a branch's own`);
      return convert(branch, root, `${at}.anyOf[${i}]`, depth + 1);
    });
    return copy;
  }
  if (node.type === 'object' || isRecord(node.properties)) return convertObject(node, copy, root, at, depth);
  if (node.type === 'array') {
    if (!isRecord(node.items)) throw new NoStrictForm(`${at} is an array whose items may be any value`);
    copy.items = convert(node.items, root, `${at}[]`, depth + 1);
    return copy;
  }
  if (!('type' in node) && !('enum' in node) && !('const' in node)) throw new NoStrictForm(`${at} accepts any value`);
  return copy;
}

function convertObject(node: Record<string, unknown>, copy: Record<string, unknown>, root: JSONSchemaObject, at: string, depth: number): unknown {
  const properties = isRecord(node.properties) ? node.properties : {};
  const open = 'additionalProperties' in node ? node.additionalProperties !== false : Object.keys(properties).length === 0;
  if (open) throw new NoStrictForm(`${at} is an open object (its fields are not all declared)`);
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : []);
  // Made with fromEntries, which defines each field: assigning a property named `__proto__` would set the prototype instead.
  const strictProperties = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => {
      const strict = convert(property, root, `${at}.${key}`, depth + 1);
      return [key, required.has(key) || admitsNull(property, root, new Set()) ? strict : nullable(strict)];
    }),
  );
  copy.type = 'object';
  copy.properties = strictProperties;
  copy.required = Object.keys(strictProperties);
  copy.additionalProperties = false;
  return copy;
}

/** `schema`, also accepting `null`. */
function nullable(schema: unknown): unknown {
  if (!isRecord(schema)) return { anyOf: [schema, { type: 'null' }] };
  const hasValues = 'enum' in schema || 'const' in schema;
  if (!hasValues && typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (!hasValues && Array.isArray(schema.type)) return { ...schema, type: [...schema.type, 'null'] };
  if (Array.isArray(schema.enum) && !('const' in schema) && (schema.type === undefined || typeof schema.type === 'string')) {
    return { ...schema, enum: [...schema.enum, null], ...(typeof schema.type === 'string' ? { type: [schema.type, 'null'] } : {}) };
  }
  const { description } = schema;
  return { ...(typeof description === 'string' ? { description } : {}), anyOf: [schema, { type: 'null' }] };
}

/** Whether `schema` accepts `null` as it is (then a `null` is the tool's own, never removed). */
function admitsNull(schema: unknown, root: JSONSchemaObject, seen: Set<string>): boolean {
  if (schema === true) return true;
  if (!isRecord(schema)) return false;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref) || seen.size > MAX_DEPTH) return false;
    return admitsNull(resolve(schema.$ref, root), root, new Set([...seen, schema.$ref]));
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((branch) => admitsNull(branch, root, seen));
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return !('type' in schema);
}

/** Whether any object under `schema` has an optional property that does not accept `null`. */
function hasOptional(schema: unknown, root: JSONSchemaObject, seen: Set<string>, depth: number): boolean {
  if (!isRecord(schema) || depth > MAX_DEPTH) return false;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return false;
    seen.add(schema.$ref);
    return hasOptional(resolve(schema.$ref, root), root, seen, depth + 1);
  }
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => hasOptional(branch, root, seen, depth + 1))) return true;
  if (isRecord(schema.items) && hasOptional(schema.items, root, seen, depth + 1)) return true;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(properties).some(
    ([key, property]) => (!required.has(key) && !admitsNull(property, root, new Set())) || hasOptional(property, root, seen, depth + 1),
  );
}

/**
 * `value` with each `null` the strict form introduced removed, walking the original schema: an
 * optional property whose own schema does not accept `null`. Nothing else changes.
 */
function restore(value: unknown, schema: unknown, root: JSONSchemaObject, depth: number): unknown {
  if (depth > MAX_DEPTH || !isRecord(schema)) return value;
  if (typeof schema.$ref === 'string') return restore(value, resolve(schema.$ref, root), root, depth + 1);
  if (Array.isArray(value)) return isRecord(schema.items) ? value.map((item) => restore(item, schema.items, root, depth + 1)) : value;
  if (!isRecord(value) || !isRecord(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const out: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(schema.properties)) {
    // Own fields only: `toString` is in every object. An own field is a data property of the
    // copy (a spread defines them), so assigning it, even `__proto__`, writes that field.
    if (!Object.hasOwn(out, key)) continue;
    if (out[key] === null && !required.has(key) && !admitsNull(property, root, new Set())) delete out[key];
    else out[key] = restore(out[key], property, root, depth + 1);
  }
  return out;
}

function isLocalRef(ref: unknown): ref is string {
  return typeof ref === 'string' && (ref === '#' || /^#\/(?:\$defs|definitions)\/[^/]+$/u.test(ref));
}

function resolve(ref: string, root: JSONSchemaObject): unknown {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/u.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1]];
  const name = match[2].replace(/~1/gu, '/').replace(/~0/gu, '~');
  return isRecord(defs) && Object.prototype.hasOwnProperty.call(defs, name) ? defs[name] : undefined;
}
