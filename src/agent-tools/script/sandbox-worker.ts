/**
 * The sandbox worker's entry: it runs scripts in QuickJS, one at a time, and nothing else. The
 * script's calls go to the host in batches; the host decides everything about them (the gate,
 * the effects ledger) and answers on the answer port.
 *
 * Why a worker: QuickJS checks its interrupt handler only every so many operations, and a large
 * built-in call counts as one, so a script can hold its thread for many seconds past any limit.
 * On its own thread it holds only this worker, and the host ends it with `worker.terminate()`.
 *
 * The worker keeps its QuickJS instance from run to run (a run gets a fresh runtime and context,
 * so nothing of a script survives it). The instance is replaced when a run failed inside it, when
 * a run filled its heap (its pages stay resident; a fresh instance gives them back), and when a
 * run asks for another heap limit.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { messageOf } from '../../gate/step-gate.js';
import { DEFAULT_MAX_CALL_RESULT_BYTES, DEFAULT_SCRIPT_MEMORY_BYTES } from './limits.js';
import { newSandboxInstance, type SandboxInstance } from './quickjs-module.js';
import { reserveBytesFor, runScript, type SandboxAnswer, type SandboxCall, type SandboxChannel } from './sandbox.js';
import {
  INT_CELLS,
  LIMIT_CELL,
  SIGNAL_CELL,
  STARTED_AT_OFFSET,
  STARTED_CELL,
  type AnswersMessage,
  type FromWorker,
  type RunMessage,
  type SandboxWorkerData,
} from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('sandbox-worker must be started as a worker thread');
const { wasmModule, answers, shared } = workerData as SandboxWorkerData;
const cells = new Int32Array(shared, 0, INT_CELLS);
const startedAt = new Float64Array(shared, STARTED_AT_OFFSET, 1);

/**
 * How long, in milliseconds, the worker watches for an answer before it blocks: long enough for a
 * quick tool's answer, short enough that a slow one costs next to nothing in spinning.
 */
const SPIN_MS = 0.2;

/** The heap an instance gets for runs with the default limits. */
const DEFAULT_HEAP_LIMIT_BYTES = DEFAULT_SCRIPT_MEMORY_BYTES + reserveBytesFor(DEFAULT_MAX_CALL_RESULT_BYTES);

let instance: SandboxInstance | undefined;

// Ready once an instance for the default limits is made: most runs use them, so the first run
// on this worker starts at once. A failure here is left to the first run, which reports it.
void newSandboxInstance(DEFAULT_HEAP_LIMIT_BYTES, wasmModule)
  .then((made) => {
    instance ??= made;
  })
  .catch(() => undefined)
  .finally(() => post({ type: 'ready' }));

function post(message: FromWorker): void {
  port?.postMessage(message);
}

// The host sends the next run only after this one's `done`, so runs never overlap.
port.on('message', (message: RunMessage) => void run(message));

async function run(message: RunMessage): Promise<void> {
  const { runId, limits } = message;
  const heapLimitBytes = limits.memoryLimitBytes + reserveBytesFor(limits.maxCallResultBytes);
  let current: SandboxInstance;
  try {
    if (!instance || instance.heapLimitBytes !== heapLimitBytes) {
      instance = undefined;
      instance = await newSandboxInstance(heapLimitBytes, wasmModule);
    }
    current = instance;
  } catch (error) {
    post({ type: 'done', runId, outcome: { kind: 'unavailable', message: messageOf(error) } });
    return;
  }
  const result = await runScript(
    current,
    {
      code: message.code,
      timeLimitMs: () => Atomics.load(cells, LIMIT_CELL),
      // Written before the script's first instruction, so the host's deadline is the worker's.
      onStart: (at) => {
        startedAt[0] = at;
        Atomics.store(cells, STARTED_CELL, runId);
      },
      ...limits,
    },
    new AnswerChannel(runId, answers),
  );
  if (result.moduleBroken || current.heap.exhausted) instance = undefined;
  const crashed = result.outcome.kind === 'crashed' && current.output.length > 0;
  post({ type: 'done', runId, outcome: result.outcome, ...(crashed ? { output: [...current.output] } : {}) });
  current.output.length = 0;
}

/**
 * The worker's side of a run's channel. Calls go out as one message per batch; answers are read
 * straight off the answer port, blocking on the signal cell while there are none, so an answer
 * reaches the script without a turn of the worker's event loop (which has nothing else to do
 * during a run).
 */
class AnswerChannel implements SandboxChannel {
  constructor(
    private readonly runId: number,
    private readonly port: MessagePort,
  ) {}

  send(calls: SandboxCall[]): void {
    post({ type: 'calls', runId: this.runId, calls });
  }

  receive(timeoutMs: number): SandboxAnswer[] {
    // Read before the port is drained: an answer posted after the drain has bumped the cell
    // past this value, so the wait below returns at once instead of missing it.
    const seen = Atomics.load(cells, SIGNAL_CELL);
    const ready = this.drain();
    if (ready.length > 0) return ready;
    // A quick tool's answer comes back within tens of microseconds, and a thread blocked in
    // Atomics.wait can take far longer than that to be woken (on a virtual machine, tens of
    // microseconds more). So the cell is watched for a moment before the thread blocks on it.
    const spinUntil = performance.now() + Math.min(SPIN_MS, timeoutMs);
    while (Atomics.load(cells, SIGNAL_CELL) === seen && performance.now() < spinUntil);
    if (Atomics.load(cells, SIGNAL_CELL) === seen) Atomics.wait(cells, SIGNAL_CELL, seen, timeoutMs);
    return this.drain();
  }

  private drain(): SandboxAnswer[] {
    const ready: SandboxAnswer[] = [];
    for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
      const message = received.message as AnswersMessage;
      // Answers to an earlier run (sent before the host read its `done`) are dropped.
      if (message.runId === this.runId) for (const answer of message.answers) ready.push(answer);
    }
    return ready;
  }
}
