import { refusedCall, type ScriptCallResult } from '../../../src/agent-tools/script/call-result.js';
import type { SandboxAnswer, SandboxCall, SandboxChannel } from '../../../src/agent-tools/script/run-contract.js';

/** The script tests use the shared mock tools and registry; `json` and `channelFor` are theirs. */
export { tool as mockTool, registry, delay } from '../../helpers/tools.js';

/** Parse a script's JSON output. */
export function json(output: unknown): any {
  return JSON.parse(output as string);
}

/**
 * A sandbox channel on this thread, for running `runScript` without a worker: each call is handed
 * to `handler` (its throw becomes a `step_threw` answer), and `receive` waits for the next answer.
 */
export function channelFor(handler: (call: SandboxCall) => ScriptCallResult | Promise<ScriptCallResult>): SandboxChannel {
  const ready: SandboxAnswer[] = [];
  let wake: (() => void) | undefined;
  return {
    send(calls) {
      for (const call of calls) {
        void Promise.resolve()
          .then(() => handler(call))
          .catch((error: unknown) => refusedCall('step_threw', `handler threw: ${String(error)}`))
          .then((result) => {
            ready.push({ index: call.index, result });
            wake?.();
          });
      }
    },
    receive(timeoutMs) {
      if (ready.length > 0) return ready.splice(0);
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve(ready.splice(0));
        };
        const timer = setTimeout(done, timeoutMs);
        wake = done;
      });
    },
  };
}

/** A promise the test settles by hand, for a tool that holds its call until told. */
export function latch<T = string>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { opened, open };
}
