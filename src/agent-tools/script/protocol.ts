/**
 * What crosses between the host and a sandbox thread: messages (plain data, structured clone)
 * and a few shared cells. The thread only runs QuickJS and the bounds it checks before a call
 * leaves the sandbox; everything the gate decides stays on the host.
 *
 * A thread first says it is `ready`. It then hosts many runs at once, each known by its id:
 * the host sends `run`; the thread sends the script's calls in `calls` batches and ends the run
 * with `done`. The host sends `answers` (a run's answers settled in one tick, together), `limit` (a slow
 * tool stretched a run's limit) and `abort`. Every message the host posts bumps the
 * {@link PENDING_CELL} first, so a thread busy computing one run can see, from inside QuickJS's
 * interrupt check, that others wait for it, and read its messages without its event loop.
 *
 * The thread writes which run it is computing, since when and until when into the episode cells,
 * so the host can tell a thread stuck in one long built-in call (which no check inside QuickJS
 * reaches) and stop it. Answers carry their run's id: a late answer to a run that ended is dropped.
 */
import type { MessagePort } from 'node:worker_threads';
import type { WasmModule } from './quickjs-module.js';
import type { SandboxAnswer, SandboxCall, SandboxLimits, SandboxOutcome } from './run-contract.js';
import type { SandboxValues } from '../../runs/journal.js';

/** Index of the cell counting the messages the host posted that the thread has not read yet. */
export const PENDING_CELL = 0;
/** Index of the cell holding the id of the run the thread is computing now (0: none). */
export const EPISODE_RUN_CELL = 1;
/** How many `Int32` cells there are. */
export const INT_CELLS = 2;
/** Index, in the `Float64` cells, of the `Date.now()` time the current computing episode started. */
export const EPISODE_START = 0;
/** Index, in the `Float64` cells, of the current episode's run's deadline (`Date.now()` time). */
export const EPISODE_DEADLINE = 1;
/** How many `Float64` cells there are. */
export const FLOAT_CELLS = 2;
/** The byte offset of the `Float64` cells. */
export const FLOAT_OFFSET = 8;
/** The size of a thread's shared buffer. */
export const SHARED_BYTES = FLOAT_OFFSET + FLOAT_CELLS * Float64Array.BYTES_PER_ELEMENT;

/** What a thread is started with. */
export interface SandboxWorkerData {
  /** The compiled QuickJS module (`undefined`: the thread compiles its own). */
  wasmModule: WasmModule | undefined;
  /** The thread's end of the host's channel. */
  inbox: MessagePort;
  /** The shared cells, {@link SHARED_BYTES} long. */
  shared: SharedArrayBuffer;
  /** How long a run may compute without awaiting while other runs wait for the thread, in milliseconds. */
  sliceMs: number;
  /** The heap limit of the instance the thread makes before it says it is ready (the default limits'). */
  firstHeapLimitBytes: number;
}

/** Host to thread: start one script. */
export interface RunMessage {
  type: 'run';
  /** The run's id on this thread: 1, 2, ... */
  runId: number;
  /** The script: the body of an async function. */
  code: string;
  /** Set for an instrumented script: its sites' kinds (see `SandboxRequest.sites`). */
  sites?: string;
  /** The run's time limit from its script's start, in milliseconds. */
  timeLimitMs: number;
  /** The bounds the thread applies itself. */
  limits: SandboxLimits;
  /** Set for a run that may pause: its `Math.random` and clock are recorded, these values handed back first (see `SandboxRequest.values`). */
  values?: SandboxValues;
  /** The most values of each kind recorded (with `values`). */
  maxValues?: number;
}

/** Host to thread: answers to some of a run's calls. */
export interface AnswersMessage {
  type: 'answers';
  /** The run the calls belong to. */
  runId: number;
  /** The answers, in the order they settled. */
  answers: SandboxAnswer[];
  /** When the host posted them (`Date.now()` time): a run that could not go on at once is not charged the wait. */
  postedAt: number;
}

/** Host to thread: a run's limit, stretched (a slow tool was called). Never shortens it. */
export interface LimitMessage {
  type: 'limit';
  runId: number;
  /** The new limit from the run's script's start, in milliseconds. */
  timeLimitMs: number;
}

/** Host to thread: the host ended a run (its signal fired); the thread stops it and lets it go. */
export interface AbortMessage {
  type: 'abort';
  runId: number;
}

/** Everything the host sends a thread. */
export type ToThread = RunMessage | AnswersMessage | LimitMessage | AbortMessage;

/** Thread to host: calls a run made. */
export interface CallsMessage {
  type: 'calls';
  /** The run they belong to. */
  runId: number;
  /** The calls, numbered in the order the script made them. */
  calls: SandboxCall[];
  /** Milliseconds left before the run's limit when they were sent. */
  remainingMs: number;
  /** The values the script drew since its last batch, in a run whose values are recorded. */
  drawn?: SandboxValues;
  /** The sandbox answered a call itself since the last batch, for a bound on the run's arguments (see `SandboxChannel.send`). */
  bounded?: true;
}

/** Thread to host: a run ended. */
export interface DoneMessage {
  type: 'done';
  /** The run that ended. */
  runId: number;
  /** How it ended. */
  outcome: SandboxOutcome | { kind: 'unavailable'; message: string };
  /** Its limit in milliseconds from its script's start, as it stood at the end. */
  timeLimitMs: number;
  /** What the QuickJS module printed, when the run crashed (an abort says why). */
  output?: string[];
  /** How many calls the script made past its `maxCalls` (never made), when it returned. */
  callsOverLimit?: number;
}

/** Thread to host, once: it has made its first QuickJS instance and is ready for runs. */
export interface ReadyMessage {
  type: 'ready';
}

/** Everything a thread sends. */
export type FromThread = ReadyMessage | CallsMessage | DoneMessage;
