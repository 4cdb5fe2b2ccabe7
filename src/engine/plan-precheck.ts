/**
 * Before a built composite's first call: every call its plan may make is checked against the
 * chainability rule as the registry stands now, so a refusal comes before any effect. When the
 * host's registry version is the one the last check saw, that check stands, and its tools are
 * reused by the run's steps.
 */
import { observeRefusal } from '../gate/events.js';
import { chainRefusal, isChainable, namesOf } from '../gate/stages/chainable.js';
import type { ITool } from '../tool.js';
import type { PlanCall } from './compile-env.js';
import type { NodeOutcome, RunState } from './run-state.js';
import type { RunSettings } from './run-settings.js';
import { failed } from './step-records.js';

/** The first call of each tool among `calls`: the rule is the tool's, so one check per tool is enough. */
export function firstCallPerTool(calls: readonly PlanCall[]): PlanCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.tool) && seen.add(call.tool));
}

/**
 * The refusal of the first call (in spec order) the chainability rule refuses as the registry
 * stands now, or `undefined`. A call to the composition being run is left to the cycle guard.
 * When the host's registry version is the one the last check saw, that check stands and its
 * tools are reused by the run's steps; otherwise every tool is resolved and checked again.
 */
export function precheckCalls(state: RunState, settings: RunSettings, calls: readonly PlanCall[]): NodeOutcome | undefined {
  const version = settings.version;
  const seen = version ? version() : undefined;
  const last = settings.checked;
  if (last !== undefined && seen === last.version) {
    state.resolved = last;
    return undefined;
  }
  const { gate, sideEffectingTools } = state;
  const compositionId = settings.compositionId;
  // Kept only when a version can say later that they still stand: without one, nothing reads them.
  const bySlot: (ITool | undefined)[] | undefined = version ? [] : undefined;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const tool = gate.resolve(call.tool);
    if (bySlot) bySlot[call.slot] = tool;
    // A call to the composition being run is the cycle guard's to refuse, at run time.
    if (!isChainable(call.tool, tool, sideEffectingTools) && !isComposition(tool, compositionId)) {
      const refusal = chainRefusal(call.tool, tool, namesOf(gate), gate.advice);
      observeRefusal(state.context, state.frame, call.tool, tool, call.label, refusal);
      return failed(state, call.label, call.tool, refusal);
    }
  }
  if (bySlot) {
    settings.checked = { version: seen, bySlot };
    state.resolved = settings.checked;
  }
  return undefined;
}

/** Whether `tool` is the composition `compositionId` (the one being run). */
function isComposition(tool: ITool | undefined, compositionId: string | undefined): boolean {
  return tool !== undefined && compositionId !== undefined && tool.id === compositionId;
}

