/**
 * `createStepGate`: the gate every call of every door passes. It keeps the host's hooks and
 * settings (see `settings.ts`) for the stages of the call pipeline (see `pipeline.ts`), and its
 * `run` sends a host's own call through the gate's part of that pipeline.
 */
import { failure } from '../codes.js';
import { GateFlows } from '../flows/gate-flows.js';
import { TRUSTED } from '../flows/label.js';
import { flatten } from '../flows/label-tree.js';
import { labelResult } from '../flows/run-flow.js';
import { createMemoryRunJournal } from '../runs/memory-journal.js';
import { DEFAULT_PAUSE_TTL_MS, DEFAULT_RESUME_LEASE_MS, type Pausing } from '../runs/pausing.js';
import { defaultObservationScope } from '../session-scope.js';
import type { ToolExecutionResult } from '../tool.js';
import { budgetLimits } from './budget.js';
import { CallbackCall } from './call-record.js';
import type { StepGate, StepGateOptions } from './options.js';
import { ENTRY, startCall } from './pipeline.js';
import { frameOf } from './run-frame.js';
import { registerGate, type GateSettings } from './settings.js';
import { ticksFor } from './watchdog.js';

/** A brand, so the builder can tell a gate from a bare execute callback. */
const GATE = Symbol.for('toolweave.StepGate');

/**
 * Whether `value` is a gate made by {@link createStepGate} (or one that says it is).
 *
 * @category The gate
 */
export function isStepGate(value: unknown): value is StepGate {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[GATE] === true;
}

/**
 * Make the gate every step passes.
 *
 * @throws RangeError when a `pauses` setting is not a positive number of milliseconds (a
 *   programming error, not a result).
 *
 * @example
 * ```ts
 * const gate = createStepGate({
 *   resolve: (name) => registry.get(name),
 *   permissionManager: { isExecutionAllowed: (tool) => ({ isAllowed: tool.name !== 'rm' }) },
 *   checks: [({ tool, context }) => ({ isAllowed: context.user !== 'guest' || tool.hasSideEffects === false })],
 *   budget: { calls: 500 },
 * });
 * ```
 *
 * @category The gate
 */
export function createStepGate(options: StepGateOptions): StepGate {
  const { resolve, approvals } = options;
  // Only a gate that asks for approvals can pause a run.
  const pausing: Pausing | undefined = approvals
    ? {
        journal: options.journal ?? createMemoryRunJournal(),
        ttlMs: positive(options.pauses?.ttlMs, DEFAULT_PAUSE_TTL_MS),
        leaseMs: positive(options.pauses?.leaseMs, DEFAULT_RESUME_LEASE_MS),
        scope: options.pauses?.scope ?? defaultObservationScope,
      }
    : undefined;
  const checks = options.checks ? [...options.checks] : [];
  // A session's label is kept under the scope its paused runs are kept under.
  const flows = options.flows ? new GateFlows(options.flows, pausing?.scope ?? options.pauses?.scope ?? defaultObservationScope) : undefined;
  const settings: GateSettings = {
    permissionManager: options.permissionManager,
    checks,
    asksPermission: options.permissionManager !== undefined || checks.length > 0,
    approvals,
    pausing,
    version: options.version,
    tracer: options.tracer,
    traceMessages: options.traceMessages === true,
    limits: budgetLimits(options.budget),
    flows,
    lookup: resolve,
  };

  const listNames = options.names;
  const gate: StepGate & { [GATE]: true } = {
    [GATE]: true,
    resolve: (name) => {
      try {
        return resolve(name);
      } catch {
        // A resolver that throws resolves nothing.
      }
    },
    ...(listNames
      ? {
          names: () => {
            try {
              return [...listNames()];
            } catch {
              return [];
            }
          },
        }
      : {}),
    ...(options.advice ? { advice: options.advice } : {}),
    run(tool, args, context, signal, runOptions) {
      // What a host's lookup answered for a name it does not know: a result, not a throw.
      if (typeof tool !== 'object' || tool === null) {
        return Promise.resolve(failure('step_missing', `No tool was given to run (got ${tool === null ? 'null' : typeof tool}): look the tool up by name, and run it only if it was found.`, runOptions?.step !== undefined ? { step: runOptions.step } : {}));
      }
      return new Promise((resolved) => {
        const ctx = context ?? {};
        // A host's own call from outside any run hands its result back to its caller: with `flows`,
        // the caller's session has seen what it carries.
        // The result keeps its label, for a server that shows it (`resultProvenance`).
        const done = flows === undefined || frameOf(ctx) !== undefined ? resolved : (result: ToolExecutionResult) => {
          const label = call.outputLabel === undefined ? TRUSTED : flatten(call.outputLabel);
          flows.handedBack(ctx, label);
          if (typeof result === 'object' && result !== null) labelResult(result, label);
          resolved(result);
        };
        const call = new CallbackCall((result) => done(result));
        const timeoutMs = runOptions?.timeoutMs;
        call.aim(tool.name, runOptions?.step ?? tool.name ?? '', timeoutMs, ticksFor(timeoutMs), args, ctx, signal, settings);
        call.tool = tool;
        call.frame = frameOf(ctx);
        // The host names the tool: the gate's own stages, from the journal on.
        const now = startCall(call, ENTRY.gate);
        if (now) done(now);
      });
    },
  };
  // Frozen, and known by identity: a copy or a changed object is driven through its own `run`.
  Object.freeze(gate);
  registerGate(gate, settings);
  return gate;
}

/** A positive option in milliseconds, or its default. */
function positive(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`A pause setting must be a positive number of milliseconds, got ${value}`);
  return value;
}

