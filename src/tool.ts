/**
 * The tool model: the shapes every orchestrator already speaks. A composite built here is an
 * {@link ITool} like any other, so a host registers it without knowing it is a composition.
 */

import type { ToolEvent } from './tool-events.js';
import type { Label } from './flows/label.js';

/**
 * A JSON Schema object, as published in a tool's `inputSchema` and `outputSchema`.
 *
 * @category Tools and results
 */
export type JSONSchemaObject = Record<string, unknown>;

/**
 * The context a host passes to a tool.
 *
 * It is an open object: every field a host sets survives unchanged into every step a composition
 * runs.
 *
 * @category Tools and results
 */
export interface ToolExecutionContext {
  /**
   * Per-session data, passed through every door. The `sessionData` a door's steps get is a copy
   * with `emergentDepth` (how deep they are nested) and `compositionPath` (the compositions they
   * are inside) for them to read; the run's own count of these, and its budget, stay out of reach,
   * so what a step writes here changes neither. A host may set `emergentDepth` on a call it makes
   * to start counting from there.
   */
  sessionData?: Record<string, unknown>;
  /** Aborts the run: no step starts after it fires. */
  signal?: AbortSignal;
  /**
   * Told each call through the gate under this context as it starts and ends, through every
   * nested door (progress displays, logs). A listener that throws is ignored.
   */
  onEvent?: (event: ToolEvent) => void;
  /**
   * A dry run, asked for by the host (it is not an argument, so a model cannot ask for one). At
   * every door (a composite, run_pipeline, compose, run_js) pure calls run for real, but no
   * side-effecting call, composition or undo is made: each is listed `wouldRun` in the effects
   * ledger with its arguments, and its output is taken from `stepOutputs` (see {@link DryRun}).
   */
  dryRun?: DryRun;
  /**
   * Set by the gate on a call of a run that may pause (its gate has an approval hook): the run's id
   * and the call's position in it (`run_...:3`), the same in the first run and in every resumption
   * of it. A side-effecting tool that can deduplicate (a payment API's idempotency key, a unique
   * constraint) passes it on, so that a call the journal could not record the end of is never done twice.
   */
  idempotencyKey?: string;
  /**
   * The host's name for the run a door starts with this context, when the door's gate can pause:
   * the run's id is derived from it, so every call's `idempotencyKey` is the same in any process
   * that runs the same work again (a durable engine's workflow id, recovered after a crash). Name
   * one run only. Default: a random id per run. A nested door's run is its caller's; it reads none.
   */
  runName?: string;
  /**
   * What the host knows of where the arguments a caller gives a door with this context came from,
   * for a gate with `flows`: `'trusted'` for a caller that never saw a tool's output (a planner),
   * `'untrusted'` for one that did, whatever the session's label says; or their label itself, as
   * a gate's session label read it earlier (kept with a durable run, so a recovery in another
   * process judges the run as the first did). A label that is not well formed reads as untrusted.
   */
  flows?: { arguments?: 'trusted' | 'untrusted' | Label };
  /**
   * Any other field the host needs; passed through unchanged. Typed `any`, not `unknown`, so that
   * an orchestrator's own context interface (agentos's, say, which has no index signature) is
   * accepted where this one is: TypeScript lets an interface meet an open index signature only
   * when that signature is `any`. Narrow a field before using it.
   */
  [key: string]: any;
}

/**
 * How a side-effecting call that was started ended.
 *
 * It is `ran` (it succeeded), `failed` (it returned a
 * failure or threw: it may still have changed something), `timed_out` (it did not settle in time
 * and may still be running), `unknown` (its end was not observed: the run ended first, or the
 * tool returned something that is not a result).
 *
 * @category Tools and results
 */
export type EffectOutcome = 'ran' | 'failed' | 'timed_out' | 'unknown';

/**
 * One side-effecting call in a run's effects ledger.
 *
 * It is either a call that was started
 * (`ran: true`, with its {@link EffectRecord.outcome}) or, in a dry run, one that would have run
 * (`wouldRun: true`). Every attempt that may have had an effect is listed, retries included.
 *
 * @category Tools and results
 */
export interface EffectRecord {
  /** The step's name (or its position, when unnamed). */
  step: string;
  /** The tool the step called. */
  tool: string;
  /** The tool was started (whatever its outcome). */
  ran?: true;
  /** How the started call ended; present whenever `ran` is. */
  outcome?: EffectOutcome;
  /** Dry run: the step was not run; it would have run with {@link EffectRecord.args}. */
  wouldRun?: true;
  /** The resolved arguments (dry runs only). */
  args?: unknown;
  /** The tool that would have run is itself a composition. */
  nested?: true;
}

/**
 * The `details` of a result: a `code` on every refusal or failure, and whatever explains it.
 *
 * @category Tools and results
 */
export interface ToolResultDetails {
  /** A code from {@link ErrorCode} (or, for a host tool's own failure, the tool's code). */
  code?: string;
  /** Any further explanation. */
  [key: string]: unknown;
}

/**
 * What every tool call returns.
 *
 * Errors are data: a refusal or failure is `success: false` with
 * a message in `error` and a `code` in `details`; nothing is thrown across the boundary.
 *
 * @category Tools and results
 */
export interface ToolExecutionResult<O = unknown> {
  /** Whether the call did what it was asked. */
  success: boolean;
  /** The output, on success. */
  output?: O;
  /** A human-readable message, on failure. */
  error?: string;
  /** Machine-readable details; `details.code` on every refusal or failure. */
  details?: ToolResultDetails;
  /** The side-effecting steps that ran (or would have, in a dry run), in order. */
  effects?: EffectRecord[];
}

/**
 * A tool, in the shape common orchestrators register.
 *
 * `hasSideEffects` is a declaration the chainability rule relies on: `false` means pure,
 * `true` means it changes something, absent means undeclared (and never chained).
 *
 * @category Tools and results
 */
export interface ITool<I = Record<string, unknown>, O = unknown> {
  /** A stable identifier. */
  id: string;
  /** The name a model calls it by. */
  name: string;
  /** A name for people. */
  displayName: string;
  /** What it does, for the model. */
  description: string;
  /** The JSON Schema of its arguments. */
  inputSchema: JSONSchemaObject;
  /**
   * Another form of `inputSchema` the tool takes too, for clients whose strict mode cannot take
   * `inputSchema` (OpenAI's: every object closed, every property required, an optional one
   * nullable): its open parts (any tool's arguments, a tree of nodes) are JSON text, and `null`
   * stands for a field left out. Absent when `inputSchema` has a strict form of its own.
   */
  strictInputSchema?: JSONSchemaObject;
  /** The JSON Schema of its output, when known. */
  outputSchema?: JSONSchemaObject;
  /** `false`: pure; `true`: has side effects; absent: undeclared. */
  hasSideEffects?: boolean;
  /** The tool needs its own moment with a person or the host; refused inside scripts. */
  interactive?: boolean;
  /** The tool is itself a composition (dry runs do not run it; they take its output as given). */
  composition?: boolean;
  /**
   * For a composition whose calls are fixed (a built composite): the names of every tool its
   * steps may call, compensations included. `validate` and `build` follow them to find a cycle
   * (a composite that reaches itself through others) before anything runs. Absent for a tool
   * whose calls are chosen at run time (run_pipeline, compose, run_js) or that calls none.
   */
  stepTools?: readonly string[];
  /**
   * Its output is trusted (a gate with `flows` treats every other tool's output as untrusted): the
   * host's own data, never text a third party wrote. Its output still carries the labels of the
   * arguments it was called with.
   */
  trustedOutput?: boolean;
  /**
   * Parts of its trusted output that are not trusted, as dotted paths with `*` for every item or
   * field (`['*.subject']`: each transaction's subject, which its sender wrote).
   */
  untrustedFields?: readonly string[];
  /** Who may read its output (absent: anyone); a policy may refuse sending it to anyone else. */
  readers?: readonly string[];
  /** Run the tool. Should resolve to a result; the gate turns a throw into a failure result. */
  execute(args: I, context: ToolExecutionContext): Promise<ToolExecutionResult<O>>;
}

/**
 * What a dry run is given: the outputs the calls it does not make answer with.
 *
 * @category Build composites
 */
export interface DryRun {
  /**
   * The output each call that is not made answers with, by its step's name or place (a
   * run_pipeline step's id; a compose node's place, such as `tree.calls.save`). A composite,
   * run_pipeline or compose call without one is refused (`dry_run_needs_output`); a run_js call
   * reads `call N` (its number in the run), then the tool's name, else gets the text
   * `dry run: "<tool>" was not run`.
   */
  stepOutputs?: Record<string, unknown>;
}

/**
 * A host's tool lookup by name.
 *
 * @category Tools and results
 */
export type ToolResolver = (name: string) => ITool | undefined;
