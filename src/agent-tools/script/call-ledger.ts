/**
 * A run's effects ledger: each side-effecting call the script's run started, and how it ended.
 *
 * When the run ends, the side-effecting calls still in flight get a short grace to settle; whatever
 * has not by then is listed with the outcome `unknown` (it may still be running). A call that was still
 * waiting for the host's checks (an approval) is listed too, since from here it cannot be told
 * apart from one that started; the run's abort signal has fired by then, so it never will start.
 */
import type { EffectOutcome, EffectRecord, ITool, ToolExecutionResult } from '../../tool.js';

/**
 * Refusals that mean the tool never started, so its call is not in the effects ledger: the
 * chainability rule, the arguments and the cycle guard (before the gate's own stages), the
 * host's checks, an abort and the budget.
 */
const DID_NOT_START = new Set([
  'step_not_chainable',
  'side_effects_undeclared',
  'step_missing',
  'args_invalid',
  'input_invalid',
  'composition_cycle',
  'permission_denied',
  'approval_rejected',
  'step_aborted',
  'budget_exceeded',
]);

/** How a call that settled with `result` ended, or `undefined` when its tool never started. */
export function effectOutcome(result: ToolExecutionResult): EffectOutcome | undefined {
  if (result.success) return 'ran';
  const code = String(result.details?.code);
  if (DID_NOT_START.has(code)) return undefined;
  if (code === 'step_timeout') return 'timed_out';
  // A tool that returned something that is not a result: how it ended is not known.
  if (code === 'step_bad_result') return 'unknown';
  return 'failed';
}

/** A side-effecting call in flight: its tool, and its settling. */
interface InFlight {
  tool: string;
  settled: Promise<unknown>;
}

/** The effects of one run, in the order the calls settled. */
export class CallLedger {
  private readonly effects: EffectRecord[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  private closed = false;
  /** A call of a tool that may change something went through the gate (undeclared tools and doors count). */
  private touched = false;

  /** Whether every call the run made through the gate was of a tool that declares no side effects. */
  get changedNothing(): boolean {
    return !this.touched;
  }

  /**
   * Follow one call through the gate. `resolved` is the instance the gate was given (the one it
   * checks and runs): only a side-effecting tool's call is listed, so only such a call is followed.
   */
  track(step: string, name: string, resolved: ITool | undefined, call: Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    if (resolved?.hasSideEffects !== false || resolved.composition === true) this.touched = true;
    if (resolved?.hasSideEffects !== true) return call;
    const settled = call.then(
      (result) => {
        this.inFlight.delete(step);
        if (this.closed) return;
        const outcome = effectOutcome(result);
        if (outcome) this.effects.push({ step, tool: name, ran: true, outcome });
      },
      // The gate never rejects; should it, the call is simply no longer followed here.
      () => this.inFlight.delete(step),
    );
    this.inFlight.set(step, { tool: name, settled });
    return call;
  }

  /** A dry run's call that was not made: listed as one that would run, with its arguments. */
  wouldRun(step: string, name: string, args: Record<string, unknown>): void {
    if (!this.closed) this.effects.push({ step, tool: name, wouldRun: true, args });
  }

  /**
   * Close the ledger once the run has ended: wait up to `graceMs` for the calls in flight, then
   * list those still unsettled as `unknown`. Later settlements are not recorded.
   */
  async close(graceMs: number): Promise<EffectRecord[]> {
    if (graceMs > 0 && this.inFlight.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all([...this.inFlight.values()].map((call) => call.settled)), grace]);
      clearTimeout(timer);
    }
    this.closed = true;
    for (const [step, call] of this.inFlight) this.effects.push({ step, tool: call.tool, ran: true, outcome: 'unknown' });
    return this.effects.slice();
  }
}
