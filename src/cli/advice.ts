/**
 * The proxy's words in refusals: a name no tool has is told which servers are not connected, and
 * why.
 */
import type { RefusalAdvice } from '../index.js';
import type { ProxyCore } from './proxy-core.js';

/** The gate's advice for the proxy's sessions. */
export function proxyAdvice(core: ProxyCore): RefusalAdvice {
  return {
    missing: (tool) => core.missingNote(tool),
  };
}
