/** The fields every node may carry: `when`, `retry`, `onError`, and `name` (its output by name). */
import type { NodeCommon } from '../spec/types.js';
import { compileAt, type CompileEnv, type NodeSite } from './compile-env.js';
import type { NodeOutcome, NodePlan } from './run-state.js';

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
      if (condition.accessor(scope)) return inner(state, scope);
      state.trace.push({ step: label, ok: true, skipped: true });
      return Promise.resolve({ ok: true, output: null });
    };
  }
  const name = node.name;
  if (name !== undefined) {
    const inner = wrapped;
    wrapped = async (state, scope) => {
      const outcome = await inner(state, scope);
      if (outcome.ok) scope.named.set(name, outcome.output);
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
      outcome = await plan(state, scope);
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
    return { ok: true, output: null };
  };
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
