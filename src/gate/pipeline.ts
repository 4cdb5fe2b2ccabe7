/**
 * The call pipeline: what happens to one tool call, in order, whichever door it comes through (a
 * composite's step, a run_pipeline or compose step, a script's `callTool`, a host's `gate.run`).
 * Each stage is a file of its own under `stages/`, and each answers the call the same way: go on,
 * end the call with a result, or wait (for the host's checks, a person, the journal, a place).
 *
 *   resolve -> chainable -> arguments -> dry run -> host gate -> replay -> flows -> permission
 *     -> approval -> lease -> budget -> trace -> run, then the end (`endCall`): the place goes
 *     back, the output is labelled (with `flows`), whoever watches hears the end, the journal
 *     notes the outcome
 *
 * A door's call enters at `resolve` (or at `chainable`, when the door resolved the name itself to
 * check something of the tool first); a call through `gate.run` names its tool and enters at
 * `replay`, so the host's own calls pass every check of the gate. A stage with nothing to do for
 * a call (no permission check, no approval hook, no journal) costs it one test.
 *
 * Why this order: the door's stages come first, because they say whether the call is one at all
 * (a tool that exists and may be chained here, with arguments it takes); a dry run answers before
 * anything is asked; a gate the host made runs the rest itself. Replay comes before the host's
 * checks: a call answered from the journal ran (and was checked) in the run that paused, and a
 * person who approved it is not asked again. Flows come before the host's checks, so the approval
 * hook is asked once about a call, with where its arguments came from. The budget is taken last, so a call that waits for a
 * person holds no place in flight, and the lease is looked at after the person answered.
 */
import { failure } from '../codes.js';
import { joinLabels, TRUSTED } from '../flows/label.js';
import { flatten } from '../flows/label-tree.js';
import type { ToolExecutionResult } from '../tool.js';
import { endCall, finishCall, Later, type GateCall, type Verdict } from './call-record.js';
import { messageOf } from './message-of.js';
import { askApproval } from './stages/approval.js';
import { checkArguments } from './stages/arguments.js';
import { takeBudget } from './stages/budget.js';
import { checkChain } from './stages/chainable.js';
import { answerDryRun } from './stages/dry-run.js';
import { checkFlows } from './stages/flows.js';
import { handToHostGate } from './stages/host-gate.js';
import { askPermission } from './stages/permission.js';
import { checkLease, replayFromJournal } from './stages/replay.js';
import { resolveTool } from './stages/resolve.js';
import { runTool } from './stages/run.js';
import { traceStart } from './stages/trace.js';

/**
 * The stages, in the order a call meets them: a call's `stage` is its place in this list. (A
 * `const enum`, so each stage is a number written into the code: the runner's `switch` below is
 * then one jump, not a comparison per stage.)
 */
const enum Stage {
  /** The name, to the instance the registry holds now. */
  resolve,
  /** Side effects only where the host listed them; no composition inside itself. */
  chainable,
  /** An object that matches the tool's inputSchema. */
  arguments,
  /** A dry run answers a call that would have an effect, and makes none. */
  dryRun,
  /** A gate the host made runs the rest itself, through its own `run`. */
  hostGate,
  /** In a run that may pause: the call's position, its answer from the journal in a resumption. */
  replay,
  /** Where its arguments came from: untrusted data may not steer a side effect (with `flows`). */
  flows,
  /** The host's permission check, then its checks. */
  permission,
  /** A person, for a side-effecting call: yes, no, or later (the run pauses). */
  approval,
  /** A resumption still holds its token before a side effect starts. */
  lease,
  /** Not aborted, not interactive under a script, within the calls and the places in flight. */
  budget,
  /** Whoever watches hears the start. */
  trace,
  /** The tool runs, within its timeout. */
  run,
}

/**
 * Where a call enters the pipeline: a door's call at `resolve`, or at `chainable` when the door
 * resolved the name itself (to check something of the tool first); a call through `gate.run`,
 * whose host names the tool, at the gate's own stages (`replay` on).
 */
export const ENTRY = { resolve: Stage.resolve, chainable: Stage.chainable, gate: Stage.replay } as const;

/**
 * Send `call` (aimed by its door) through the pipeline from stage `at`: its result when known at
 * once (the call has ended: see `endCall`), else `undefined`, and `call.deliver` gets it once.
 */
export function startCall(call: GateCall, at: number): ToolExecutionResult | undefined {
  call.stage = at;
  return proceed(call);
}

/**
 * Run the call's stages from where it stands until one ends it, or one makes it wait. A stage
 * that throws (a host object's getter: a tool whose `hasSideEffects` cannot be read) refuses the
 * call: the gate fails closed.
 */
function proceed(call: GateCall): ToolExecutionResult | undefined {
  try {
    return stages(call);
  } catch (error) {
    answeredByGate(call);
    return endCall(call, failure('permission_denied', `The host's checks failed: ${messageOf(error)}`, { tool: call.name, step: call.step }));
  }
}

/**
 * The stages, in order, from the call's own: one jump to where the call stands, then each stage
 * falls through to the next. A stage that may wait first marks where the call goes on after it.
 * The door's stages and the gate's are two functions, so that each is compiled with what it calls.
 */
function stages(call: GateCall): ToolExecutionResult | undefined {
  let verdict: Verdict;
  switch (call.stage) {
    case Stage.resolve:
      verdict = resolveTool(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.chainable:
      verdict = checkChain(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.arguments:
      verdict = checkArguments(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.dryRun:
      verdict = answerDryRun(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.hostGate:
      verdict = handToHostGate(call);
      if (verdict !== undefined) break;
    // falls through
    default:
      return gateStages(call);
  }
  return ended(call, verdict);
}

/**
 * The gate's own stages, from the call's own (`replay` on). `next` is where the call goes on when
 * the stage that answered makes it wait.
 */
function gateStages(call: GateCall): ToolExecutionResult | undefined {
  let verdict: Verdict;
  let next: Stage;
  switch (call.stage) {
    default:
      next = Stage.flows;
      verdict = replayFromJournal(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.flows:
      next = Stage.permission;
      verdict = checkFlows(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.permission:
      next = Stage.approval;
      verdict = askPermission(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.approval:
      next = Stage.lease;
      verdict = askApproval(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.lease:
      next = Stage.budget;
      verdict = checkLease(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.budget:
      next = Stage.trace;
      verdict = takeBudget(call);
      if (verdict !== undefined) break;
    // falls through
    case Stage.trace:
      traceStart(call);
    // falls through
    case Stage.run: {
      const now = runTool(call);
      return now === undefined ? undefined : endCall(call, now);
    }
  }
  call.stage = next;
  return ended(call, verdict);
}

/** A stage's verdict that is not to go on: the call ends with it, or waits for it. */
function ended(call: GateCall, verdict: ToolExecutionResult | Later): ToolExecutionResult | undefined {
  if (verdict instanceof Later) {
    verdict.then((later) => resume(call, later));
    return undefined;
  }
  answeredByGate(call);
  return endCall(call, verdict);
}

/** A stage that waited has its verdict: the call ends with it, or goes on; its result is delivered. */
function resume(call: GateCall, verdict: ToolExecutionResult | undefined): void {
  if (verdict !== undefined) {
    answeredByGate(call);
    return finishCall(call, verdict);
  }
  const now = proceed(call);
  if (now !== undefined) call.deliver(now);
}

/**
 * A stage answered the call (its tool did not run). With `flows`, an answer to a caller outside any
 * run is the gate's own words about the arguments it was given: it carries their label, not the
 * tool's, so a refused call does not mark the caller's session as having read the tool's output.
 * (Inside a run the answer keeps the tool's label: the run may read it as data.) An answer from the
 * journal is labelled already.
 */
function answeredByGate(call: GateCall): void {
  if (call.frame !== undefined || call.settings?.flows === undefined || call.outputLabel !== undefined) return;
  call.outputLabel = joinLabels(call.argLabels === undefined ? TRUSTED : flatten(call.argLabels), call.control ?? TRUSTED);
}
