/** `validate`: the structure (every node against its schema) and the meaning (references, the output schema), every problem listed. */
import { compilePlan, type PlanOptions } from '../engine/plan.js';
import type { Plan } from '../engine/plan.js';
import { schemaProblems } from './ajv.js';
import { isRecord } from './nodes.js';
import type { ComposableToolSpec } from './types.js';
import { checkSpecStructure } from './validate-structure.js';

/** What `ComposableToolBuilder.validate` answers. */
export interface ValidationResult {
  /** Whether the spec may be built and run. */
  valid: boolean;
  /** Every problem, one message each, naming the node (and the expression, for references). */
  errors?: string[];
  /**
   * What lenient mode accepts but may not be meant: an unknown `$`-expression kept as the literal
   * text, a refused JSONPath filter, a reference that reads `undefined` here. One message each,
   * naming the step and the expression; strict mode makes each of them an error.
   */
  warnings?: string[];
}

/** A checked and compiled spec: its plan when it can run, and every problem and warning. */
export type CheckedSpec = { ok: true; plan: Plan; warnings: string[] } | { ok: false; errors: string[]; warnings: string[]; plan?: Plan };

// A spec is compiled once; a later run of the same object reuses the plan.
const compiled = new WeakMap<object, Map<string, CheckedSpec>>();

/**
 * Check a spec and compile it, once per spec object and options: the structure and the meaning
 * together (a structural problem in one step never hides a reference problem in another), and
 * the output schema. Treat a spec as immutable once it has been checked.
 */
export function checkAndCompile(spec: unknown, options: Required<Pick<PlanOptions, 'strict' | 'stepTimeoutMs'>>): CheckedSpec {
  const key = `${options.strict}:${options.stepTimeoutMs}`;
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
