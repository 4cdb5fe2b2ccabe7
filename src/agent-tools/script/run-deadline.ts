/**
 * A run's own time checks: its deadline (its limit from the script's start, stretched by the
 * host, plus the time it waited for the thread), its stretches of computing between awaits, and
 * why its checks stopped it. QuickJS asks them from inside the VM (its interrupt handler), the
 * run's loop asks them at every await, and every way a run can end reads the same answer here.
 *
 * They end the common cases cleanly: a loop, a wait past the limit, computing too long while
 * other runs wait for the thread. The host still terminates the thread when they cannot be
 * reached, since QuickJS checks its interrupt handler only every so many operations and one large
 * built-in call (`"x".repeat(1e6)`) counts as one.
 */
import type { QuickJSRuntime } from 'quickjs-emscripten';
import type { SandboxOutcome, SandboxRequest, SandboxStop } from './run-contract.js';

/** The time checks of one run. */
export class RunDeadline {
  /** When the script started: its limit counts from here, not from the runtime's set-up. */
  private start = Date.now();
  /** Set once a check has stopped the run: the interrupt handler then stops it at every ask. */
  timedOut = false;
  /** Why the run's own checks stopped it besides the time limit, once they have. */
  stopped: SandboxStop | undefined;
  /** When the run last started computing (its start, or its last await's end). */
  private computingSince = Date.now();
  /** How long it had computed when a `'slice'` stop came. */
  private computedMs = 0;

  constructor(private readonly request: SandboxRequest) {}

  /** The run's deadline as it stands now (`Date.now()` time): its limit, plus the time it waited for the thread. */
  at(): number {
    const uncharged = this.request.uncharged;
    return this.start + this.request.timeLimitMs() + (uncharged === undefined ? 0 : uncharged());
  }

  /**
   * Start the clock, as the script starts, and the checks QuickJS makes while it computes. Called
   * after the set-up: that is the host's time, and on a busy machine it could otherwise eat a
   * short limit (or be cut off by it) before the script runs.
   */
  begin(runtime: QuickJSRuntime): void {
    this.start = Date.now();
    this.request.onStart?.(this.start);
    this.computing();
    const interrupt = this.request.interrupt;
    runtime.setInterruptHandler(() => {
      if (this.timedOut) return true;
      const now = Date.now();
      if (now > this.at()) {
        this.timedOut = true;
      } else if (interrupt !== undefined) {
        const stop = interrupt(now - this.computingSince);
        if (stop !== undefined) {
          this.stopped = stop;
          this.computedMs = now - this.computingSince;
          this.timedOut = true;
        }
      }
      return this.timedOut;
    });
  }

  /** The run computes from now on (its start, or an await's end). */
  computing(): void {
    this.computingSince = Date.now();
    this.request.onCompute?.(true, this.at());
  }

  /**
   * The script waited `ms` for the host inside its computing (the host made a part of the
   * prelude it asked for): not charged to it, as its set-up is not. The stretch of computing
   * starts again from now.
   */
  exclude(ms: number): void {
    this.start += ms;
    this.idle();
    this.computing();
  }

  /** The run stops computing: it awaits, or it has ended. */
  idle(): void {
    this.request.onCompute?.(false, 0);
  }

  /** The run computes again after an await; an abort that came meanwhile stops it. */
  resumed(): void {
    this.computing();
    if (this.request.interrupt?.(0) === 'aborted') this.stopped = 'aborted';
  }

  /** How the run ends when its own checks stopped it: at the time limit, aborted, or for computing too long. */
  stopOutcome(): SandboxOutcome {
    if (this.stopped === 'aborted') return { kind: 'aborted' };
    if (this.stopped === 'slice') return { kind: 'timeout', computedMs: this.computedMs };
    return { kind: 'timeout' };
  }
}
