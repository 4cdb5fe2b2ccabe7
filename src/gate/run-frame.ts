/**
 * What travels with a call from outside into every door nested under it, the way the depth does:
 * its budget, and whether interactive tools are forbidden below this point (under a script). It
 * lives in `context.sessionData.toolweave`; every door copies `sessionData` into the calls it
 * makes, so the frame reaches every nested call, and the gate reads it at every call.
 *
 * Only a frame made here counts: a value a host left under the same key (a session restored from
 * JSON, say) is not one, and a new frame (with a fresh budget) is made instead.
 */
import type { ToolExecutionContext } from '../tool.js';
import { CallBudget, type BudgetLimits } from './budget.js';

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

  /**
   * @param budget - the budget every nested door draws on
   * @param noInteractive - see {@link RunFrame.noInteractive}
   * @param door - see {@link RunFrame.door}
   */
  constructor(budget: CallBudget, noInteractive: ReadonlySet<string> | undefined, door: DoorInfo | undefined) {
    this.budget = budget;
    this.noInteractive = noInteractive;
    this.door = door;
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

/**
 * The frame for the calls of a door entered with `context`: the caller's budget (shared), or a
 * fresh one at a call from outside; the tools forbidden below (the caller's, with `noInteractive`
 * added); and the door itself.
 */
export function frameFor(
  context: ToolExecutionContext,
  limits: Readonly<BudgetLimits>,
  noInteractive: ReadonlySet<string> | undefined,
  door: DoorInfo | undefined,
): RunFrame {
  const parent = frameOf(context);
  if (!parent) return new RunFrame(new CallBudget(limits), noInteractive, door);
  let names = parent.noInteractive;
  if (noInteractive !== undefined) names = names ? new Set([...names, ...noInteractive]) : noInteractive;
  return new RunFrame(parent.budget, names, door ?? parent.door);
}
