/**
 * One call through the pipeline as one record: what the call is (the name, the tool, the
 * arguments, the context), where it is in the pipeline, what its stages hold for it (a place in
 * flight, a watchdog deadline, an observation, the run journal's note), and where its result goes.
 * On a chain of quick tools the closures made per call (one for the deadline, two for the
 * promise, one for the caller) cost more than the checks themselves, so a record replaces them,
 * and a caller that makes one call at a time (a sequence) reuses one record call after call.
 *
 * The end of every call is here too ({@link endCall}): the place goes back, whoever watches hears
 * the end, the journal notes the outcome. Every result the pipeline gives passes it exactly once.
 */
import { failure } from '../codes.js';
import type { Label } from '../flows/label.js';
import type { LabelTree } from '../flows/label-tree.js';
import type { StoredReads } from '../flows/observation-labels.js';
import type { Provenance } from '../flows/options.js';
import type { RunRecord } from '../runs/run-record.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { jsonTextValue } from '../results-as-text.js';
import { labelOutput, type LabelSite } from './output-label.js';
import { budgetRefusal, type CallBudget, type WaitingCall } from './budget.js';
import { observedEnd, observeRefusal, type CallObservation } from './events.js';
import type { RunFrame } from './run-frame.js';
import type { GateSettings } from './settings.js';
import type { StepGate } from './options.js';
import type { Watch } from './watchdog.js';

/** Tools resolved by name at a registry version. */
export interface ResolvedTools {
  /** The host's registry version when they were resolved. */
  version: unknown;
  /** Each tool by its place among the plan's tools (a leaf's `slot`): one array read a step. */
  bySlot: readonly (ITool | undefined)[];
}

/**
 * What the stages before the gate's own (resolve, chainable, arguments, dry run, a host's gate)
 * need of the door a call comes through. The engine's run state is one; a script run makes one.
 */
export interface CallDoor {
  /** The gate every call of the door passes (its resolver, its names, its advice). */
  readonly gate: StepGate;
  /** The host's side-effecting tools that may be chained here (a set, or the host's own list). */
  readonly sideEffectingTools: ReadonlySet<string> | readonly string[];
  /** Check each call's arguments against its tool's `inputSchema`. */
  readonly validateArgs: boolean;
  /** A dry run the host asked for: the outputs the calls it does not make answer with. */
  readonly dry: { stepOutputs: Record<string, unknown> } | undefined;
  /** The host's registry version, when its gate has one. */
  readonly version: (() => unknown) | undefined;
  /** The tools the door's check resolved, reused while the registry version holds. */
  readonly resolved: ResolvedTools | undefined;
  /** Its calls' text results that are JSON objects or arrays are read as those values (see `jsonTextValue`). */
  readonly readsJsonText?: boolean;
}

/** What a compiled step keeps for its calls: its tool's place, and its argument check, made once per tool instance. */
export interface CallSite extends LabelSite {
  /** The tool's place among the plan's tools (see {@link ResolvedTools.bySlot}). */
  readonly slot: number;
  /** Its mapping is not written as an object, so what it resolves to is checked to be one at every call. */
  readonly mayBuildNonObject: boolean;
  /** The keys of the object its mapping builds, when they are known (see `CompiledMapping.keys`). */
  readonly builtKeys?: readonly string[];
  /** The tool instance whose argument check {@link CallSite.argsCheck} holds. */
  checkedTool: ITool | undefined;
  /** That instance's argument check, made by the arguments stage (`null` until it is made). */
  argsCheck: ((args: Record<string, unknown>) => boolean) | null;
}

/**
 * Why a call ended without this gate deciding or running it: answered from the run journal, by a
 * dry run, or by a gate the host made. Such an end is neither told to whoever watches nor noted
 * in the journal again.
 */
export type AnsweredBy = 'journal' | 'dry' | 'host';

/**
 * A stage's answer that comes later (the host's checks, a person, the journal, a free place in
 * flight). The pipeline waits on it; whoever settles it may do so at once (a place given back by
 * another call starts the waiting one in the same turn, before the deadline can fire between).
 */
export class Later {
  // Declared and set in the constructor, not class fields: see GateCall.
  private declare next: ((verdict: ToolExecutionResult | undefined) => void) | undefined;
  private declare settled: boolean;
  private declare verdict: ToolExecutionResult | undefined;

  constructor() {
    this.next = undefined;
    this.settled = false;
    this.verdict = undefined;
  }

  /** Be told the verdict once it is known (at once, when it already is). */
  then(next: (verdict: ToolExecutionResult | undefined) => void): void {
    if (this.settled) next(this.verdict);
    else this.next = next;
  }

  /** The verdict is known: `undefined` to go on, or the result the call ends with. Only the first counts. */
  settle(verdict: ToolExecutionResult | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.verdict = verdict;
    const next = this.next;
    this.next = undefined;
    next?.(verdict);
  }
}

/** What a stage answers: go on (`undefined`), end the call with a result, or wait for a {@link Later}. */
export type Verdict = ToolExecutionResult | Later | undefined;

/**
 * A call through the pipeline. A door aims it ({@link GateCall.aim}) and says where the result
 * goes ({@link GateCall.deliver}); the stages fill and read the rest. A record may be aimed again
 * once its previous call has delivered, never while a call is in flight.
 */
export abstract class GateCall implements Watch {
  // The fields are declared, and set in the constructor, rather than initialised as class fields:
  // under ES2022 semantics each initialiser is a property definition, which costs about 10 ns more
  // per object in Node 20, and these records are made per call.
  /** The watchdog's deadline tick (see {@link Watch}). */
  declare expiresAt: number;
  /** The watchdog's list position; -1 while not listed (see {@link Watch}). */
  declare index: number;
  /** Whether the watchdog holds a deadline for the call in flight (see {@link Watch}). */
  declare armed: boolean;
  /**
   * Set by a caller that reuses the record call after call: it stays on the watchdog's list
   * between calls, and the caller releases it (`release` in the watchdog) when it is done.
   */
  declare reused: boolean;
  /** The name the call used. */
  declare name: string;
  /** The step's name (or position), for approvals and error details. */
  declare step: string;
  /** The tool: found by the resolve stage, or given; the instance that is checked is the one that runs. */
  declare tool: ITool | undefined;
  /** The arguments it runs with. */
  declare args: Record<string, unknown>;
  /** The context it runs with. */
  declare context: ToolExecutionContext;
  /** The call's abort signal, when it has one of its own (else the context's). */
  declare signal: AbortSignal | undefined;
  /** Fail with `step_timeout` when the tool does not settle within this many milliseconds. */
  declare timeoutMs: number | undefined;
  /** The same timeout in watchdog ticks (see `ticksFor`); 0 when the call has none. */
  declare ticks: number;
  /** The next stage the call meets (see `pipeline.ts`): where it goes on after a stage that waited. */
  declare stage: number;
  /** The door's settings, for the stages before the gate's own; absent for a call through `gate.run`. */
  declare door: CallDoor | undefined;
  /** The compiled step that makes the call, when an engine plan does. */
  declare site: CallSite | undefined;
  /** The settings of the gate `createStepGate` made; absent for a gate a host made (its `run` does the rest). */
  declare settings: GateSettings | undefined;
  /** The frame of the run that makes the call (its budget, its door, its journal), if any. */
  declare frame: RunFrame | undefined;
  /** Set when the call ended without this gate deciding or running it (see {@link AnsweredBy}). */
  declare answered: AnsweredBy | undefined;
  /** A person approved the call already, when its run paused here: they are not asked again. */
  declare approved: boolean;
  /** The call was counted against the budget before a person was asked about it. */
  declare counted: boolean;
  /** The record of the run that may pause, which notes the call's outcome; set by the replay stage. */
  declare journal: RunRecord | undefined;
  /** The call's position in that run (see `RunCallRecord.position`). */
  declare journalAt: string;
  /** Set by the run stage: whether the watchdog holds this call, so the tool and the deadline race. */
  declare timed: boolean;
  /** The run stage's callback for the tool's promise, made on first use and kept for the next call. */
  declare onResult: ((result: unknown) => void) | undefined;
  /** The run stage's callback for the tool's rejection, made on first use and kept for the next call. */
  declare onError: ((error: unknown) => void) | undefined;
  /** The budget whose in-flight place the call holds while its tool runs, if any. */
  declare slot: CallBudget | undefined;
  /** While the call waits for an in-flight place: what it starts with once it has one. */
  declare wait: WaitingCall | undefined;
  /** Who is told of the call in flight's start and end, when anything is (a listener, a tracer). */
  declare observed: CallObservation | undefined;
  /** Where its arguments came from, when its door knows (a gate with `flows`; see `flows/`). */
  declare argLabels: LabelTree | undefined;
  /** What decided that the call is made (the conditions and lists on its way), when its door knows. */
  declare control: Label | undefined;
  /** Where each argument came from, as the flows stage found it: shown to a person asked about the call. */
  declare provenance: Provenance | undefined;
  /** The flows stage asks a person about the call: untrusted data steers it. */
  declare flowAsk: boolean;
  /** Where its output came from, once the call has ended (a gate with `flows`). */
  declare outputLabel: LabelTree | undefined;
  /** What get_observation said it read, when the call runs it (a gate with `flows`). */
  declare storedReads: StoredReads | undefined;

  /** A record not yet aimed at a call. */
  constructor() {
    this.expiresAt = 0;
    this.index = -1;
    this.armed = false;
    this.reused = false;
    this.name = '';
    this.step = '';
    this.tool = undefined;
    this.args = NO_ARGS;
    this.context = NO_CONTEXT;
    this.signal = undefined;
    this.timeoutMs = undefined;
    this.ticks = 0;
    this.stage = 0;
    this.door = undefined;
    this.site = undefined;
    this.settings = undefined;
    this.frame = undefined;
    this.answered = undefined;
    this.approved = false;
    this.counted = false;
    this.journal = undefined;
    this.journalAt = '';
    this.timed = false;
    this.onResult = undefined;
    this.onError = undefined;
    this.slot = undefined;
    this.wait = undefined;
    this.observed = undefined;
    this.argLabels = undefined;
    this.control = undefined;
    this.provenance = undefined;
    this.flowAsk = false;
    this.outputLabel = undefined;
    this.storedReads = undefined;
  }

  /**
   * Aim the record at a call.
   *
   * @param name - the name the call used
   * @param step - the step's name, for approvals and error details
   * @param timeoutMs - the call's timeout, if any
   * @param ticks - the same in watchdog ticks (`ticksFor(timeoutMs)`), which a caller making the
   *   same call often computes once
   * @param args - the arguments
   * @param context - the context the call runs with
   * @param signal - its own abort signal, if any
   * @param settings - the settings of the gate it passes (`gateSettings(gate)`)
   */
  aim(
    name: string,
    step: string,
    timeoutMs: number | undefined,
    ticks: number,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    signal: AbortSignal | undefined,
    settings: GateSettings | undefined,
  ): void {
    this.name = name;
    this.step = step;
    this.timeoutMs = timeoutMs;
    this.ticks = ticks;
    this.args = args;
    this.context = context;
    this.signal = signal;
    this.settings = settings;
    this.tool = undefined;
    this.answered = undefined;
    this.approved = false;
    this.counted = false;
    this.argLabels = undefined;
    this.control = undefined;
    this.provenance = undefined;
    this.flowAsk = false;
    this.outputLabel = undefined;
    this.storedReads = undefined;
  }

  /** Receives the call's result when it was not known at once; called exactly once per call. */
  abstract deliver(result: ToolExecutionResult): void;

  /**
   * The watchdog's deadline passed: a call still waiting for a place ends with `budget_exceeded`,
   * a running one with `step_timeout` (its place is freed: the tool may still be running, but the
   * run no longer waits on it).
   */
  expire(): void {
    const name = this.tool?.name ?? this.name;
    const wait = this.wait;
    if (wait !== undefined) {
      // It never got a place: it leaves the queue (the budget skips it) and holds nothing.
      wait.live = false;
      this.wait = undefined;
      this.slot = undefined;
      finishCall(this, budgetRefusal('inFlight', wait.budget, `Tool "${name}" waited ${this.timeoutMs} ms for a free place and did not start`));
      return;
    }
    // The tool's promise may still settle: its callbacks must not reach the record's next call.
    this.onResult = undefined;
    this.onError = undefined;
    finishCall(this, failure('step_timeout', `Tool "${name}" did not finish within ${this.timeoutMs} ms.`, { tool: name, step: this.step, timeoutMs: this.timeoutMs }));
  }
}

/** What an unaimed record holds as its arguments and context, so the fields always have one shape. */
const NO_ARGS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_CONTEXT: ToolExecutionContext = Object.freeze({});

/** Give back the in-flight place `call` holds, if any (starting the next call waiting for one). */
export function freeSlot(call: GateCall): void {
  const budget = call.slot;
  if (budget === undefined) return;
  call.slot = undefined;
  budget.release();
}

/**
 * The end of a call, whichever stage ended it: its place in flight goes back, whoever watches
 * (a listener, a tracer) hears the end, and the run journal notes the outcome; then the result is
 * returned for the caller to record. A call answered without this gate (see {@link AnsweredBy})
 * is not told or noted.
 */
export function endCall(call: GateCall, result: ToolExecutionResult): ToolExecutionResult {
  // Before the journal notes it, so a resumption reads the value the first run read. A dry run's
  // outputs are the host's own values.
  if (call.door?.readsJsonText === true && result.success === true && call.answered !== 'dry') result = readAsValue(result, call.tool);
  if (call.slot !== undefined) freeSlot(call);
  if (call.settings?.flows !== undefined) labelOutput(call, result);
  if (call.answered !== undefined) {
    call.journal = undefined;
    return result;
  }
  const observed = call.observed;
  if (observed !== undefined) {
    call.observed = undefined;
    observedEnd(observed, call.tool!.name, call.tool, call.step, result);
  } else if (call.context.onEvent !== undefined || call.frame?.tracer !== undefined) {
    observeRefusal(call.context, call.frame, call.name, call.tool, call.step, result);
  }
  const journal = call.journal;
  if (journal !== undefined) {
    call.journal = undefined;
    journal.ended(call.journalAt, call.tool!.name, call.args, result, call.outputLabel);
  }
  return result;
}

/** `result` with its output read by `jsonTextValue`: a new result when that changed it, the same one otherwise. */
function readAsValue(result: ToolExecutionResult, tool: ITool | undefined): ToolExecutionResult {
  const output = jsonTextValue(result.output, tool);
  return output === result.output ? result : { ...result, output };
}

/** End the call (see {@link endCall}) and deliver its result. Every delivery the pipeline makes passes here. */
export function finishCall(call: GateCall, result: ToolExecutionResult): void {
  call.deliver(endCall(call, result));
}

/** A record that hands its result to a callback: one per call (a host's `gate.run`, a call by name). */
export class CallbackCall extends GateCall {
  // Declared and set in the constructor, not a class field: see GateCall.
  private declare readonly done: (result: ToolExecutionResult) => void;

  constructor(done: (result: ToolExecutionResult) => void) {
    super();
    this.done = done;
  }

  override deliver(result: ToolExecutionResult): void {
    this.done(result);
  }
}
