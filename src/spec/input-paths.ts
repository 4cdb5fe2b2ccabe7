/**
 * What a composite's inputSchema says of the paths `$input` references read: a field it does not
 * declare reads `undefined` at every run, so a reference to one is most likely a typo.
 *
 * Only what the schema states is used. A field is declared when `properties` (of the schema, or of
 * any branch of its `allOf`, `anyOf` or `oneOf`) lists it; an array index goes on into `items`.
 * Where the schema cannot say, nothing is reported: it declares no properties at that level, lets
 * other fields in on purpose (`additionalProperties` true or a schema, `patternProperties`), or
 * leans on a `$ref`.
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
  const additional = node.additionalProperties;
  if (additional !== undefined && additional !== false) return false;
  if (isRecord(node.patternProperties) && Object.keys(node.patternProperties).length > 0) return false;
  if (isRecord(node.properties)) {
    for (const [name, sub] of Object.entries(node.properties)) {
      const list = fields.get(name);
      if (list) list.push(sub);
      else fields.set(name, [sub]);
    }
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) if (!collectFields(branch, fields, depth + 1)) return false;
  }
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
