/**
 * A door's run as a DBOS workflow: the door runs inside the workflow (its gated calls are DBOS
 * steps through {@link durableTool}); when the run pauses for a person, the workflow waits
 * durably for the decisions and resumes the run with them, as many times as the run pauses. A
 * workflow DBOS recovers after a crash runs the door again from the start: the recorded steps,
 * events and messages answer everything up to where the crash stopped it.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { argumentsLabelOf, failure, isApprovalPending, resumeRun, type ITool, type ResumeDecision, type ToolExecutionContext, type ToolExecutionResult } from '../index.js';
import { decisionsProblem, decisionsTopic, engineUnavailable, PENDING_EVENT, type DbosPendingApproval } from './dbos-approvals.js';
import type { durableApprovals } from './dbos-hook.js';

/**
 * What a door's workflow runs with, besides its input: stored with the workflow, so only data
 * (an abort signal or an event listener cannot outlive the process).
 *
 * @category Durable runs
 */
export interface DbosRunContext {
  /** The session the run belongs to: the scope of its pauses, as with `resumeRun`. */
  sessionId?: string;
  /** The user the run belongs to. */
  userId?: string;
  /** Per-session data passed to the door (JSON). */
  sessionData?: Record<string, unknown>;
  /**
   * Where the arguments the door is given came from, for a gate with `flows` (see
   * `ToolExecutionContext.flows`). Left out, `start` stores the label the door's gate gives them
   * when the run starts (the session's), so a run recovered in another process, whose gate has
   * never seen the session, is judged as the first was.
   */
  flows?: ToolExecutionContext['flows'];
}

/**
 * Options of {@link registerDbosDoors}.
 *
 * @category Durable runs
 */
export interface DbosDoorsOptions {
  /** The name the workflow is registered under (default `toolweave.door`): one per set of doors in a process. */
  workflowName?: string;
  /**
   * The most answers a pause takes that do not fit its pending calls before the run ends with
   * `resume_decisions_invalid` (default 16). {@link answerApproval} sends only answers that fit.
   */
  maxInvalidAnswers?: number;
}

/**
 * Options of {@link DbosDoors.start}.
 *
 * @category Durable runs
 */
export interface DbosStartOptions {
  /** The workflow's id (default: one DBOS makes). Starting an id that exists starts nothing: it names that workflow. */
  workflowID?: string;
  /** What the door runs with. */
  context?: DbosRunContext;
}

/**
 * Doors that run as DBOS workflows; see {@link registerDbosDoors}.
 *
 * @category Durable runs
 */
export interface DbosDoors {
  /**
   * Start a run of `door` (a registered door, or its name) with `input` as a DBOS workflow. The
   * output names the workflow: its result (the door's, once every pause is answered) is
   * `DBOS.retrieveWorkflow(workflowID).getResult()`, from any process on the same database.
   * Fails with `door_unregistered` or `journal_unavailable`; never throws.
   */
  start(door: ITool | string, input: Record<string, unknown>, options?: DbosStartOptions): Promise<ToolExecutionResult<{ workflowID: string }>>;
}

/** The default name of the doors' workflow. */
const DEFAULT_WORKFLOW_NAME = 'toolweave.door';

/**
 * Register `doors` so their runs are DBOS workflows that survive a crash and wait durably for a
 * person.
 *
 * Call it before `DBOS.launch()`, in every process that runs or recovers these doors (DBOS
 * recovers a workflow in a process where its function is registered). Every tool the doors call
 * should be a {@link durableTool}, so a recovered run calls none of them again. The doors' gate
 * asks for approvals as always: when a run pauses, the workflow publishes the pending calls
 * ({@link pendingApproval}) and waits, until the token's expiry, for {@link answerApproval}. A
 * run's id (and so each call's `idempotencyKey`) is named after its workflow's id, the same after
 * a recovery. Give the doors' gate {@link durableApprovals}`(hook)` as its `approvals`, so a
 * recovered run replays the hook's recorded answers rather than asking it again (an answer that
 * changed after the crash would otherwise take the run another way, and DBOS would refuse it).
 *
 * @throws RangeError when two doors share a name (a programming error, not a result); DBOS's own
 * error when it refuses the registration (after `DBOS.launch()`, or a workflow name used twice).
 *
 * @example
 * ```ts
 * const doors = registerDbosDoors([refundDoor]);
 * DBOS.setConfig({ name: 'shop', systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL });
 * await DBOS.launch(); // recovers the runs a crash interrupted
 * const started = await doors.start(refundDoor, { orderId: 42 }, { workflowID: 'refund-42', context: { userId } });
 * ```
 *
 * @category Durable runs
 */
export function registerDbosDoors(doors: readonly ITool[], options: DbosDoorsOptions = {}): DbosDoors {
  const byName = new Map<string, ITool>();
  for (const door of doors) {
    if (byName.has(door.name)) throw new RangeError(`Two doors are named "${door.name}"; a door's workflow finds its door by name.`);
    byName.set(door.name, door);
  }
  const maxInvalid = Math.max(1, Math.floor(options.maxInvalidAnswers ?? 16));

  const runDoor = async (name: string, input: Record<string, unknown>, context: DbosRunContext): Promise<ToolExecutionResult> => {
    const door = byName.get(name);
    if (door === undefined) return unregistered(name);
    // The run takes the workflow's id as its name: its calls' keys are the same after a recovery.
    const ctx: ToolExecutionContext = { ...context, runName: DBOS.workflowID };
    let result = await door.execute(input, ctx);
    for (let pause = 0; isApprovalPending(result); pause++) {
      const details = result.details;
      const waiting: DbosPendingApproval = { pause, pending: details.pending, expiresAt: details.expiresAt };
      await DBOS.setEvent(PENDING_EVENT, waiting);
      result = await answered(door, details.resume, waiting, ctx, maxInvalid);
    }
    return result;
  };

  const workflow = DBOS.registerWorkflow(runDoor, { name: options.workflowName ?? DEFAULT_WORKFLOW_NAME });

  return {
    async start(door, input, startOptions = {}) {
      const name = typeof door === 'string' ? door : door?.name;
      const registered = typeof name === 'string' ? byName.get(name) : undefined;
      if (registered === undefined || (typeof door !== 'string' && registered !== door)) return unregistered(String(name));
      const context = contextOf(startOptions.context);
      // The session's label lives in this process's gate: stored with the workflow, it holds in a recovery too.
      if (context.flows?.arguments === undefined) {
        const label = argumentsLabelOf(registered, context);
        if (label !== undefined) context.flows = { arguments: label };
      }
      try {
        const handle = await DBOS.startWorkflow(workflow, startOptions.workflowID === undefined ? {} : { workflowID: startOptions.workflowID })(name!, input, context);
        return { success: true, output: { workflowID: handle.workflowID } };
      } catch (error) {
        return engineUnavailable(error);
      }
    },
  };
}

/**
 * Wait (durably, until the pause expires) for the answer to `waiting`, then resume the run with
 * it. Answers that do not fit are passed over, up to `maxInvalid`.
 */
async function answered(door: ITool, token: string, waiting: DbosPendingApproval, ctx: ToolExecutionContext, maxInvalid: number): Promise<ToolExecutionResult> {
  for (let tries = 0; tries < maxInvalid; tries++) {
    const message = await DBOS.recv<unknown>(decisionsTopic(waiting.pause), { deadlineEpochMS: waiting.expiresAt });
    if (message === null) {
      await DBOS.setEvent(PENDING_EVENT, null);
      return failure('resume_token_expired', 'No one answered the approval before it expired: the run ended without the calls it waited on. Start the work again.', { pending: waiting.pending.length });
    }
    if (decisionsProblem(message, waiting.pending.length) !== undefined) continue;
    await DBOS.setEvent(PENDING_EVENT, null);
    return resumeRun(door, token, message as ResumeDecision[], ctx);
  }
  await DBOS.setEvent(PENDING_EVENT, null);
  return failure('resume_decisions_invalid', `The run ended: ${maxInvalid} answers in a row did not answer its ${waiting.pending.length} pending call(s).`, { pending: waiting.pending.length });
}

/** Only the data fields of a run's context: what the workflow can store. */
function contextOf(context: DbosRunContext | undefined): DbosRunContext {
  if (context === undefined || context === null) return {};
  const { sessionId, userId, sessionData, flows } = context;
  return {
    ...(typeof sessionId === 'string' ? { sessionId } : {}),
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(sessionData !== undefined ? { sessionData } : {}),
    ...(flows?.arguments !== undefined ? { flows: { arguments: flows.arguments } } : {}),
  };
}

function unregistered(name: string): ToolExecutionResult<never> {
  return failure('door_unregistered', `No door named "${name}" was registered with registerDbosDoors in this process; register it before DBOS.launch().`, { door: name });
}
