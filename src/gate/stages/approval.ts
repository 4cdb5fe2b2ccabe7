/**
 * Approval: a person is asked about every side-effecting call that could still run (one prompt
 * per effect: a composition is not asked about, each side-effecting call inside it is). They
 * answer yes, no, or later: then the run pauses at this call (it does not run) and its door
 * answers `approval_pending` with a token to resume it; outside a run that can pause there is
 * nothing to resume, and the call is refused. A call asked about is counted against the budget
 * first, so a model cannot put questions to a person without end.
 */
import { failure } from '../../codes.js';
import { waitingResult } from '../../runs/run-record.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import type { DoorKind } from '../../tool-events.js';
import { Later, type GateCall, type Verdict } from '../call-record.js';
import type { ApprovalCaller, ApprovalDecision, ApprovalPending, ApprovalProvider } from '../host-hooks.js';
import { messageOf } from '../message-of.js';
import { frameOf } from '../run-frame.js';
import { shown } from '../../flows/gate-flows.js';
import { aborted, countBeforeAsking } from './budget.js';

/** The stage: nothing to ask, or the person's answer (later). */
export function askApproval(call: GateCall): Verdict {
  const approvals = call.settings!.approvals;
  // The test a gate with no approval hook pays; the rest is kept out of line.
  return approvals === undefined ? undefined : approvalOf(call, approvals);
}

function approvalOf(call: GateCall, approvals: ApprovalProvider): Verdict {
  const tool = call.tool!;
  if (tool.composition === true || !asksAbout(call, tool)) return undefined;
  // No one is asked about a call that could not run anyway.
  const abort = call.signal ?? call.context.signal;
  const cannot = countBeforeAsking(call, abort);
  if (cannot) return cannot;
  // A person approved it already, when the run paused here: they are not asked again.
  if (call.approved) return undefined;
  const later = new Later();
  void asked(call, tool, approvals, abort).then((verdict) => later.settle(verdict));
  return later;
}

/**
 * Whether a person is asked about the call: every side-effecting call; with `flows`, only one
 * untrusted data steers (the flows stage says so), unless the host asks about every effect.
 */
function asksAbout(call: GateCall, tool: ITool): boolean {
  const flows = call.settings!.flows;
  if (flows === undefined) return tool.hasSideEffects === true;
  return call.flowAsk || (flows.asksEveryEffect && tool.hasSideEffects === true);
}

/** What a person answering `{ pending: true }` reads as, until the stage turns it into a pause. */
const PENDING: unique symbol = Symbol('toolweave.pending');

/** Ask the hook about `call`: `undefined` when approved, else how the call ends. */
async function asked(call: GateCall, tool: ITool, approvals: ApprovalProvider, abort: AbortSignal | undefined): Promise<ToolExecutionResult | undefined> {
  const step = call.step;
  let refusal: ToolExecutionResult | typeof PENDING | undefined;
  try {
    const context = call.context;
    const caller = callerOf(context);
    // The hook gets the call's own signal, so a question can be withdrawn when the call is gone.
    const asking = abort === context.signal ? context : { ...context, signal: abort };
    const provenance = call.provenance;
    const flow = provenance === undefined ? {} : { provenance, ...(call.control !== undefined ? { control: shown(call.control) } : {}), untrusted: call.flowAsk };
    refusal = approvalRefusal(await approvals.requestApproval({ toolId: tool.id, toolName: tool.name, step, args: call.args, ...(caller ? { caller } : {}), ...flow }, asking), tool, step);
  } catch (error) {
    refusal = failure('approval_rejected', `The approval for tool "${tool.name}" failed: ${messageOf(error)}`, { tool: tool.name, step, reason: 'approval failed' });
  }
  // An approved call's abort is checked by the budget stage, just before it starts; a refused or
  // deferred one whose run ended meanwhile is answered as aborted (no pause for a run that ended).
  if (refusal === undefined) {
    // A person's yes, with where the arguments came from before them, declassifies them (see `endCall`).
    call.approved = true;
    return undefined;
  }
  if (abort?.aborted) return aborted(call);
  return refusal === PENDING ? waiting(call) : refusal;
}

/**
 * An approval answered `{ pending: true }`: in a run that may pause, the run stops at this call
 * (it does not run); outside one (a direct call through the gate, or a door whose run cannot
 * pause) there is nothing to resume, so the call is refused.
 */
function waiting(call: GateCall): ToolExecutionResult {
  const name = call.tool!.name;
  const run = call.journal;
  if (run !== undefined) {
    run.pause(call.journalAt, pendingOf(call, false));
    // The pause is the run's to store, not an outcome of the call's.
    call.answered = 'journal';
    return waitingResult(name, call.step, false);
  }
  return failure('approval_rejected', `The approval for tool "${name}" is pending, and this call comes from no run that can wait for it (a direct call, or a gate made without createStepGate), so the call is refused.`, {
    tool: name,
    step: call.step,
    reason: 'pending outside a run',
  });
}

/** The call as `details.pending` lists it: as the approval request had it. */
export function pendingOf(call: GateCall, unknown: boolean) {
  const caller = callerOf(call.context);
  const provenance = call.provenance;
  const flow =
    provenance === undefined ? {} : { provenance, ...(call.control !== undefined ? { control: shown(call.control) } : {}), ...(call.flowAsk ? { untrusted: true as const } : {}) };
  return { tool: call.tool!.name, step: call.step, args: call.args, ...(caller ? { caller } : {}), ...flow, ...(unknown ? { unknown: true as const } : {}) };
}

/** What a model chose at each door, of what an approval shows. */
const MODEL_CHOSEN: Record<DoorKind, ApprovalCaller['modelChosen']> = {
  composite: ['args'],
  run_pipeline: ['step', 'args'],
  compose: ['step', 'args'],
  run_js: ['intention', 'args'],
};

/** The caller of a call made with `context`, from the door's frame; `undefined` for a direct call. */
function callerOf(context: ToolExecutionContext): ApprovalCaller | undefined {
  const frame = frameOf(context);
  if (!frame?.door) return undefined;
  const door = frame.door;
  return {
    door: door.kind,
    ...(door.name !== undefined ? { composite: door.name } : {}),
    // The frame's path: what a tool wrote in `sessionData` does not reach an approval.
    path: frame.path.filter((p): p is string => typeof p === 'string'),
    ...(door.intention !== undefined ? { intention: door.intention } : {}),
    modelChosen: MODEL_CHOSEN[door.kind],
  };
}

/** The refusal for an approval's answer, unless it is `{ approved: true }` exactly (or {@link PENDING} for `{ pending: true }`). */
function approvalRefusal(decision: unknown, tool: ITool, step: string): ToolExecutionResult | typeof PENDING | undefined {
  try {
    const d = decision as ApprovalDecision | undefined;
    if (typeof d === 'object' && d !== null && d.approved === true) return undefined;
    if (typeof d === 'object' && d !== null && (d as Partial<ApprovalPending>).pending === true && d.approved === undefined) return PENDING;
    if (typeof d !== 'object' || d === null || d.approved !== false) {
      return failure('approval_rejected', `The approval for tool "${tool.name}" answered something malformed (only { approved: true } approves a call), so the call is refused.`, {
        tool: tool.name,
        step,
        reason: 'malformed decision',
      });
    }
    const reason = typeof d.reason === 'string' ? d.reason : undefined;
    if (d.queueFull === true) return failure('approvals_full', reason ?? `The call to "${tool.name}" was not asked about: no more questions can wait now.`, { tool: tool.name, step, reason });
    return failure('approval_rejected', reason ?? `Approval refused for tool "${tool.name}".`, { tool: tool.name, step, reason });
  } catch (error) {
    return failure('approval_rejected', `The approval for tool "${tool.name}" answered something unreadable: ${messageOf(error)}`, { tool: tool.name, step, reason: 'malformed decision' });
  }
}
