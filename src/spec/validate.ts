/** `validate`: the structure (every node against its schema) and the meaning (references, the output schema), every problem listed. */
import { compilePlan } from '../engine/plan.js';
import type { PlanOptions } from '../engine/compile-env.js';
import type { Plan } from '../engine/plan.js';
import { schemaProblems } from './ajv.js';
import { isRecord } from './nodes.js';
import type { ComposableToolSpec } from './types.js';
import { checkSpecStructure } from './validate-structure.js';

/**
 * What `ComposableToolBuilder.validate` answers.
 *
 * @category Build composites
 */
export interface ValidationResult {
  /** Whether the spec may be built and run. */
  valid: boolean;
  /** Every problem, one message each, naming the node (and the expression, for references). */
  errors?: string[];
  /**
   * What lenient mode accepts but may not be meant: an unknown `$`-expression kept as the literal
   * text (with the closest root: `"$inptu.id"`, did you mean `$input`?), a refused JSONPath filter,
   * a reference that reads `undefined` here (`$prev` on the first step, a `$input` field the
   * inputSchema does not declare). One message each, naming the step and the expression; strict
   * mode makes each of them an error.
   */
  warnings?: string[];
}

/** A checked and compiled spec: its plan when it can run, and every problem and warning. */
export type CheckedSpec = { ok: true; plan: Plan; warnings: string[] } | { ok: false; errors: string[]; warnings: string[]; plan?: Plan };

// A spec is compiled once; a later run of the same object reuses the plan.
const compiled = new WeakMap<object, Map<string, CheckedSpec>>();
// Each inputSchema object a spec was checked against, by a number in the cache's key.
const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 0;

/** How a spec is checked: strictness, the default timeout, and the composite's inputSchema, if known. */
export type CheckOptions = Required<Pick<PlanOptions, 'strict' | 'stepTimeoutMs'>> & Pick<PlanOptions, 'inputSchema'>;

/**
 * Check a spec and compile it, once per spec object and options: the structure and the meaning
 * together (a structural problem in one step never hides a reference problem in another), and
 * the output schema; with an inputSchema, the `$input` paths against it. Treat a spec and its
 * inputSchema as immutable once they have been checked.
 */
export function checkAndCompile(spec: unknown, options: CheckOptions): CheckedSpec {
  const key = `${options.strict}:${options.stepTimeoutMs}:${schemaKey(options.inputSchema)}`;
  const cacheable = typeof spec === 'object' && spec !== null;
  const cached = cacheable ? compiled.get(spec)?.get(key) : undefined;
  if (cached) return cached;
  const structure = checkSpecStructure(spec);
  const errors = structure.errors;
  let plan: Plan | undefined;
  if (structure.walkable) {
    plan = compilePlan(spec as unknown as ComposableToolSpec, options);
    errors.push(...plan.errors);
  }
  if (isRecord(spec) && isRecord(spec.outputSchema)) errors.push(...(schemaProblems(spec.outputSchema, 'outputSchema') ?? []));
  const warnings = plan?.warnings ?? [];
  const checked: CheckedSpec = errors.length || !plan ? { ok: false, errors, warnings, ...(plan ? { plan } : {}) } : { ok: true, plan, warnings };
  if (cacheable) {
    let byKey = compiled.get(spec);
    if (!byKey) compiled.set(spec, (byKey = new Map()));
    byKey.set(key, checked);
  }
  return checked;
}

/** The inputSchema's part of the cache key: the same object always gives the same number. */
function schemaKey(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '-';
  let id = schemaIds.get(schema);
  if (id === undefined) schemaIds.set(schema, (id = nextSchemaId++));
  return String(id);
}
