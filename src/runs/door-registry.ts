/**
 * Which tools are doors, and the gate each runs through: how `resumeRun` finds the journal of
 * the run a door paused. A copy of a door (a wrapper such as `withObservations`) is the same door.
 */
import type { StepGate } from '../gate/options.js';
import type { ITool } from '../tool.js';

/** Each door's gate, as it stands now (a builder's may be bound again). */
const DOORS = new WeakMap<object, () => StepGate | undefined>();

/** Register `door` as a door that runs through `gateOf()`, so a run it paused can be resumed. */
export function registerDoor(door: ITool, gateOf: () => StepGate | undefined): void {
  DOORS.set(door, gateOf);
}

/** Make `copy` (a wrapper whose execute calls `original`'s) resume as `original` does, when `original` is a door. */
export function registerCopyOfDoor(copy: object, original: object): void {
  const gateOf = DOORS.get(original);
  if (gateOf !== undefined) DOORS.set(copy, gateOf);
}

/** The gate `door` runs through now, if it is a door. */
export function gateOfDoor(door: unknown): StepGate | undefined {
  if (typeof door !== 'object' || door === null) return undefined;
  try {
    return DOORS.get(door)?.();
  } catch {
    return undefined;
  }
}
