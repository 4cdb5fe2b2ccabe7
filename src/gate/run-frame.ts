/**
 * What travels with a call from outside into every door nested under it, the way the depth does:
 * its budget, and whether interactive tools are forbidden below this point (under a script). It
 * lives in `context.sessionData.toolweave`; every door copies `sessionData` into the calls it
 * makes, so the frame reaches every nested call, and the gate reads it at every call.
 *
 * Only a frame made here counts: a value a host left under the same key (a session restored from
 * JSON, say) is not one, and a new frame (with a fresh budget) is made instead.
 */
import type { ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { CallBudget, DEFAULT_BUDGET_LIMITS, type BudgetLimits } from './budget.js';
import { endSpan, startDoorSpan, type Span, type Tracer } from './tracing.js';

/** Where the frame travels: `context.sessionData.toolweave`. */
export const FRAME_KEY = 'toolweave';

/** The doors a call can come through. */
export type DoorKind = 'composite' | 'run_pipeline' | 'compose' | 'run_js';

/** Which door made the calls under a frame, for approvals and traces. */
export interface DoorInfo {
  /** The door. */
  kind: DoorKind;
  /** A composite's name (the host chose it). */
  name?: string;
  /** A script's stated intention (the model chose it). */
  intention?: string;
}

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
  /** The span of this door's run, the parent of its calls' spans (when tracing). */
  declare readonly span: Span | undefined;

  /**
   * @param budget - the budget every nested door draws on
   * @param noInteractive - see {@link RunFrame.noInteractive}
   * @param door - see {@link RunFrame.door}
   * @param tracer - see {@link RunFrame.tracer}
   * @param span - see {@link RunFrame.span}
   */
  constructor(budget: CallBudget, noInteractive: ReadonlySet<string> | undefined, door: DoorInfo | undefined, tracer: Tracer | undefined, span: Span | undefined) {
    this.budget = budget;
    this.noInteractive = noInteractive;
    this.door = door;
    this.tracer = tracer;
    this.span = span;
  }

  /** The door's run ended with `result`: its span (if any) ends with the verdict. */
  end(result: ToolExecutionResult): void {
    if (this.span) endSpan(this.span, result);
  }

  /** Whether `tool` may not run here: interactive tools are forbidden and it is one. */
  refusesInteractive(name: string, interactive: boolean | undefined): boolean {
    const names = this.noInteractive;
    return names !== undefined && (interactive === true || names.has(name));
  }
}

/** The frame `context` carries, if any. */
export function frameOf(context: ToolExecutionContext | undefined): RunFrame | undefined {
  const frame = context?.sessionData?.[FRAME_KEY];
  return frame instanceof RunFrame ? frame : undefined;
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
  /** The run is a dry run (for its span). */
  readonly dryRun?: boolean;
}

/**
 * The frame for the calls of a door entered with `context`: the caller's budget (shared), or a
 * fresh one at a call from outside; the tools forbidden below (the caller's, with `noInteractive`
 * added); the door itself; and, when tracing, the door's span, a child of the caller's.
 */
export function frameFor(context: ToolExecutionContext, entry: FrameEntry): RunFrame {
  const parent = frameOf(context);
  const door = entry.door ?? parent?.door;
  const tracer = entry.tracer ?? parent?.tracer;
  const span = tracer && entry.door ? startDoorSpan(tracer, entry.door.name ?? entry.door.kind, entry.door.kind, parent?.span, entry.dryRun === true) : undefined;
  if (!parent) return new RunFrame(new CallBudget(entry.limits ?? DEFAULT_BUDGET_LIMITS), entry.noInteractive, door, tracer, span);
  let names = parent.noInteractive;
  const more = entry.noInteractive;
  if (more !== undefined) names = names ? new Set([...names, ...more]) : more;
  return new RunFrame(parent.budget, names, door, tracer, span);
}
