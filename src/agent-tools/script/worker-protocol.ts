/**
 * The messages between the host and a sandbox worker. The worker only runs QuickJS; everything
 * the gate decides stays on the host. Only plain data crosses (structured clone), plus one
 * shared cell for the time limit.
 *
 * A run, in order: the host sends `run`; the worker answers `started` once its QuickJS instance
 * is ready (the run's clock starts there), then one `call` per `callTool`, each answered by the
 * host with `answer`; the worker ends with `done`. Messages in one direction arrive in the order
 * they were sent, which is what makes reusing a worker safe (see `sandbox-worker.ts`).
 */
import type { ScriptCallResult } from './call-result.js';
import type { SandboxOutcome } from './sandbox.js';

/** Host to worker: run one script. */
export interface RunMessage {
  type: 'run';
  /** The script: the body of an async function. */
  code: string;
  /** The bounds the worker applies itself. */
  limits: {
    /** The heap limit, in bytes. */
    memoryLimitBytes: number;
    /** The longest answer, in characters. */
    maxReturnChars: number;
  };
  /**
   * One `Int32Array` cell: the run's time limit in milliseconds from `started`. The host writes
   * it (first the limit, then a stretched one when a slow tool is called) and the worker reads
   * it on every check, even while the script spins and the worker cannot take messages.
   */
  timeLimit: SharedArrayBuffer;
}

/** Host to worker: the answer to one `call`. */
export interface AnswerMessage {
  type: 'answer';
  /** The call's `id`. */
  id: number;
  /** What the script's `callTool` resolves to. */
  result: ScriptCallResult;
}

/** Everything the host sends. */
export type ToWorker = RunMessage | AnswerMessage;

/** Worker to host: the QuickJS instance is ready and the script starts now. */
export interface StartedMessage {
  type: 'started';
  /** `Date.now()` in the worker when the script started; the time limit counts from here. */
  at: number;
}

/** Worker to host: the script called `callTool`. */
export interface CallMessage {
  type: 'call';
  /** The call's number in the run: 1, 2, ... in the order the script made them. */
  id: number;
  /** The tool's name. */
  name: string;
  /** The arguments; `null` when the script passed something that is not a plain JSON object. */
  args: Record<string, unknown> | null;
}

/** Worker to host: the run ended. */
export interface DoneMessage {
  type: 'done';
  /** How it ended. */
  outcome: SandboxOutcome | { kind: 'unavailable'; message: string };
  /** The calls whose answers the script never received. */
  abandoned: { index: number; name: string }[];
  /** The worker's QuickJS failed on the host side; the host replaces this worker. */
  broken: boolean;
}

/** Everything the worker sends. */
export type FromWorker = StartedMessage | CallMessage | DoneMessage;
