/**
 * Host gate: a gate object the host made itself (a wrapper around one `createStepGate` made, or a
 * gate of its own) runs the rest of a door's call through its own `run`, so whatever it checks
 * there holds. Whatever it answers becomes a result with a code: it may throw, reject, or answer
 * something that is not a result, and its failures may carry no code.
 */
import { failure } from '../../codes.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../tool.js';
import { Later, type GateCall } from '../call-record.js';
import { messageOf } from '../message-of.js';
import type { GateRunOptions, StepGate } from '../options.js';

/** The stage: a call through a gate `createStepGate` did not make is handed to its `run`. */
export function handToHostGate(call: GateCall): Later | undefined {
  return call.settings !== undefined ? undefined : handOver(call);
}

function handOver(call: GateCall): Later {
  call.answered = 'host';
  const later = new Later();
  const tool = call.tool!;
  void runThroughGate(call.door!.gate, tool, call.args, call.context, call.signal, { step: call.step, timeoutMs: call.timeoutMs }).then((result) => later.settle(result));
  return later;
}

/**
 * `gate.run`, for any gate: a host-made gate may throw, reject or answer something that is not a
 * result, and its failures may carry no code. Each becomes a result with a code (`step_threw`,
 * `step_bad_result`, `step_failed` for a failure without one, its own fields kept), so every door
 * keeps its promise of a `details.code` on every failure, whatever gate it was given.
 */
export async function runThroughGate(
  gate: StepGate,
  tool: ITool,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  signal: AbortSignal | undefined,
  options: GateRunOptions | undefined,
): Promise<ToolExecutionResult> {
  const step = options?.step ?? tool.name;
  let answer: unknown;
  try {
    answer = await gate.run(tool, args, context, signal, options);
  } catch (error) {
    return failure('step_threw', `The gate failed running tool "${tool.name}": ${messageOf(error)}`, { tool: tool.name, step });
  }
  return gateResult(answer, tool, step);
}

/** What a gate answered, as a result with a code on every failure; see {@link runThroughGate}. */
export function gateResult(answer: unknown, tool: ITool, step: string): ToolExecutionResult {
  try {
    const result = answer as ToolExecutionResult;
    if (typeof answer !== 'object' || answer === null || typeof result.success !== 'boolean') {
      return failure('step_bad_result', `The gate answered something that is not a tool result for tool "${tool.name}".`, { tool: tool.name, step });
    }
    if (result.success) return result;
    const details = result.details;
    if (typeof details?.code === 'string') return result;
    return {
      ...result,
      error: typeof result.error === 'string' && result.error ? result.error : `Tool "${tool.name}" failed.`,
      details: { ...details, code: 'step_failed', tool: tool.name, step },
    };
  } catch {
    return failure('step_bad_result', `The gate answered something unreadable for tool "${tool.name}".`, { tool: tool.name, step });
  }
}
