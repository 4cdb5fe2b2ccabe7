/** The fields every node may carry: `when`, `retry`, `onError`, and `name` (its output by name). */
import type { NodeCommon } from '../spec/types.js';
import { compileAt, type CompileEnv, type NodeSite } from './compile-env.js';
import type { NodeOutcome, NodePlan } from './run-state.js';
import type { RefScope } from '../refs/scope.js';
import type { Label } from '../flows/label.js';
import { flatten, joinTree } from '../flows/label-tree.js';
import { labelIn, outcomeLabel, recordNamedLabel, underControl } from './labels.js';

/** Failures worth another try: the tool's own failures, not the host's refusals. */
const RETRYABLE = new Set(['step_failed', 'step_threw', 'step_timeout', 'step_bad_result', 'check_failed']);
/** The most tries a retry may ask for. */
export const MAX_RETRY_ATTEMPTS = 10;

/** Wrap a node's plan in its common fields; a node without them keeps its plan as it is. */
export function withCommonFields(plan: NodePlan, node: NodeCommon, env: CompileEnv, site: NodeSite, label: string): NodePlan {
  let wrapped = plan;
  if (node.retry && node.retry.attempts > 1) wrapped = withRetry(wrapped, node.retry.attempts, node.retry.backoffMs ?? 100);
  if (node.onError === 'continue') wrapped = continueOnError(wrapped);
  if (node.when !== undefined) {
    const condition = compileAt(env, node.when, site, label);
    const inner = wrapped;
    wrapped = (state, scope) => {
      const runs = condition.accessor(scope);
      if (runs && scope.labels === undefined) return inner(state, scope);
      // Whether the node runs is decided by what the condition read: its calls carry that, as control.
      const decided = labelIn(scope, condition.labels);
      if (runs) return inner(underControl(state, decided), scope).then((outcome) => withLabel(outcome, scope, decided));
      state.trace.push({ step: label, ok: true, skipped: true });
      return Promise.resolve(withLabel({ ok: true, output: null }, scope, decided));
    };
  }
  const name = node.name;
  if (name !== undefined) {
    const inner = wrapped;
    wrapped = async (state, scope) => {
      const outcome = await inner(state, scope);
      if (outcome.ok) {
        scope.named.set(name, outcome.output);
        if (scope.labels !== undefined) recordNamedLabel(scope, name, outcome.label);
      }
      return outcome;
    };
    // Only a name around a plain leaf: the leaf stays plain (the chain fast path records the name).
    if (inner === plan && plan.leaf) wrapped.leaf = plan.leaf;
  }
  return wrapped;
}

function withRetry(plan: NodePlan, attempts: number, backoffMs: number): NodePlan {
  const tries = Math.min(MAX_RETRY_ATTEMPTS, Math.floor(attempts));
  return async (state, scope) => {
    let outcome: NodeOutcome = await plan(state, scope);
    for (let attempt = 2; attempt <= tries && !outcome.ok; attempt++) {
      if (!RETRYABLE.has(outcome.failure.details?.code ?? '') || state.signal?.aborted) break;
      await sleep(backoffMs * 2 ** (attempt - 2), state.signal);
      // Another try is made because the last failed: what that failure carried decides it.
      outcome = await plan(state.flows === undefined ? state : underControl(state, flatten(outcomeLabel(outcome))), scope);
      if (outcome.ok || attempt === tries) {
        // A copy: a leaf's own success entry is shared from run to run.
        const at = state.trace.length - 1;
        if (at >= 0) state.trace[at] = { ...state.trace[at], attempts: attempt };
      }
    }
    return outcome;
  };
}

/** `onError: 'continue'`: the failure stays in the trace; the node's output is `null`. */
function continueOnError(plan: NodePlan): NodePlan {
  return async (state, scope) => {
    const outcome = await plan(state, scope);
    if (outcome.ok) return outcome;
    state.continued.push(outcome.failure);
    return outcome.label === undefined ? { ok: true, output: null } : { ok: true, output: null, label: outcome.label };
  };
}

/** `outcome` whose output also carries `decided` (it was made, or skipped, because of it), when the run follows labels. */
function withLabel(outcome: NodeOutcome, scope: RefScope, decided: Label): NodeOutcome {
  if (scope.labels === undefined) return outcome;
  return { ...outcome, label: joinTree(outcomeLabel(outcome), decided) };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
