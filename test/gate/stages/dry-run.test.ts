import { describe, expect, it } from 'vitest';
import type { ToolExecutionResult } from '../../../src/tool.js';
import { answerDryRun } from '../../../src/gate/stages/dry-run.js';
import { registry, tool } from '../../helpers/tools.js';
import { callOf, frameOf } from './record.js';

describe('stage: dry run', () => {
  const read = tool('read', () => 'r');
  const write = tool('write', () => 'w', { hasSideEffects: true });
  const gate = registry(read, write).gate();
  const dry = { stepOutputs: { step: 'stubbed' } };

  it('does nothing in a real run, nor for a pure call in a dry one', () => {
    expect(answerDryRun(callOf({ gate, tool: write }))).toBeUndefined();
    const call = callOf({ gate, tool: read, door: { dry } });
    expect(answerDryRun(call)).toBeUndefined();
    expect(call.answered).toBeUndefined();
  });

  it("answers a side-effecting call from the step's output, and marks it answered", () => {
    const call = callOf({ gate, tool: write, door: { dry } });
    expect(answerDryRun(call)).toEqual({ success: true, output: 'stubbed' });
    expect(call.answered).toBe('dry');
  });

  it('refuses a composite step with no output given', () => {
    expect((answerDryRun(callOf({ gate, tool: write, door: { dry: { stepOutputs: {} } } })) as ToolExecutionResult).details?.code).toBe('dry_run_needs_output');
  });

  it("answers a script's call by its tool's name, else with a note that it was not run", () => {
    const frame = frameOf({}, { kind: 'run_js' });
    expect(answerDryRun(callOf({ gate, tool: write, frame, door: { dry: { stepOutputs: { write: 'by name' } } } }))).toEqual({ success: true, output: 'by name' });
    expect(answerDryRun(callOf({ gate, tool: write, frame, door: { dry: { stepOutputs: {} } } }))).toEqual({ success: true, output: 'dry run: "write" was not run' });
  });
});
