/**
 * Replay: a leaf call of a run that may pause (its gate asks for approvals) takes its position in
 * the run. After the run stopped (it paused, or its replay diverged) no call starts. In a
 * resumption, the calls up to the pause are answered from the journal without running (and without
 * asking anyone again: they were checked when they ran), the call paused at runs or is refused as
 * the person decided, and a call made differently than recorded stops the run (`replay_diverged`).
 * Every other call goes on with its idempotency key in its context, and its outcome is noted when
 * it ends. A composition's own calls are recorded inside it, not the composition.
 *
 * Lease: a resumption holds its token for a lease. A side-effecting call of a resumption is
 * marked started in the journal before it runs (should the process stop, the next attempt asks a
 * person again rather than run it twice), and starts only while the lease holds: it is looked at
 * here and again just before the call starts, after the host's checks, which may take long.
 */
import { failure } from '../../codes.js';
import { stoppedResult, waitingResult, type RunRecord } from '../../runs/run-record.js';
import type { ToolExecutionResult } from '../../tool.js';
import { Later, type GateCall, type Verdict } from '../call-record.js';
import { pendingOf } from './approval.js';
import { readStoredTree, UNREADABLE_LABEL } from '../../flows/stored-labels.js';

/** The stage: the call's answer from the journal, a wait while its start is written, or `undefined` to go on. */
export function replayFromJournal(call: GateCall): Verdict {
  // The test a run that cannot pause pays; the rest is kept out of line.
  return call.frame?.run === undefined ? undefined : replayIn(call);
}

function replayIn(call: GateCall): Verdict {
  const run = call.frame!.run!;
  const tool = call.tool!;
  if (tool.composition === true) return undefined;
  const frame = call.frame!;
  const step = call.step;
  const position = run.positionOf(frame.path, step);
  if (run.stopped) return answered(call, stoppedResult(run, tool.name, step));
  const answer = run.answer(position, tool.name, call.args);
  if (answer !== undefined) {
    switch (answer.kind) {
      case 'result':
        // Answered from the journal: counted as the call was, not run again, labelled as it was.
        frame.budget.calls++;
        if (answer.label !== undefined) call.outputLabel = readStoredTree(answer.label, UNREADABLE_LABEL);
        return answered(call, answer.result);
      case 'diverged':
        return answered(call, answer.result);
      case 'unknown':
        run.pause(position, pendingOf(call, true));
        return answered(call, waitingResult(tool.name, step, true));
      case 'refused': {
        // Counted as it was when the person was asked about it.
        frame.budget.calls++;
        const result = { ...answer.result, details: { ...answer.result.details, step } };
        run.ended(position, tool.name, call.args, result);
        return answered(call, result);
      }
      case 'approved':
        call.approved = true;
    }
  }
  call.journal = run;
  call.journalAt = position;
  call.context = { ...call.context, idempotencyKey: run.keyOf(position) };
  if (!run.writesThrough || tool.hasSideEffects === false) return undefined;
  const lapsed = checkLease(call);
  if (lapsed) return lapsed;
  const later = new Later();
  run.started(position, tool.name, call.args).then((written) =>
    later.settle(written ? undefined : failure('journal_unavailable', `Tool "${tool.name}" was not started: the run journal could not record its start.`, { tool: tool.name, step })),
  );
  return later;
}

/**
 * The stage after the person's answer (and the first check of a resumption's side-effecting call):
 * a resumption past its lease starts no side effect, since another may hold the token by now.
 */
export function checkLease(call: GateCall): ToolExecutionResult | undefined {
  const run = call.journal;
  return run === undefined ? undefined : leaseIn(call, run);
}

function leaseIn(call: GateCall, run: RunRecord): ToolExecutionResult | undefined {
  if (!run.writesThrough || call.tool!.hasSideEffects === false) return undefined;
  const lapsed = run.fence(call.tool!.name, call.step);
  if (lapsed === undefined) return undefined;
  // Not the call's outcome: the journal keeps no note of it.
  call.journal = undefined;
  return answered(call, lapsed);
}

/** A call answered by the journal: neither told to whoever watches nor noted again. */
function answered(call: GateCall, result: ToolExecutionResult): ToolExecutionResult {
  call.answered = 'journal';
  return result;
}
