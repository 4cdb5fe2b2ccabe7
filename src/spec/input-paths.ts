/**
 * What a composite's inputSchema says of the paths `$input` references read: a field it does not
 * declare reads `undefined` at every run, so a reference to one is most likely a typo.
 *
 * Only what the schema states is used. A field is declared when `properties` or `required` lists
 * it, in the schema or in any schema it applies under a condition (`allOf`, `anyOf`, `oneOf`, `if`,
 * `then`, `else`, `dependentSchemas`, `dependencies`); an array index goes on into `items`. Where
 * the schema cannot say, nothing is reported: it declares no properties at that level, lets other
 * fields in on purpose (`additionalProperties` or `unevaluatedProperties` true or a schema,
 * `patternProperties`), or leans on a `$ref`.
 */
import { closestNames } from '../gate/suggest.js';
import type { PathSegment } from '../refs/path.js';
import { isRecord } from './nodes.js';

/** The problem of one `$input` path, or `undefined` when the schema declares it or cannot say. */
export type InputPathCheck = (segments: readonly PathSegment[]) => string | undefined;

/** How many declared names a message lists when none is close. */
const MAX_LISTED = 10;

/** Deeper than this, a schema's branches are not followed (a host-made schema may even be cyclic). */
const MAX_DEPTH = 32;

/** The check of `$input` paths against `schema`. */
export function inputPathCheck(schema: unknown): InputPathCheck {
  return (segments) => {
    let nodes: unknown[] = [schema];
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      if (typeof segment === 'number') {
        nodes = nodes.flatMap((node) => (isRecord(node) && isRecord(node.items) ? [node.items] : []));
        if (nodes.length === 0) return undefined;
        continue;
      }
      const fields = new Map<string, unknown[]>();
      for (const node of nodes) if (!collectFields(node, fields, 0)) return undefined;
      if (fields.size === 0) return undefined;
      const declared = fields.get(segment);
      if (!declared) return undeclared(segments.slice(0, i + 1), [...fields.keys()]);
      nodes = declared;
    }
    return undefined;
  };
}

/**
 * Add the fields `node` declares (each name with the schemas that declare it) to `fields`;
 * false when the node leaves its fields open or cannot be read, so nothing may be said.
 */
function collectFields(node: unknown, fields: Map<string, unknown[]>, depth: number): boolean {
  if (!isRecord(node)) return node !== true && depth <= MAX_DEPTH;
  if (depth > MAX_DEPTH || node.$ref !== undefined || node.$dynamicRef !== undefined) return false;
  for (const open of [node.additionalProperties, node.unevaluatedProperties]) if (open !== undefined && open !== false) return false;
  if (isRecord(node.patternProperties) && Object.keys(node.patternProperties).length > 0) return false;
  const declare = (name: string, sub?: unknown): void => {
    const list = fields.get(name) ?? [];
    if (sub !== undefined) list.push(sub);
    fields.set(name, list);
  };
  if (isRecord(node.properties)) for (const [name, sub] of Object.entries(node.properties)) declare(name, sub);
  // A name that is only required says nothing of what it holds: nothing below it is checked.
  if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') declare(name);
  const branches: unknown[] = [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(node[key])) branches.push(...(node[key] as unknown[]));
  for (const key of ['if', 'then', 'else'] as const) if (node[key] !== undefined) branches.push(node[key]);
  for (const key of ['dependentSchemas', 'dependencies'] as const) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const value of Object.values(map)) {
      // `dependencies` may also list names (a property requiring others).
      if (!Array.isArray(value)) branches.push(value);
      else for (const name of value) if (typeof name === 'string') declare(name);
    }
  }
  for (const branch of branches) if (!collectFields(branch, fields, depth + 1)) return false;
  return true;
}

/** `reads "user.idd", which the inputSchema does not declare (did you mean id?)`. */
function undeclared(path: readonly PathSegment[], names: string[]): string {
  const field = path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  const close = closestNames(String(path[path.length - 1]), names);
  const hint = close.length
    ? `did you mean ${close.join(', ')}?`
    : `it declares ${names.slice(0, MAX_LISTED).join(', ')}${names.length > MAX_LISTED ? ', ...' : ''}`;
  return `reads ${JSON.stringify(field)}, which the inputSchema does not declare (${hint})`;
}
