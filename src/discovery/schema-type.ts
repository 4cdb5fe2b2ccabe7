/**
 * A JSON Schema as a TypeScript type a model reads: required and optional fields, enums and
 * consts as literals, nested objects, arrays and tuples, unions (`anyOf`, `oneOf`, a list of
 * types, `nullable`), `allOf` merged, `$ref` resolved within the schema, and each field's
 * description as a comment. Nothing is added that the schema does not say.
 *
 * What cannot be said exactly in TypeScript is said more loosely, with a comment, never as an
 * error: a `$ref` that cycles back on itself, one that points outside the schema, keys matched
 * by `patternProperties`, nesting past a bound.
 */
import { isRecord } from '../spec/nodes.js';

/**
 * Options of {@link schemaToType}.
 *
 * @category Code mode / discovery
 */
export interface SchemaTypeOptions {
  /** The longest comment kept for a field, in characters; longer ones are cut at a word, with `…`. Default 300. */
  maxCommentChars?: number;
}

/**
 * The longest field comment by default: every field description of the nine-server catalog fits.
 *
 * @category Code mode / discovery
 */
export const DEFAULT_MAX_COMMENT_CHARS = 300;
/** Nesting past this many levels is `unknown`: a schema that deep is not read by a model anyway. */
const MAX_DEPTH = 12;
/**
 * The most schema nodes written for one type: `$ref`s that branch without cycling could otherwise
 * write out exponentially many (a server's schema is not to be trusted to be small).
 */
const MAX_NODES = 5000;
/** An object whose fields have no comments is written on one line up to this many characters. */
const INLINE_OBJECT_CHARS = 100;
/** Keywords that give a schema a shape; a branch with none of them only constrains its parent. */
const SHAPE_KEYWORDS = ['type', 'properties', 'items', 'prefixItems', 'enum', 'const', '$ref', 'additionalProperties', 'patternProperties', 'anyOf', 'oneOf', 'allOf'];

/**
 * The TypeScript type of `schema`.
 *
 * `$ref`s resolve against `root` (default: the schema itself),
 * as JSON pointers (`#/$defs/node`, `#/definitions/node`, `#`). `indent` is the indentation of
 * the line the type starts on; nested lines are indented two spaces further.
 *
 * @example
 * ```ts
 * schemaToType({ type: 'object', properties: { path: { type: 'string' }, tail: { type: 'number' } }, required: ['path'] });
 * // '{ path: string; tail?: number }'
 * ```
 *
 * @category Code mode / discovery
 */
export function schemaToType(schema: unknown, options: SchemaTypeOptions & { root?: unknown; indent?: string } = {}): string {
  const root = options.root ?? schema;
  const writer = new TypeWriter(root, options.maxCommentChars ?? DEFAULT_MAX_COMMENT_CHARS);
  // The root is being written: a `$ref: "#"` inside it is a cycle.
  return writer.type(schema, options.indent ?? '', root === schema ? ['#'] : [], 0);
}

/** The comment for a field: its description (or title), its format and its default, on one line. */
function fieldComment(schema: unknown, maxChars: number = DEFAULT_MAX_COMMENT_CHARS): string {
  if (!isRecord(schema)) return '';
  const text = typeof schema.description === 'string' ? schema.description : typeof schema.title === 'string' ? schema.title : '';
  const parts = [oneLine(text, maxChars)];
  if (schema.deprecated === true) parts.unshift('Deprecated.');
  if (typeof schema.format === 'string') parts.push(`(format: ${schema.format})`);
  if (schema.default !== undefined) {
    const shown = jsonOf(schema.default);
    if (shown !== undefined && shown.length <= 40) parts.push(`(default: ${shown})`);
  }
  return parts.filter(Boolean).join(' ');
}

/** Text on one line, whitespace collapsed, cut at a word to `maxChars` with `…`, safe inside a comment. */
export function oneLine(text: string, maxChars: number): string {
  let line = text.replace(/\s+/gu, ' ').trim();
  if (line.length > maxChars) {
    const cut = line.slice(0, maxChars - 1);
    const space = cut.lastIndexOf(' ');
    line = `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
  }
  return safeInComment(line);
}

/** `*\/` would end the comment early. */
export function safeInComment(text: string): string {
  return text.replaceAll('*/', '*\\/');
}

/** A property name as TypeScript writes it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/u.test(name) ? name : JSON.stringify(name);
}

class TypeWriter {
  private nodes = 0;

  constructor(
    private readonly root: unknown,
    private readonly maxCommentChars: number,
  ) {}

  /** The type of `schema`, `refs` the `$ref`s being expanded on the way here. */
  type(schema: unknown, indent: string, refs: readonly string[], depth: number): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isRecord(schema)) return 'unknown';
    // Only objects and arrays count as levels; a cycle through $ref is caught by `refs`.
    if (depth > MAX_DEPTH) return `unknown /* nested deeper than ${MAX_DEPTH} levels */`;
    if (++this.nodes > MAX_NODES) return 'unknown /* the schema is too large to write out */';

    if (typeof schema.$ref === 'string') return this.ref(schema, schema.$ref, indent, refs, depth);
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      return this.type(allOf.reduce<Record<string, unknown>>((merged, part) => merge(merged, this.inlined(part, refs)), rest), indent, refs, depth);
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (!Array.isArray(branches)) continue;
      const { [keyword]: _branches, ...base } = schema;
      // Branches that only require one field or another constrain the base; they add no shape.
      if (hasShape(base) && !branches.some(hasShape)) return this.type(base, indent, refs, depth);
      return union(branches.map((branch) => this.type(hasShape(base) ? merge(base, this.inlined(branch, refs)) : branch, indent, refs, depth)));
    }
    const nullable = schema.nullable === true ? ' | null' : '';
    if (schema.const !== undefined) return literal(schema.const) + nullable;
    if (Array.isArray(schema.enum)) return union([...schema.enum.map(literal), ...(nullable ? ['null'] : [])]);
    if (Array.isArray(schema.type)) {
      return union([...schema.type.map((type) => this.type({ ...schema, type, nullable: false }, indent, refs, depth)), ...(nullable ? ['null'] : [])]);
    }
    return this.ofType(schema, indent, refs, depth) + nullable;
  }

  /** The type a `type` keyword (or the keywords present, when it is absent) names. */
  private ofType(schema: Record<string, unknown>, indent: string, refs: readonly string[], depth: number): string {
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'object':
        return this.object(schema, indent, refs, depth);
      case 'array':
        return this.array(schema, indent, refs, depth);
      case undefined:
        if (schema.properties !== undefined || schema.additionalProperties !== undefined || schema.patternProperties !== undefined || schema.required !== undefined) {
          return this.object(schema, indent, refs, depth);
        }
        if (schema.items !== undefined || schema.prefixItems !== undefined) return this.array(schema, indent, refs, depth);
        return 'unknown';
      default:
        return `unknown /* type ${safeInComment(jsonOf(schema.type) ?? '?')} */`;
    }
  }

  private object(schema: Record<string, unknown>, indent: string, refs: readonly string[], depth: number): string {
    const properties = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === 'string') : []);
    const inner = `${indent}  `;
    const fields = properties.map(([name, property]) => ({
      comment: fieldComment(this.described(property, refs), this.maxCommentChars),
      line: `${propertyKey(name)}${required.has(name) ? '' : '?'}: ${this.type(property, inner, refs, depth + 1)};`,
    }));
    const rest = this.restOf(schema, indent, refs, depth);
    // A schema that names its fields, even none, means those fields; one that names none at all, any.
    if (!fields.length) return rest ?? (schema.additionalProperties === false || isRecord(schema.properties) ? '{}' : 'Record<string, unknown>');
    const oneLineText = `{ ${fields.map((f) => f.line.slice(0, -1)).join('; ')} }`;
    const shape =
      fields.every((f) => !f.comment) && !oneLineText.includes('\n') && oneLineText.length <= INLINE_OBJECT_CHARS
        ? oneLineText
        : `{\n${fields.map((f) => `${f.comment ? `${inner}/** ${f.comment} */\n` : ''}${inner}${f.line}`).join('\n')}\n${indent}}`;
    // Fields and other keys together: an intersection, which TypeScript accepts whatever the types.
    return rest ? `${shape} & ${rest}` : shape;
  }

  /** The keys beyond the named fields: `additionalProperties` as a schema, or `patternProperties` loosened. */
  private restOf(schema: Record<string, unknown>, indent: string, refs: readonly string[], depth: number): string | undefined {
    const types: string[] = [];
    const additional = schema.additionalProperties;
    if (isRecord(additional) && Object.keys(additional).length) types.push(this.type(additional, indent, refs, depth + 1));
    const patterns = isRecord(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    if (!patterns.length) return types.length ? `Record<string, ${types[0]}>` : undefined;
    // TypeScript cannot say "keys matching a pattern": any key, with the patterns named.
    types.push(...patterns.map(([, value]) => this.type(value, indent, refs, depth + 1)));
    return `Record<string, ${union(types)}> /* keys matching ${patterns.map(([pattern]) => safeInComment(pattern)).join(', ')} */`;
  }

  private array(schema: Record<string, unknown>, indent: string, refs: readonly string[], depth: number): string {
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    if (tuple) {
      const rest = Array.isArray(schema.prefixItems) && isRecord(schema.items) ? [`...${arrayOf(this.type(schema.items, indent, refs, depth + 1))}`] : [];
      return `[${[...tuple.map((item) => this.type(item, indent, refs, depth + 1)), ...rest].join(', ')}]`;
    }
    return arrayOf(this.type(schema.items, indent, refs, depth + 1));
  }

  /** A `$ref`: the schema it points to, with any keywords beside it; a cycle or a miss is loosened. */
  private ref(schema: Record<string, unknown>, ref: string, indent: string, refs: readonly string[], depth: number): string {
    const target = resolvePointer(this.root, ref);
    if (target === undefined) return `unknown /* $ref ${safeInComment(ref)} not found in the schema */`;
    if (refs.includes(ref)) {
      const loose = isRecord(target) && (target.type === 'object' || isRecord(target.properties)) ? 'Record<string, unknown>' : 'unknown';
      return `${loose} /* recursive: ${safeInComment(ref)} */`;
    }
    const { $ref: _ref, ...beside } = schema;
    const merged = Object.keys(beside).length && isRecord(target) ? merge(target, beside) : target;
    return this.type(merged, indent, [...refs, ref], depth);
  }

  /** A branch or part with its `$ref` followed (one level), so it can be merged into its parent. */
  private inlined(schema: unknown, refs: readonly string[]): Record<string, unknown> {
    if (!isRecord(schema)) return {};
    if (typeof schema.$ref !== 'string' || refs.includes(schema.$ref)) return schema;
    const target = resolvePointer(this.root, schema.$ref);
    const { $ref: _ref, ...beside } = schema;
    return isRecord(target) ? merge(target, beside) : schema;
  }

  /** A field's schema for its comment: a bare `$ref` speaks through what it points to. */
  private described(schema: unknown, refs: readonly string[]): unknown {
    return isRecord(schema) && schema.description === undefined && typeof schema.$ref === 'string' ? this.inlined(schema, refs) : schema;
  }
}

/** Whether a schema gives a shape of its own (not only constraints such as `required`). */
function hasShape(schema: unknown): boolean {
  return isRecord(schema) && SHAPE_KEYWORDS.some((keyword) => schema[keyword] !== undefined);
}

/** Two schemas as one: the second's keywords win, `properties` are joined and `required` lists added up. */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...over };
  if (isRecord(base.properties) && isRecord(over.properties)) merged.properties = { ...base.properties, ...over.properties };
  if (Array.isArray(base.required) && Array.isArray(over.required)) merged.required = [...new Set([...base.required, ...over.required])];
  return merged;
}

/** Types joined by `|`, each once; `unknown` takes in everything else. */
function union(types: readonly string[]): string {
  const distinct = [...new Set(types)];
  if (distinct.includes('unknown')) return 'unknown';
  if (!distinct.length) return 'never';
  return distinct.join(' | ');
}

/** `T[]`, or `Array<T>` when `T` would need parentheses. */
function arrayOf(type: string): string {
  return /^[\w$.]+$/u.test(type) ? `${type}[]` : `Array<${type}>`;
}

/** A JSON value as a literal type; one with no JSON form is `unknown`. */
function literal(value: unknown): string {
  return jsonOf(value) ?? 'unknown';
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined;
  }
}

/** The value a JSON pointer (`#/a/b`, `#`) names within `root`; `undefined` for anything else. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node) && /^\d+$/u.test(key)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}
