/**
 * Trace: whoever watches the run (the context's listener, the gate's tracer) hears the call start,
 * just before its tool runs; its end is told when the call ends (`endCall`). A call nothing
 * watches pays for one check.
 */
import type { Provenance } from '../../flows/options.js';
import { provenanceOf } from '../../flows/gate-flows.js';
import type { GateCall } from '../call-record.js';
import { observe, observedStart } from '../events.js';

/** The stage: start the call's observation, when anything watches it. */
export function traceStart(call: GateCall): undefined {
  if (call.context.onEvent !== undefined || call.frame?.tracer !== undefined) traceOf(call);
  return undefined;
}

function traceOf(call: GateCall): void {
  const observed = observe(call.context, call.frame);
  if (observed === undefined) return;
  call.observed = observed;
  const tool = call.tool!;
  observedStart(observed, tool.name, tool, call.step, call.settings?.flows === undefined ? undefined : () => provenanceNow(call));
}

/** Where each argument came from: as the flows stage found it, else from the arguments' labels (a pure call's). */
function provenanceNow(call: GateCall): Provenance | undefined {
  if (call.provenance !== undefined) return call.provenance;
  return call.argLabels === undefined ? undefined : provenanceOf(call.args, call.argLabels);
}
