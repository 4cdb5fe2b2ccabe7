/** Every case of the token benchmark, in table order. */
import type { TaskCase } from './case.js';
import { wrongCaller } from './case-1-wrong-caller.js';
import { buildLog } from './case-2-build-log.js';
import { countPerFolder } from './case-3-count-per-folder.js';
import { editAndTest } from './case-4-edit-and-test.js';
import { investigation } from './case-5-investigation.js';
import { importers } from './case-6-importers.js';
import { threeEntryListing, twoByteRead } from './controls.js';

export const CASES: readonly TaskCase[] = [wrongCaller, buildLog, countPerFolder, editAndTest, investigation, importers, twoByteRead, threeEntryListing];
export type { TaskCase } from './case.js';
