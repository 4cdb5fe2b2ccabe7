/** `validate`: the structure (every node against its schema), then the meaning (references). */
import { compilePlan, type PlanOptions } from '../engine/plan.js';
import type { Plan } from '../engine/plan.js';
import type { ComposableToolSpec } from './types.js';
import { checkSpecStructure } from './validate-structure.js';

/** What `ComposableToolBuilder.validate` answers. */
export interface ValidationResult {
  /** Whether the spec may be built and run. */
  valid: boolean;
  /** Every problem, one message each, naming the node (and the expression, for references). */
  errors?: string[];
}

/** A checked and compiled spec, or every problem with it. */
export type CheckedSpec = { ok: true; plan: Plan } | { ok: false; errors: string[] };

// A spec is compiled once; a later run of the same object reuses the plan.
const compiled = new WeakMap<object, Map<string, CheckedSpec>>();

/**
 * Check a spec and compile it, once per spec object and options: the structure first (every
 * problem listed), then the references as the plan compiles them. Treat a spec as immutable
 * once it has been checked.
 */
export function checkAndCompile(spec: unknown, options: Required<Pick<PlanOptions, 'strict' | 'stepTimeoutMs'>>): CheckedSpec {
  const key = `${options.strict}:${options.stepTimeoutMs}`;
  const cacheable = typeof spec === 'object' && spec !== null;
  const cached = cacheable ? compiled.get(spec)?.get(key) : undefined;
  if (cached) return cached;
  const structural = checkSpecStructure(spec);
  let checked: CheckedSpec;
  if (structural.length) checked = { ok: false, errors: structural };
  else {
    const plan = compilePlan(spec as ComposableToolSpec, options);
    checked = plan.errors.length ? { ok: false, errors: plan.errors } : { ok: true, plan };
  }
  if (cacheable) {
    let byKey = compiled.get(spec);
    if (!byKey) compiled.set(spec, (byKey = new Map()));
    byKey.set(key, checked);
  }
  return checked;
}
