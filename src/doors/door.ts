/**
 * What every front door (a composite, run_pipeline, compose, run_js) shares: what it keeps of its
 * gate, made once when the door is made; how a run of it starts (the run's record, when its gate
 * can pause; the depth and cycle guards; the frame and the state its calls share); and how
 * `resumeRun` finds it again.
 */
import { enterRun, runSettings, withDryRun, dryRunOf, type PlanRunOptions, type RunSettings } from '../engine/run-settings.js';
import type { RunState } from '../engine/run-state.js';
import type { StepGate } from '../gate/options.js';
import { registerDoor } from '../runs/door-registry.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../tool.js';
import { runAsDoor } from './door-run.js';

/** How a door runs its calls: everything of {@link PlanRunOptions} but the gate, the signal and a dry run. */
export type DoorOptions = Omit<PlanRunOptions, 'gate' | 'signal' | 'dry'>;

/** A front door's share of every run; see the module comment. */
export class Door {
  /** What every run of the door takes from it (the gate among them). */
  readonly settings: RunSettings;
  /** The name a paused run of the door is stored under: the tool's. */
  private readonly name: string;

  /**
   * @param gate - the gate every call of the door passes
   * @param tool - the door tool: `resumeRun` finds the runs it paused through it
   * @param options - how the door runs its calls
   */
  constructor(gate: StepGate, tool: ITool, options: DoorOptions) {
    this.name = tool.name;
    this.settings = runSettings({ ...options, gate });
    registerDoor(tool, () => gate);
  }

  /**
   * Run `enter` as a run of this door with `input` (see `runAsDoor`): recorded when it may pause,
   * its labels followed when its gate has `flows`.
   */
  run(input: unknown, context: ToolExecutionContext, enter: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    return runAsDoor(this.settings.gateSettings, context, this.name, input, enter);
  }

  /** The settings of one run with `context`: the door's own, or a dry run's made for it. */
  settingsFor(context: ToolExecutionContext): RunSettings {
    return withDryRun(this.settings, dryRunOf(context));
  }

  /**
   * Enter a run: one level of composition deeper (refused at the depth limit or on a cycle), with
   * the state its calls share.
   */
  enter(context: ToolExecutionContext, stepTimeoutMs: number): { ok: true; state: RunState } | { ok: false; refusal: ToolExecutionResult } {
    return enterRun(context, this.settingsFor(context), context.signal, stepTimeoutMs);
  }
}
