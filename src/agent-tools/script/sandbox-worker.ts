/**
 * The sandbox worker's entry: it runs scripts in QuickJS, one at a time, and nothing else. Each
 * `callTool` becomes a `call` message and waits for the host's `answer`; the host decides
 * everything about the call (the gate, the limits on calls, the effects ledger).
 *
 * Why a worker: QuickJS checks its interrupt handler only every so many operations, and a large
 * built-in call counts as one, so a script can hold its thread for many seconds past any limit.
 * On its own thread it holds only this worker, and the host ends it with `worker.terminate()`.
 */
import { parentPort } from 'node:worker_threads';
import { messageOf } from '../../gate/step-gate.js';
import type { ScriptCallResult } from './call-result.js';
import { newSandboxModule } from './quickjs-module.js';
import { runScript, SANDBOX_RESERVE_BYTES } from './sandbox.js';
import type { FromWorker, RunMessage, ToWorker } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('sandbox-worker must be started as a worker thread');

/** The current run's calls waiting for an answer, by call id. */
const waiting = new Map<number, (result: ScriptCallResult) => void>();

function post(message: FromWorker): void {
  port?.postMessage(message);
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void run(message);
  } else if (message.type === 'answer') {
    // An answer for a call that is no longer waiting belongs to a run that already ended (the
    // host sent it before it read `done`); it always arrives before the next `run`, and is dropped.
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message.result);
  }
});

async function run(message: RunMessage): Promise<void> {
  let module;
  try {
    // A fresh instance per run: its own capped memory (see quickjs-module.ts), nothing shared.
    module = await newSandboxModule(message.limits.memoryLimitBytes + SANDBOX_RESERVE_BYTES);
  } catch (error) {
    post({ type: 'done', outcome: { kind: 'unavailable', message: messageOf(error) }, abandoned: [], broken: false });
    return;
  }
  const limit = new Int32Array(message.timeLimit);
  const result = await runScript(
    module,
    {
      code: message.code,
      timeLimitMs: () => Atomics.load(limit, 0),
      // Sent before the script's first instruction, so the host's deadline is the worker's.
      onStart: (at) => post({ type: 'started', at }),
      memoryLimitBytes: message.limits.memoryLimitBytes,
      maxReturnChars: message.limits.maxReturnChars,
    },
    (call) =>
      new Promise<ScriptCallResult>((resolve) => {
        waiting.set(call.index, resolve);
        post({ type: 'call', id: call.index, name: call.name, args: call.args });
      }),
  );
  waiting.clear();
  post({ type: 'done', outcome: result.outcome, abandoned: result.abandoned, broken: result.moduleBroken });
}
