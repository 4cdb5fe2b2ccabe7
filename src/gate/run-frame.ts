/**
 * What travels with a call from outside into every door nested under it: its budget, whether
 * interactive tools are forbidden below this point (under a script), the door, the tracer, and
 * the depth and composition path the guards count on. Every door copies `sessionData` into the
 * calls it makes, and keeps the frame on that copy as a private field (see {@link FrameField}),
 * so a step tool that is itself a door (given the same `sessionData`) finds its caller's frame,
 * and the gate finds it at every call.
 *
 * A tool sees none of it: what it reads in `sessionData` (`emergentDepth`, `compositionPath`) is
 * a copy for its information, and writing there changes nothing of the calls after it. A
 * `sessionData` the host made, or a copy a tool makes, has no frame: a door entered with it
 * starts a new one (a fresh budget), counting its depth from the `emergentDepth` it carries.
 */
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import type { DoorInfo } from '../tool-events.js';
import type { RunRecord } from '../runs/run-record.js';
import type { RunFlow } from '../flows/run-flow.js';
import { CallBudget, DEFAULT_BUDGET_LIMITS, type BudgetLimits } from './budget.js';
import { endSpan, startDoorSpan, type Span, type Tracer } from './tracing.js';

/** The frame of a call from outside; see the module comment. */
export class RunFrame {
  // Declared and set in the constructor, not class fields: see GateCall.
  /** The budget every nested door draws on. */
  declare readonly budget: CallBudget;
  /**
   * Names of tools refused below this point (under a script), with every tool that declares
   * `interactive: true`; `undefined` where interactive tools may run.
   */
  declare readonly noInteractive: ReadonlySet<string> | undefined;
  /** The door whose calls this frame is for (the innermost one). */
  declare readonly door: DoorInfo | undefined;
  /** The gate's tracer, when it has one: every door under it traces too. */
  declare readonly tracer: Tracer | undefined;
  /** Whether the spans carry failures' messages, not only their codes (see `StepGateOptions.traceMessages`). */
  declare readonly traceMessages: boolean;
  /** The span of this door's run, the parent of its calls' spans (when tracing). */
  declare readonly span: Span | undefined;
  /** How deep the calls under this frame are nested (1 for the calls of a door entered from outside). */
  declare readonly depth: number;
  /** The ids of the compositions the calls under this frame are inside, outermost first. */
  declare readonly path: readonly string[];
  /** The record of the run when it may pause (its gate has an approval hook), shared by every door nested in it. */
  declare readonly run: RunRecord | undefined;
  /** The labels the run has handled, when it follows where data came from (its outermost door's gate has `flows`). */
  declare readonly flow: RunFlow | undefined;

  /**
   * @param budget - the budget every nested door draws on
   * @param noInteractive - see {@link RunFrame.noInteractive}
   * @param door - see {@link RunFrame.door}
   * @param tracer - see {@link RunFrame.tracer}
   * @param traceMessages - see {@link RunFrame.traceMessages}
   * @param span - see {@link RunFrame.span}
   * @param depth - see {@link RunFrame.depth}
   * @param path - see {@link RunFrame.path}
   * @param run - see {@link RunFrame.run}
   * @param flow - see {@link RunFrame.flow}
   */
  constructor(
    budget: CallBudget,
    noInteractive: ReadonlySet<string> | undefined,
    door: DoorInfo | undefined,
    tracer: Tracer | undefined,
    traceMessages: boolean,
    span: Span | undefined,
    depth: number,
    path: readonly string[],
    run: RunRecord | undefined,
    flow: RunFlow | undefined,
  ) {
    this.budget = budget;
    this.noInteractive = noInteractive;
    this.door = door;
    this.tracer = tracer;
    this.traceMessages = traceMessages;
    this.span = span;
    this.depth = depth;
    this.path = path;
    this.run = run;
    this.flow = flow;
  }

  /** The door's run ended with `result`: its span (if any) ends with the verdict. */
  end(result: ToolExecutionResult): void {
    if (this.span) endSpan(this.span, result, this.traceMessages);
  }

  /** Whether `tool` may not run here: interactive tools are forbidden and it is one. */
  refusesInteractive(name: string, interactive: boolean | undefined): boolean {
    const names = this.noInteractive;
    return names !== undefined && (interactive === true || names.has(name));
  }
}

/** A base class whose constructor returns the object it is given, so a subclass's fields are defined on that object. */
class Returning {
  constructor(target: object) {
    return target as Returning;
  }
}

/**
 * Keeps a frame on the `sessionData` a door made, as a private field: constructed over that
 * object (see {@link Returning}), it defines `#frame` on the object itself, which stays a plain
 * object (the same prototype, the same keys) that only this class can read the field of: neither
 * `Reflect.ownKeys`, `Object.getOwnPropertySymbols` nor a proxy reaches it, and a copy does not
 * carry it. The class is reachable from no object. (Measured: a WeakMap keyed by the
 * `sessionData` did the same for about 2,800 more instructions per run of a 20-step chain, much of
 * it the collector's work on its entries; a field costs what adding a property does.)
 */
class FrameField extends Returning {
  #frame: RunFrame;

  private constructor(target: object, frame: RunFrame) {
    super(target);
    this.#frame = frame;
  }

  /** Keep `frame` on `target`, a `sessionData` a door has just made (never one that has a frame). */
  static keep(target: object, frame: RunFrame): void {
    new FrameField(target, frame);
  }

  /** The frame kept on `target`, if any. */
  static read(target: object): RunFrame | undefined {
    return #frame in target ? target.#frame : undefined;
  }
}

/** The frame of the calls made with `context`, if a door made its `sessionData`. */
export function frameOf(context: ToolExecutionContext | undefined): RunFrame | undefined {
  const sessionData: unknown = context?.sessionData;
  return typeof sessionData === 'object' && sessionData !== null ? FrameField.read(sessionData) : undefined;
}

/** What {@link frameFor} needs of the door being entered. */
export interface FrameEntry {
  /** The budget limits of a call from outside that starts here (absent: the defaults). */
  readonly limits?: Readonly<BudgetLimits>;
  /** Tools refused below this door, with every `interactive: true` tool. */
  readonly noInteractive?: ReadonlySet<string>;
  /** Which door this is. */
  readonly door?: DoorInfo;
  /** The gate's tracer, when it has one. */
  readonly tracer?: Tracer;
  /** Whether that tracer's spans carry failures' messages (see `StepGateOptions.traceMessages`). */
  readonly traceMessages?: boolean;
  /** The run is a dry run (for its span). */
  readonly dryRun?: boolean;
}

/**
 * The frame for the calls of a door entered from a caller whose frame is `parent` (none for a
 * call from outside), kept for `sessionData`, the one those calls get: the caller's budget
 * (shared), or a fresh one at a call from outside; the tools forbidden below (the caller's, with
 * `noInteractive` added); the door itself; when tracing, the door's span, a child of the caller's;
 * and the calls' depth and path.
 *
 * @param parent - the caller's frame, if any
 * @param entry - the door being entered
 * @param sessionData - the `sessionData` the door's calls get (made by the door, for this run)
 * @param depth - the calls' depth
 * @param path - the calls' composition path (the frame's own: no tool is given this array)
 */
export function frameFor(parent: RunFrame | undefined, entry: FrameEntry, sessionData: object, depth: number, path: readonly string[]): RunFrame {
  const door = entry.door ?? parent?.door;
  const tracer = entry.tracer ?? parent?.tracer;
  // The setting goes with the tracer it was given with.
  const traceMessages = entry.tracer !== undefined ? entry.traceMessages === true : parent?.traceMessages === true;
  const span = tracer && entry.door ? startDoorSpan(tracer, entry.door.name ?? entry.door.kind, entry.door.kind, parent?.span, entry.dryRun === true) : undefined;
  let frame: RunFrame;
  if (!parent) {
    // What a door handed over for this run, if anything: taken once, by the first frame made after.
    const run = handed;
    const flow = handedFlow;
    handed = undefined;
    handedFlow = undefined;
    frame = new RunFrame(new CallBudget(entry.limits ?? DEFAULT_BUDGET_LIMITS), entry.noInteractive, door, tracer, traceMessages, span, depth, path, run, flow);
  } else {
    let names = parent.noInteractive;
    const more = entry.noInteractive;
    if (more !== undefined) names = names ? new Set([...names, ...more]) : more;
    frame = new RunFrame(parent.budget, names, door, tracer, traceMessages, span, depth, path, parent.run, parent.flow);
  }
  FrameField.keep(sessionData, frame);
  return frame;
}

/** The run record a door hands to the frame it is about to make (see {@link handRun}). */
let handed: RunRecord | undefined;
/** The labels the run is to keep (see {@link handRun}). */
let handedFlow: RunFlow | undefined;

/**
 * Hand `run` and `flow` to the next outermost frame made (the door's own, made synchronously
 * inside the call that follows); `undefined` withdraws one not taken. A door calls it right before
 * it enters its run and withdraws it right after, so no other frame can take it.
 */
export function handRun(run: RunRecord | undefined, flow: RunFlow | undefined): void {
  handed = run;
  handedFlow = flow;
}
