/**
 * The label a door's gate gives, now, the arguments a caller hands the door: for a host (or a
 * durable engine) that keeps it with a run which may go on in another process, whose gate has
 * never seen the caller's session.
 */
import { gateSettings } from '../gate/settings.js';
import type { Label } from '../flows/label.js';
import { gateOfDoor } from '../runs/door-registry.js';
import type { ITool, ToolExecutionContext } from '../tool.js';

/**
 * The label `door`'s gate gives now the arguments a caller hands it with `context`, as JSON to store.
 *
 * It is the session's label, or what `context.flows` says; `undefined` when `door` is not a door,
 * or its gate does not follow labels.
 *
 * A session's label lives in the memory of the gate that saw it. A host that runs a door in
 * another process later (a durable engine's recovery, a queue's worker) stores this label when
 * the run is asked for, and passes it as `context.flows.arguments` to the run: the run is then
 * judged by what the session had seen, not by a gate that never saw it. `registerDbosDoors` does so.
 *
 * @example
 * ```ts
 * const label = argumentsLabelOf(payDoor, { sessionId });
 * await queue.add({ input, context: { sessionId, flows: label && { arguments: label } } });
 * // in the worker: payDoor.execute(job.input, job.context)
 * ```
 *
 * @category Untrusted data
 */
export function argumentsLabelOf(door: ITool, context: ToolExecutionContext): Label | undefined {
  const gate = gateOfDoor(door);
  const flows = gate === undefined ? undefined : gateSettings(gate)?.flows;
  if (flows === undefined) return undefined;
  return JSON.parse(JSON.stringify(flows.argumentsOf(context))) as Label;
}
