/**
 * The approval hook's answers as part of a door's workflow: asked inside a DBOS workflow, each
 * answer is recorded as a DBOS step, so a workflow DBOS recovers after a crash gets the answers
 * back and never asks the hook again about the calls it replays. A hook whose answer would now
 * differ (a person already answered, a time-based rule, a new policy) cannot change the run's
 * order of steps.
 *
 * DBOS matches a workflow's steps by the order they start in. Calls side by side (a gather) are
 * asked about at once; were each question its own step, the calls' own steps would start in the
 * order the answers came back from the database, which another run need not repeat. So the
 * questions asked at once are asked in one step, and their answers are handed back together, in
 * the order they were asked: the calls then start in the same order in every run.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ApprovalAction, ApprovalDecision, ApprovalPending, ApprovalProvider, ToolExecutionContext } from '../index.js';
import { digestOf, stepName } from './dbos-step.js';

type Answer = ApprovalDecision | ApprovalPending;

/** What a step records for one question: the answer, or what the hook threw. */
type Recorded = { answer: unknown } | { threw: string };

/** One question waiting for its batch's step. */
interface Question {
  action: ApprovalAction;
  context: ToolExecutionContext;
  settle(recorded: Recorded): void;
}

/** The most questions one step asks; more asked at once go to the next step. */
const MAX_BATCH = 256;

/**
 * `provider` with every question asked inside a DBOS workflow recorded as a DBOS step.
 *
 * A recovered
 * workflow gets the recorded answers back instead of asking again; a question the crash cut off
 * before its answer was recorded is asked again. The questions asked at once (calls side by
 * side) are asked in one step, in the order they came, and answered together. Outside a workflow
 * (or inside a step) the hook is asked as it is. The step's name is a digest of each call's tool,
 * idempotency key and arguments, so a recovered run that asks about other calls
 * at that place is refused by DBOS rather than answered for another call: each of those calls is
 * refused (`approval_rejected`, with DBOS's error). A hook that throws is recorded as throwing, and
 * throws the same again when replayed.
 *
 * @example
 * ```ts
 * const gate = createStepGate({ resolve: (name) => tools.get(name), approvals: durableApprovals(myApprovals) });
 * const doors = registerDbosDoors([builder.build('refund', ...)]);
 * ```
 *
 * @category Durable runs
 */
export function durableApprovals(provider: ApprovalProvider): ApprovalProvider {
  // The questions of each workflow waiting to be asked, by workflow id.
  const waiting = new Map<string, Question[]>();

  const askAll = async (questions: readonly Question[]): Promise<void> => {
    let recorded: Recorded[];
    try {
      recorded = await DBOS.runStep(() => Promise.all(questions.map((q) => ask(provider, q.action, q.context))), { name: batchName(questions) });
    } catch (error) {
      // The step itself failed (DBOS refused it, or its database is down): every question says so.
      const threw = { threw: error instanceof Error ? error.message : String(error) };
      recorded = questions.map(() => threw);
    }
    // In the order asked, so the calls go on in that order.
    questions.forEach((question, i) => question.settle(recorded[i]));
  };

  return {
    requestApproval(action, context) {
      if (!DBOS.isInWorkflow() || DBOS.isInStep()) return provider.requestApproval(action, context);
      const workflowID = DBOS.workflowID!;
      return new Promise<Answer>((resolve, reject) => {
        const settle = (recorded: Recorded) => ('threw' in recorded ? reject(new Error(recorded.threw)) : resolve(recorded.answer as Answer));
        const batch = waiting.get(workflowID);
        if (batch !== undefined && batch.length < MAX_BATCH) {
          batch.push({ action, context, settle });
          return;
        }
        const started: Question[] = [{ action, context, settle }];
        waiting.set(workflowID, started);
        // Every question asked before the next turn of the event loop joins this one's step.
        setImmediate(() => {
          if (waiting.get(workflowID) === started) waiting.delete(workflowID);
          void askAll(started);
        });
      });
    },
  };
}

/** Ask the hook once; what it answers (as data) or throws. */
async function ask(provider: ApprovalProvider, action: ApprovalAction, context: ToolExecutionContext): Promise<Recorded> {
  try {
    return { answer: await provider.requestApproval(action, context) };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

/** The step's name: what a recovered workflow checks the questions at the same place against (each call named as `durableTool` names its step). */
function batchName(questions: readonly Question[]): string {
  return `toolweave approval ${digestOf(questions.map((q) => stepName(q.action.toolName, q.context?.idempotencyKey, q.action.args)))}`;
}
