/**
 * What a run is given and what it gives back: the request with its bounds and its hooks into
 * the thread's clock, the channel its calls go out and its answers come in by, and every way it
 * can end. The worker hosts runs through these types and a test can with a plain function; the
 * host side (`protocol.ts`, `pooled-run.ts`) reads them too. In a file of their own, each of
 * those and each part of the run takes the types without depending on the run itself.
 */
import type { CallMode } from './boundary-codec.js';
import type { ScriptCallResult } from './call-result.js';
import type { SandboxInstance } from './quickjs-module.js';
import type { SandboxValues } from '../../runs/journal.js';

/** The part of an instance a run needs (a test can pass a leak-checking module). */
export interface SandboxModule extends Pick<SandboxInstance, 'malloc' | 'free' | 'heap'> {
  /** Where the run's runtime comes from. */
  quickjs: Pick<SandboxInstance['quickjs'], 'newRuntime'>;
}

/** One call of the script (`callTool`, `tools.<name>`, `searchTools`, `describeTools`), as the sandbox sends it out. */
export interface SandboxCall {
  /** 1 for the run's first call, 2 for the next, in the order the script made them. */
  index: number;
  /** What it asks (see {@link CallMode}). */
  mode: CallMode;
  /** The tool's name. */
  name: string;
  /** The arguments as JSON text; `null` when the script passed something that is not a plain JSON object. */
  args: string | null;
  /** The call site of an instrumented script that made it (see `script-instrument.ts`); absent for any other call. */
  site?: number;
}

/** The answer to one call, as the sandbox takes it in. */
export interface SandboxAnswer {
  /** The call's index. */
  index: number;
  /** What the script's `callTool` resolves to. */
  result: ScriptCallResult;
}

/**
 * How a run talks to whoever makes its calls: calls go out in batches, answers come back. In a
 * worker both sides are another thread; in a test they can be a plain async function.
 */
export interface SandboxChannel {
  /**
   * Hand calls out (those the script made since the last batch, in order), with the values the
   * script drew since the last batch when its values are recorded (see {@link SandboxRequest.values}),
   * and `bounded` when the sandbox answered a call itself since the last batch because of a bound
   * on the run's arguments (what it answered depends on the other calls' arguments, which the host
   * must know to label what follows).
   */
  send(calls: SandboxCall[], drawn?: SandboxValues, bounded?: boolean): void;
  /** The answers that arrived, waiting at most `timeoutMs` for the first when none has. */
  receive(timeoutMs: number): SandboxAnswer[] | Promise<SandboxAnswer[]>;
  /**
   * Called when the run still has work (promise jobs) but has done a turn's worth: a promise
   * that settles once other runs that wait for the thread have had it, or `undefined` when none
   * waits (the run goes on at once).
   */
  yieldTurn?(): Promise<void> | undefined;
}

/** The bounds a run applies inside the sandbox. */
export interface SandboxLimits {
  /** The heap limit, in bytes. */
  memoryLimitBytes: number;
  /** The longest answer, in characters. */
  maxReturnChars: number;
  /** How many calls the run may make; later ones are refused here, never sent. */
  maxCalls: number;
  /** The most one call's arguments may carry, in UTF-8 bytes of JSON. */
  maxCallArgsBytes: number;
  /** The most the arguments of all the run's calls together may carry, in UTF-8 bytes of JSON. */
  maxRunArgsBytes: number;
  /** The longest call text the host sends in, in UTF-8 bytes: it sizes the host's reserve. */
  maxCallResultBytes: number;
}

/** What one run needs. */
export interface SandboxRequest extends SandboxLimits {
  /** The script: the body of an async function. */
  code: string;
  /**
   * Set for a script the host instrumented (see `script-instrument.ts`): `code` is the body of a
   * function of the site functions, one per character of `sites`.
   */
  sites?: string;
  /**
   * The time limit from the script's start, in milliseconds. Read at every check rather than once,
   * because the host stretches it (a slow tool was called) from another thread while this runs.
   */
  timeLimitMs: () => number;
  /**
   * Set for a run that may pause: its `Math.random` and clock are recorded (see `RECORDING_SOURCE`),
   * these values (a replay's) handed back first. Absent, the sandbox keeps QuickJS's own.
   */
  values?: SandboxValues;
  /** The most values of each kind recorded, those given included (with {@link SandboxRequest.values}). */
  maxValues?: number;
  /** Told the time (`Date.now()`) the script starts at, which its limit counts from. */
  onStart?: (at: number) => void;
  /**
   * Milliseconds the run was ready to go on but waited for the thread (other runs were
   * computing): not counted against its limit. Read at every check.
   */
  uncharged?: () => number;
  /**
   * Asked at every interrupt check with how long the run has been computing since its last
   * await: `'aborted'` or `'slice'` stop it (aborted by the host, or computing too long while
   * other runs wait for its thread), `undefined` lets it go on.
   */
  interrupt?: (computedMs: number) => SandboxStop | undefined;
  /**
   * Told when the run starts computing (after an await, or at its start; with its deadline as a
   * `Date.now()` time) and when it stops (at an await, or at its end).
   */
  onCompute?: (computing: boolean, deadline: number) => void;
  /**
   * Told how the run ended (and how many calls it made past `maxCalls`) as soon as it has, before
   * its runtime is disposed; `runScript` resolves after the disposal.
   */
  onOutcome?: (outcome: SandboxOutcome, callsOverLimit: number) => void;
}

/** Why a run's own checks stopped it, besides its time limit. */
export type SandboxStop = 'aborted' | 'slice';

/** How a run ended. */
export type SandboxOutcome =
  | { kind: 'returned'; text: string }
  | { kind: 'threw'; name: string; message: string; line?: number; column?: number; compile?: true }
  | { kind: 'stalled' }
  | { kind: 'timeout'; computedMs?: number }
  | { kind: 'aborted' }
  | { kind: 'memory' }
  | { kind: 'return_too_large'; length: number }
  | { kind: 'return_invalid'; reason: string }
  | { kind: 'return_pending' }
  | { kind: 'crashed'; message: string };

/** A run's outcome and the time limit it ended with (stretched, when a slow tool was called). */
export interface SandboxResult {
  /** How the run ended. */
  outcome: SandboxOutcome;
  /** The run's limit in milliseconds from the script's start, as it stood when the run ended. */
  timeLimitMs: number;
  /** The calls still in flight when the run ended, by index and tool; their answers are ignored. */
  abandoned: { index: number; name: string }[];
  /** The module failed on the host side and must be dropped. */
  moduleBroken: boolean;
  /** How many calls the script made past `maxCalls` (never made), when it returned. */
  callsOverLimit: number;
}
