/**
 * Flows: a gate with `flows` judges a call by where its arguments came from, not only by its tool.
 * A side-effecting call whose arguments (or whatever decided that it is made) untrusted data
 * steers, beyond what the host's policy for the tool allows, is asked about (the approval stage
 * asks the person, showing where each argument came from) or refused (`flow_untrusted`). A pure
 * call is never refused for its inputs. A call into a nested door hands its arguments' labels to
 * that door, as the labels of its input.
 *
 * Arguments a door did not label (a host's own `gate.run`, a call a host-made gate passed on) are
 * labelled as soundly as the gate can: by the labels a call handed with the same object, else by
 * everything the run has read so far, else, for a call from outside any run, by the caller's session.
 */
import { failure } from '../../codes.js';
import { TRUSTED } from '../../flows/label.js';
import type { GateFlows } from '../../flows/gate-flows.js';
import { argsLabels, handedInRun, labelArgs, readInRun } from '../../flows/run-flow.js';
import type { ITool, ToolExecutionResult } from '../../tool.js';
import type { GateCall } from '../call-record.js';

/**
 * The stage: nothing to judge without `flows`; else the call's verdict. A door's call comes
 * labelled, and a pure tool is never refused for its inputs: that common call costs a few
 * tests here, and only a side-effecting call is judged.
 */
export function checkFlows(call: GateCall): ToolExecutionResult | undefined {
  const flows = call.settings!.flows;
  if (flows === undefined) return undefined;
  if (call.argLabels === undefined || call.control === undefined) labelCall(call, flows);
  const tool = call.tool!;
  // A nested door reads its input's labels by the object it is given.
  if (tool.composition === true) {
    labelArgs(call.args, call.argLabels!);
    return undefined;
  }
  return tool.hasSideEffects === false ? undefined : judge(call, flows, tool);
}

/** Label what the call's door did not: its arguments, and what decided it is made. */
function labelCall(call: GateCall, flows: GateFlows): void {
  const frame = call.frame;
  call.argLabels ??= frame === undefined ? (argsLabels(call.args) ?? flows.argumentsOf(call.context)) : handedInRun(call.args, frame.flow);
  call.control ??= frame === undefined ? TRUSTED : readInRun(frame.flow);
}

/** The verdict on a call of side-effecting `tool` that is no door. */
function judge(call: GateCall, flows: GateFlows, tool: ITool): ToolExecutionResult | undefined {
  const verdict = flows.decide(tool, call.args, call.argLabels!, call.control!, call.step);
  call.provenance = verdict.provenance;
  if (verdict.decision === 'allow') return undefined;
  if (verdict.decision === 'ask' && call.settings!.approvals !== undefined) {
    call.flowAsk = true;
    return undefined;
  }
  return failure(
    'flow_untrusted',
    `Tool "${tool.name}" was not called: ${verdict.reason ?? 'untrusted data steers it'}${verdict.decision === 'ask' ? ', and no person can be asked' : ''}. Call it with arguments from the user or from trusted tools, or ask the user.`,
    { tool: tool.name, step: call.step, provenance: verdict.provenance, control: verdict.control, reason: verdict.reason },
  );
}
