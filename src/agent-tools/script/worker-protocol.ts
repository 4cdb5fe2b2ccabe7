/**
 * The messages and shared cells between the host and a sandbox worker. The worker only runs
 * QuickJS and the bounds it checks before a call leaves the sandbox; everything the gate decides
 * stays on the host. Only plain data crosses (structured clone), plus a few shared cells.
 *
 * A worker first says it is `ready`. A run, in order: the host sends `run`; the worker writes the script's start into the shared
 * cells (the run's clock starts there), sends the script's calls in `calls` batches, and ends
 * with `done`. The host answers calls on the worker's answer port and then bumps the signal cell:
 * the worker, waiting for answers, blocks on that cell and reads the port without going through
 * its event loop, which is what keeps a call's round trip short. Answers carry their run's id, so
 * a late answer to a run that ended is recognised and dropped.
 */
import type { MessagePort } from 'node:worker_threads';
import type { WasmModule } from './quickjs-module.js';
import type { SandboxAnswer, SandboxCall, SandboxLimits, SandboxOutcome } from './sandbox.js';

/** Index of the cell the host bumps (then notifies) after it posts answers. */
export const SIGNAL_CELL = 0;
/**
 * Index of the cell that holds the current run's time limit, in milliseconds from its script's
 * start. The host writes it (first the limit, then a stretched one when a slow tool is called)
 * and the worker reads it on every check, even while the script spins and cannot take messages.
 */
export const LIMIT_CELL = 1;
/** Index of the cell that holds the id of the last run whose script started. */
export const STARTED_CELL = 2;
/** How many `Int32` cells there are. */
export const INT_CELLS = 4;
/** The byte offset of the `Float64` cell holding the `Date.now()` time the last script started. */
export const STARTED_AT_OFFSET = INT_CELLS * Int32Array.BYTES_PER_ELEMENT;
/** The size of a worker's shared buffer. */
export const SHARED_BYTES = STARTED_AT_OFFSET + Float64Array.BYTES_PER_ELEMENT;

/** What a worker is started with. */
export interface SandboxWorkerData {
  /** The compiled QuickJS module (`undefined`: the worker compiles its own). */
  wasmModule: WasmModule | undefined;
  /** The worker's end of the answer channel. */
  answers: MessagePort;
  /** The shared cells (see the `*_CELL` constants), {@link SHARED_BYTES} long. */
  shared: SharedArrayBuffer;
}

/** Host to worker: run one script. */
export interface RunMessage {
  type: 'run';
  /** The run's id on this worker: 1, 2, ... */
  runId: number;
  /** The script: the body of an async function. */
  code: string;
  /** The bounds the worker applies itself. */
  limits: SandboxLimits;
}

/** Host to worker, on the answer port: answers to some of a run's calls. */
export interface AnswersMessage {
  /** The run the calls belong to. */
  runId: number;
  /** The answers, in the order they settled. */
  answers: SandboxAnswer[];
}

/** Worker to host: calls the script made. */
export interface CallsMessage {
  type: 'calls';
  /** The run they belong to. */
  runId: number;
  /** The calls, numbered in the order the script made them. */
  calls: SandboxCall[];
}

/** Worker to host: the run ended. */
export interface DoneMessage {
  type: 'done';
  /** The run that ended. */
  runId: number;
  /** How it ended. */
  outcome: SandboxOutcome | { kind: 'unavailable'; message: string };
  /** What the QuickJS module printed, when the run crashed (an abort says why). */
  output?: string[];
}

/** Worker to host, once: it has made its QuickJS instance and is ready for runs. */
export interface ReadyMessage {
  type: 'ready';
}

/** Everything the worker sends. */
export type FromWorker = ReadyMessage | CallsMessage | DoneMessage;
