/**
 * Own fields named `__proto__` in a call's arguments. JSON Schema checkers skip that name (a
 * schema's `properties` cannot even list it in a JavaScript literal), and a tool that copies its
 * arguments by assignment would make such a field its copy's prototype, so the arguments stage
 * refuses one at any depth. Only an enumerable one counts, as only such a field is copied (by
 * `for in`, `Object.keys`, spread, `Object.assign`, JSON), and every such field JSON makes is one.
 *
 * A search costs a walk of the whole arguments, which for a tool with a real schema can cost a
 * third of what its compiled validator costs. Where the schema closes an object
 * (`additionalProperties: false`), arguments that passed it hold no own field it does not list, so
 * `protoSearchFor` gives a search of only the parts the schema leaves open (or none at all).
 */
import { isRecord } from '../spec/nodes.js';

/** A search of a value for an own `__proto__` field: `true` when it has one. */
export type ProtoSearch = (value: unknown) => boolean;

/**
 * Whether `value` holds an own `__proto__` field at any depth: the cheap question a run asks of
 * every call whose arguments passed their schema (which skips such a field). Arguments of the
 * usual size (at most 64 objects below the top, none more than 16 deep) are answered by a
 * recursive walk that keeps no set, queue or path; any other (large, deep, sharing objects between
 * many keys, or holding a cycle) are searched by `protoField`, which looks at each object once. A
 * yes is only a filter: the refusal searches again to name the field.
 */
export function hasProtoField(value: object): boolean {
  const left = protoWithin(value, 0, WALK_OBJECTS);
  if (left >= 0) return false;
  return left === FOUND || protoField(value) !== undefined;
}

/** How many objects below the top the quick walk enters before it hands the search over. */
const WALK_OBJECTS = 64;
/** How deep the quick walk goes: it also ends a walk around a cycle, which it does not track. */
const WALK_DEPTH = 16;
/** The answer of `protoWithin` when an object has the field. */
const FOUND = -1;
/** The answer of `protoWithin` when the arguments are larger or deeper than it walks. */
const BEYOND = -2;

/**
 * The walk of `hasProtoField`: depth first through the same fields `protoField` follows (own,
 * enumerable, named by a string), entering at most `budget` objects; it allocates nothing but an
 * array's list of fields. Answers the budget left when no object has the field, `FOUND`, or
 * `BEYOND` when a bound is reached. An object reached twice (shared, or on a cycle) is walked
 * again and counted again, so both bounds hold.
 *
 * The field is found among the names the walk lists anyway: a comparison per field, where asking
 * each object for an own `__proto__` cost a lookup of a name it almost never has (about 150
 * instructions, more than the rest of the walk of a small object).
 */
function protoWithin(node: object, depth: number, budget: number): number {
  if (Array.isArray(node)) {
    // An array's own fields are listed, not walked by index: a field that is not an index counts
    // too. (`for in` over an array costs more than the list.)
    const keys = Object.keys(node);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === '__proto__') return FOUND;
      const inner = (node as unknown as Record<string, unknown>)[keys[i]];
      if (typeof inner !== 'object' || inner === null) continue;
      if (budget === 0 || depth === WALK_DEPTH) return BEYOND;
      budget = protoWithin(inner, depth + 1, budget - 1);
      if (budget < 0) return budget;
    }
    return budget;
  }
  for (const key in node) {
    // `for in` also lists inherited enumerable fields: only an own one counts, and only an object
    // needs entering, through a field of its own (asked after the type, so a primitive field
    // costs no lookup).
    if (key === '__proto__' && hasOwnProperty.call(node, key)) return FOUND;
    const inner = (node as Record<string, unknown>)[key];
    if (typeof inner !== 'object' || inner === null || !hasOwnProperty.call(node, key)) continue;
    if (budget === 0 || depth === WALK_DEPTH) return BEYOND;
    budget = protoWithin(inner, depth + 1, budget - 1);
    if (budget < 0) return budget;
  }
  return budget;
}

// V8 answers `hasOwnProperty` of a key `for in` just gave from the object's shape, which it does
// not do for `Object.hasOwn`.
const hasOwnProperty = Object.prototype.hasOwnProperty;

/**
 * The path of an own `__proto__` field in `value` (`opts.list.0.__proto__`, the shallowest), or
 * `undefined`. Each object is looked at once, however often it is shared: a tool's output passed
 * on as arguments may share one object under two keys at every level (60 such objects would make
 * a walk of every path take 2^60 steps) or hold a cycle. Iterative, so no depth overflows it.
 */
export function protoField(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const seen = new Set<object>([value]);
  const nodes: object[] = [value];
  // Each node's parent and key: the path is spelled only for the node that has the field.
  const parents: number[] = [-1];
  const keys: string[] = [''];
  for (let next = 0; next < nodes.length; next++) {
    const node = nodes[next];
    const names = Object.keys(node);
    if (names.includes('__proto__')) {
      let path = '__proto__';
      for (let at = next; at > 0; at = parents[at]) path = `${keys[at]}.${path}`;
      return path;
    }
    for (const key of names) {
      const inner = (node as Record<string, unknown>)[key];
      if (typeof inner !== 'object' || inner === null || seen.has(inner)) continue;
      seen.add(inner);
      nodes.push(inner);
      parents.push(next);
      keys.push(key);
    }
  }
  return undefined;
}

/** The search of every part of a value: what a schema that closes nothing leaves. */
export const searchEverything: ProtoSearch = (value) => typeof value === 'object' && value !== null && hasProtoField(value);

/**
 * The search of an object whose own enumerable fields are known to be exactly `keys`, none of them
 * `__proto__` (an object a compiled mapping built): the one value that is an object is searched,
 * without listing the object's fields; with more than one, the whole.
 */
export function valuesSearch(keys: readonly string[]): ProtoSearch {
  const n = keys.length;
  return (value) => {
    const object = value as Record<string, unknown>;
    let only: object | undefined;
    for (let i = 0; i < n; i++) {
      const inner = object[keys[i]];
      if (typeof inner !== 'object' || inner === null) continue;
      // Two values may share what they hold: the search of the whole looks at each object once.
      if (only !== undefined) return hasProtoField(object);
      only = inner;
    }
    return only !== undefined && hasProtoField(only);
  };
}

/**
 * Keywords a schema node may hold and still be read here: each only narrows what the node accepts,
 * and none lets an object have a field the node's `properties` do not list when
 * `additionalProperties` is `false`. Any other keyword (`allOf`, `$ref`, `patternProperties`,
 * `nullable`, one this list does not know) makes the node's values searched whole. Keywords that
 * only arrays read are harmless: an array is always searched whole (below).
 */
const NARROWING = new Set([
  '$schema', '$id', '$comment', 'title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$defs', 'definitions',
  'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'propertyNames', 'dependentRequired',
  'minLength', 'maxLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'items', 'prefixItems', 'additionalItems', 'contains', 'minContains', 'maxContains', 'minItems', 'maxItems', 'uniqueItems',
]);

/** What kinds of value a node accepts: bits of these. */
const OBJECT = 1;
const ARRAY = 2;
const PRIMITIVE = 4;
const ANY = OBJECT | ARRAY | PRIMITIVE;
const KIND_OF_TYPE: Record<string, number> = { object: OBJECT, array: ARRAY, string: PRIMITIVE, number: PRIMITIVE, integer: PRIMITIVE, boolean: PRIMITIVE, null: PRIMITIVE };

/** How deep into a schema the reading goes; below, values are searched whole. */
const SCHEMA_DEPTH = 32;

/**
 * The search arguments still need once they passed `schema` (as ajv checks it, with
 * `ownProperties`): `null` when the schema leaves no place for an own `__proto__` field (every
 * object it accepts is closed, down to values that can only be primitives), else a search of only
 * the places it leaves open. An array is always searched whole: a schema says nothing of an
 * array's own fields that are not indices.
 */
export function protoSearchFor(schema: unknown): ProtoSearch | null {
  return nodeSearch(schema, 0);
}

function nodeSearch(schema: unknown, depth: number): ProtoSearch | null {
  if (schema === false) return null;
  if (!isRecord(schema) || depth > SCHEMA_DEPTH) return searchEverything;
  for (const key of Object.keys(schema)) if (!NARROWING.has(key)) return searchEverything;
  const kinds = kindsOf(schema);
  // Read only after the value passed the schema, so it is of a kind the schema accepts.
  const objects = kinds & OBJECT ? objectSearch(schema, depth) : null;
  const arrays = (kinds & ARRAY) !== 0;
  if (objects === searchEverything) return searchEverything;
  if (objects === null) return arrays ? arraysOnly : null;
  // Objects searched where they are open; arrays whole; primitives not at all.
  return (value) => {
    if (typeof value !== 'object' || value === null) return false;
    return Array.isArray(value) ? hasProtoField(value) : objects(value);
  };
}

/** The search of a node whose objects are closed: only an array it accepts is searched. */
const arraysOnly: ProtoSearch = (value) => Array.isArray(value) && hasProtoField(value);

/** The kinds of value `schema` accepts, from `type`, `enum` and `const`. */
function kindsOf(schema: Record<string, unknown>): number {
  let kinds = ANY;
  const type = schema.type;
  if (typeof type === 'string' || Array.isArray(type)) {
    kinds = 0;
    for (const name of typeof type === 'string' ? [type] : type) kinds |= typeof name === 'string' && Object.hasOwn(KIND_OF_TYPE, name) ? KIND_OF_TYPE[name] : ANY;
  } else if (type !== undefined) return ANY;
  // A list of primitive values accepts no object.
  if (Array.isArray(schema.enum) && schema.enum.every(isPrimitive)) kinds &= PRIMITIVE;
  if (Object.hasOwn(schema, 'const') && isPrimitive(schema.const)) kinds &= PRIMITIVE;
  return kinds;
}

function isPrimitive(value: unknown): boolean {
  return typeof value !== 'object' || value === null;
}

/**
 * The search an object accepted by `schema` needs: `null` when it is closed and every field it
 * lists is closed too, `searchEverything` when it is open, else a search of the listed fields
 * whose values may hold the name.
 */
function objectSearch(schema: Record<string, unknown>, depth: number): ProtoSearch | null {
  const properties = schema.properties ?? {};
  if (schema.additionalProperties !== false || !isRecord(properties) || Object.hasOwn(properties, '__proto__')) return searchEverything;
  const fields: string[] = [];
  const searches: ProtoSearch[] = [];
  for (const key of Object.keys(properties)) {
    const search = nodeSearch(properties[key], depth + 1);
    if (search === null) continue;
    fields.push(key);
    searches.push(search);
  }
  if (fields.length === 0) return null;
  return (value) => {
    const object = value as Record<string, unknown>;
    for (let i = 0; i < fields.length; i++) if (hasOwnProperty.call(object, fields[i]) && searches[i](object[fields[i]])) return true;
    return false;
  };
}
