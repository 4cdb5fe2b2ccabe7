/**
 * What a gate `createStepGate` made holds for the stages of the pipeline: the host's hooks and
 * settings. Kept off the gate object, keyed by it: a gate object a host made (a wrapper, a spread
 * copy with its own `run`) has none, so the pipeline hands its calls to that object's `run`, and
 * every check the host added there holds.
 */
import type { GateFlows } from '../flows/gate-flows.js';
import type { Pausing } from '../runs/pausing.js';
import type { ITool } from '../tool.js';
import type { BudgetLimits } from './budget.js';
import type { ApprovalProvider, GateCheck, PermissionManager } from './host-hooks.js';
import type { Tracer } from './tracing.js';

/** The settings of a gate `createStepGate` made. */
export interface GateSettings {
  /** The host's permission check, if any. */
  readonly permissionManager: PermissionManager | undefined;
  /** The host's checks, in order. */
  readonly checks: readonly GateCheck[];
  /** Whether the gate has a permission check or checks of the host's to ask. */
  readonly asksPermission: boolean;
  /** The host's approval hook, if any. */
  readonly approvals: ApprovalProvider | undefined;
  /** The journal and settings of runs that pause, when the gate has an approval hook. */
  readonly pausing: Pausing | undefined;
  /** The host's registry version, when it gave one (see `StepGateOptions.version`). */
  readonly version: (() => unknown) | undefined;
  /** The host's OpenTelemetry tracer, when it gave one. */
  readonly tracer: Tracer | undefined;
  /** Whether the spans carry failures' messages (see `StepGateOptions.traceMessages`). */
  readonly traceMessages: boolean;
  /** The budget limits of a call from outside that enters a door through this gate. */
  readonly limits: Readonly<BudgetLimits>;
  /** The rules for untrusted data, when the host gave `flows`. */
  readonly flows: GateFlows | undefined;
  /** The host's own resolver, which may throw (the gate's `resolve` turns a throw into "not found"): for reporting at build time. */
  readonly lookup: (name: string) => ITool | undefined;
}

const SETTINGS = new WeakMap<object, GateSettings>();

/** Record the settings of a gate `createStepGate` made (and froze). */
export function registerGate(gate: object, settings: GateSettings): void {
  SETTINGS.set(gate, settings);
}

/** The settings of `gate`: `undefined` unless `createStepGate` made this very object. */
export function gateSettings(gate: object): GateSettings | undefined {
  return SETTINGS.get(gate);
}
