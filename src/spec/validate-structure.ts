/**
 * The structural half of validation: every node checked on its own against its kind's schema,
 * plus what a schema cannot say (cycles, depth, unique names). Every problem is listed.
 * The other half, references, is checked when the engine compiles the mappings.
 */
import { compileSchema, type SchemaCheck } from './ajv.js';
import { childrenOf, isRecord, kindOf } from './nodes.js';
import { COMBINATORS, MAX_TREE_DEPTH, shallowNodeSchema, type SchemaForm } from './schema.js';
import type { CombinatorName, SpecNode } from './types.js';

const checkers = new Map<string, SchemaCheck>();
function checkerFor(kind: CombinatorName | 'step', form: SchemaForm): SchemaCheck {
  const key = `${form}:${kind}`;
  let check = checkers.get(key);
  if (!check) {
    check = compileSchema(shallowNodeSchema(kind, form));
    checkers.set(key, check);
  }
  return check;
}

/**
 * Check one node tree (and everything under it); push each problem onto `errors`. Returns false
 * when the tree cannot even be walked (it nests too deep or contains itself), so nothing else
 * may walk it either.
 */
export function checkNodeTree(root: unknown, where: string, form: SchemaForm, errors: string[], names?: Map<string, string>): boolean {
  const onPath = new Set<unknown>();
  let walkable = true;
  const visit = (node: unknown, at: string, depth: number): void => {
    if (depth > MAX_TREE_DEPTH) {
      errors.push(`${at}: the tree nests deeper than ${MAX_TREE_DEPTH} levels`);
      walkable = false;
      return;
    }
    if (onPath.has(node)) {
      errors.push(`${at}: the tree contains a cycle (a node contains itself)`);
      walkable = false;
      return;
    }
    const kind = kindOf(node);
    if (kind === 'unknown') {
      const combinator = isRecord(node) ? node.combinator : undefined;
      errors.push(
        combinator !== undefined
          ? `${at}: unknown combinator ${JSON.stringify(combinator)} (expected one of ${COMBINATORS.join(', ')})`
          : `${at}: a node must be an object`,
      );
      return;
    }
    const problems = checkerFor(kind, form)(node, at);
    if (problems) errors.push(...problems);
    errors.push(...meaningProblems(node as SpecNode, at, form));
    const name = (node as SpecNode).name;
    if (names && typeof name === 'string' && name) {
      const first = names.get(name);
      if (first !== undefined) errors.push(`${at}: step name "${name}" is already used by ${first}`);
      else names.set(name, at);
    }
    onPath.add(node);
    for (const child of childrenOf(node as SpecNode)) visit(child.node, `${at}.${child.at}`, depth + 1);
    onPath.delete(node);
  };
  visit(root, where, 1);
  return walkable;
}

/** What a node's schema cannot say: a name or tool that is only whitespace, both `args` and `inputMapping`. */
function meaningProblems(node: SpecNode, at: string, form: SchemaForm): string[] {
  const out: string[] = [];
  if (isBlank(node.name)) out.push(`${at}.name must not be blank (it is only whitespace)`);
  if (node.combinator === undefined) {
    if (form === 'spec' && isBlank(node.tool)) out.push(`${at}.tool must name a tool (it is only whitespace)`);
    if (form === 'spec' && node.args !== undefined && node.inputMapping !== undefined) {
      out.push(`${at} has both args and inputMapping: keep one (they mean the same: the step's arguments)`);
    }
  }
  return out;
}

/** A non-empty string of whitespace only (an empty one is the schema's to refuse). */
function isBlank(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0 && value.trim() === '';
}

/**
 * Check a whole spec's structure: every problem (none when it is well formed), and whether its
 * steps can be walked at all (so compiled, to find the problems of meaning too).
 */
export function checkSpecStructure(spec: unknown): { errors: string[]; walkable: boolean } {
  const errors: string[] = [];
  if (!isRecord(spec)) return { errors: ['the spec must be an object'], walkable: false };
  for (const key of Object.keys(spec)) {
    if (!['mode', 'steps', 'output', 'outputSchema', 'schedule'].includes(key)) errors.push(`the spec has an unknown field "${key}"`);
  }
  if (spec.mode !== undefined && spec.mode !== 'compose') errors.push('mode must be "compose"');
  if (spec.outputSchema !== undefined && !isRecord(spec.outputSchema)) errors.push('outputSchema must be an object');
  if (spec.schedule !== undefined && spec.schedule !== 'sequential' && spec.schedule !== 'auto') errors.push('schedule must be "sequential" or "auto"');
  if (!Array.isArray(spec.steps) || spec.steps.length === 0) {
    errors.push('steps must be a non-empty array');
    return { errors, walkable: false };
  }
  const names = new Map<string, string>();
  let walkable = true;
  spec.steps.forEach((step, i) => {
    if (!checkNodeTree(step, `steps[${i}]`, 'spec', errors, names)) walkable = false;
  });
  return { errors, walkable };
}
