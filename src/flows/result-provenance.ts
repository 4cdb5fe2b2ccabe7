/**
 * Where the data a result carries came from, for a server or host that shows it beside the result
 * (the MCP server puts it in the result's `_meta`).
 */
import { shown } from './gate-flows.js';
import type { ArgProvenance } from './options.js';
import { resultLabel } from './run-flow.js';

/**
 * Where the data a result carries came from, as the gate with `flows` labelled it.
 *
 * Trusted or not, and the calls it came from. Known for a result a gate with `flows` answered to a
 * call from outside any run (`gate.run`), and for a door's result; `undefined` for any other.
 *
 * @example
 * ```ts
 * const result = await gate.run(tool, args, context);
 * const label = resultProvenance(result); // { trusted: false, sources: [{ tool: 'read_mail', step: 'read_mail' }] }
 * ```
 *
 * @category Untrusted data
 */
export function resultProvenance(result: unknown): ArgProvenance | undefined {
  const label = resultLabel(result);
  return label === undefined ? undefined : shown(label);
}
