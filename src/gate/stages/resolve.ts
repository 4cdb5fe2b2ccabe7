/**
 * Resolve: the first stage. The name a door's call used, to the instance the host's registry
 * holds now: a tool is replaced by name, so it is looked up at every call. A plan whose host gives
 * a registry version reuses the tools its check resolved while the version holds. The instance
 * found here is the one every later stage checks and the run stage runs.
 */
import type { GateCall } from '../call-record.js';

/** The stage: find the call's tool (absent when the name resolves to nothing; the next stage refuses it). */
export function resolveTool(call: GateCall): undefined {
  const door = call.door!;
  const site = call.site;
  const known = door.resolved;
  call.tool = site !== undefined && known !== undefined && door.version!() === known.version ? known.bySlot[site.slot] : door.gate.resolve(call.name);
  return undefined;
}
